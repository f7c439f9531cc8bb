// Runs the firmware bundle in QuickJS (quickjs-emscripten, or the QuickJS-ng variant) and bridges a
// Node-side HAL `Device` into the VM as `globalThis.device`.
//
// The host owns no time: every timer and clock the firmware sees comes from the Node-side Device (the
// simulator's runs on virtual time). The only real-time use is the per-call interrupt deadline, which
// stands for the hardware watchdog catching a hung app: an interrupted call is reported as a fault.
//
// The bridge: a small prelude (plain ES2020) builds `device` in the VM. Its constructors call the host
// with a JSON text plus binary blobs (ArrayBuffers) as extra arguments; Uint8Array/ArrayBuffer values
// cross as copies, functions cross as ids (the VM keeps every function passed to the host, so pass
// long-lived callbacks, not a fresh closure per call). Host objects' methods become VM methods and
// their other properties become getters read on every access. Methods a host object names in its
// `_steady` list (the clocks' `now`) are asked once per entry into the VM: virtual time does not move
// while the VM runs.
import {
  newQuickJSWASMModuleFromVariant,
  RELEASE_SYNC,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';
import type { Device } from '../src/hal.ts';

/** The device's VM limits, the only ones: every VM the simulator starts (the firmware tests and bench too) runs under these, unless a test shortens one. */
export const VM_LIMITS = { memoryLimit: 8 << 20, stackLimit: 256 * 1024, deadlineMs: 2000 };

const proc = (globalThis as { process?: { cpuUsage?: () => { user: number; system: number } } }).process;
/** Milliseconds of this process's CPU time (Node); wall time where there is none (a browser). */
const cpuMs =
  proc && typeof proc.cpuUsage === 'function'
    ? () => {
        const u = proc.cpuUsage!();
        return (u.user + u.system) / 1000;
      }
    : () => Date.now();

/** Asking the CPU time is a system call: a sample serves every entry within the next 10 ms of wall time. */
const SAMPLE_MS = 10;
let sampledAt = -Infinity;
let sampledCpu = 0;
/** The CPU time at most SAMPLE_MS of wall time ago: a baseline that can only make an entry look longer. */
function cpuBaseline(wall: number): number {
  if (wall - sampledAt >= SAMPLE_MS || wall < sampledAt) {
    sampledAt = wall;
    sampledCpu = cpuMs();
  }
  return sampledCpu;
}

/**
 * The hung-app watchdog of one entry into a VM: it fires once the entry has run past its limit in wall
 * time *and* in the process's CPU time. A loaded machine that deschedules the host is not a hung app
 * (a camera frame under a busy CI once passed 2 s of wall time); a hung app burns CPU.
 */
export class Watchdog {
  private wall = 0;
  private cpu = 0;
  private limit = 0;
  start(limitMs: number): void {
    this.limit = limitMs;
    this.wall = Date.now();
    this.cpu = cpuBaseline(this.wall);
  }
  /** Wall milliseconds since `start`. */
  get ran(): number {
    return Date.now() - this.wall;
  }
  get expired(): boolean {
    return Date.now() - this.wall > this.limit && cpuMs() - this.cpu > this.limit;
  }
}

export type QjsVariant = 'quickjs' | 'quickjs-ng';

export interface QjsFault {
  /** `interrupted`: a call ran past the deadline (a hung app); `exception`: uncaught error. */
  kind: 'interrupted' | 'exception' | 'out-of-memory';
  message: string;
  /** Where it happened: `boot`, `callback`, `jobs`, `eval`. */
  where: string;
}

export interface QjsStartOptions {
  /** The text of firmware/dist/saphir-fw.js. */
  bundle: string;
  /** The HAL implementation exposed as `globalThis.device`. */
  device: Device;
  variant?: QjsVariant;
  /** Bytes of VM heap; default `VM_LIMITS`. */
  memoryLimit?: number;
  /** Bytes of VM stack; default `VM_LIMITS`. */
  stackLimit?: number;
  /** Longest one entry into the VM (a callback, an eval) may run before it is interrupted (`Watchdog`); default `VM_LIMITS`. */
  deadlineMs?: number;
  /** The same for evaluating the bundle, i.e. the app's boot (a cold WASM engine is slow); default 20000. */
  bootDeadlineMs?: number;
  /** Called on every fault, after it is recorded in `faults`. An `interrupted` fault means "reset me". */
  onFault?: (fault: QjsFault) => void;
  /** Compile the bundle without debug info (as a device would store it): less heap. Default true. */
  strip?: boolean;
  /** Source name used in stack traces; default `saphir-fw.js`. */
  filename?: string;
}

export interface HeapStats {
  /** Bytes in use by the VM heap (QuickJS `memory_used_size`). */
  used: number;
  /** Number of live objects. */
  objects: number;
  /** The whole `computeMemoryUsage()` record. */
  raw: Record<string, number>;
}

const modules = new Map<QjsVariant, Promise<QuickJSWASMModule>>();

/** Supplies the WASM module of a variant (the browser build loads its .wasm from its own URL). */
export function useQuickjsModule(variant: QjsVariant, module: Promise<QuickJSWASMModule>): void {
  modules.set(variant, module);
}
/** One WASM module per variant, shared by every VM (each VM has its own runtime and heap). */
export function quickjsModule(variant: QjsVariant): Promise<QuickJSWASMModule> {
  let m = modules.get(variant);
  if (!m) {
    m =
      variant === 'quickjs-ng'
        ? newQuickJSWASMModuleFromVariant(import('@jitl/quickjs-ng-wasmfile-release-sync') as never)
        : newQuickJSWASMModuleFromVariant(RELEASE_SYNC);
    modules.set(variant, m);
  }
  return m;
}

// Runs inside the VM before the bundle. `H` is the host's bridge object (xs-host.ts builds one over XS's command channel).
export const PRELUDE = `(function (H) {
  var fns = [], ids = new Map();
  function enc(v, bins) {
    if (v === undefined) return { $u: 1 };
    if (v === null || typeof v !== 'object' && typeof v !== 'function') return v;
    if (typeof v === 'function') {
      var id = ids.get(v);
      if (id === undefined) { id = fns.length; fns.push(v); ids.set(v, id); }
      return { $f: id };
    }
    if (v instanceof Uint8Array) { bins.push(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength)); return { $b: bins.length - 1, t: 'u8' }; }
    if (v instanceof ArrayBuffer) { bins.push(v.slice(0)); return { $b: bins.length - 1, t: 'ab' }; }
    if (Array.isArray(v)) { var a = []; for (var i = 0; i < v.length; i++) a.push(enc(v[i], bins)); return a; }
    var o = {};
    for (var k in v) if (Object.prototype.hasOwnProperty.call(v, k)) o[k] = enc(v[k], bins);
    return o;
  }
  function dec(w, bins) {
    if (w === null || typeof w !== 'object') return w;
    if (Array.isArray(w)) { var a = []; for (var i = 0; i < w.length; i++) a.push(dec(w[i], bins)); return a; }
    if (w.$u === 1) return undefined;
    if (typeof w.$b === 'number') return w.t === 'ab' ? bins[w.$b] : new Uint8Array(bins[w.$b]);
    var o = {};
    for (var k in w) o[k] = dec(w[k], bins);
    return o;
  }
  function out(v) { var bins = []; var j = JSON.stringify(enc(v, bins)); return [j].concat(bins); }
  function back(r) {
    if (typeof r === 'string') return dec(JSON.parse(r), []);
    if (r instanceof ArrayBuffer) return new Uint8Array(r);
    if (Array.isArray(r)) return dec(JSON.parse(r[0]), r.slice(1));
    return r;
  }
  var epoch = 0;
  function wrap(desc) {
    var id = desc.id, obj = {};
    desc.methods.forEach(function (m) {
      var call = function () {
        // Finite numbers only (a clock read, a flash read): passed as they are, no JSON.
        var n = arguments.length, i, a;
        for (i = 0; i < n; i++) { a = arguments[i]; if (typeof a !== 'number' || !isFinite(a) || (a === 0 && 1 / a < 0)) break; }
        if (i === n) return back(n === 0 ? H.num(id, m) : n === 1 ? H.num(id, m, arguments[0]) : n === 2 ? H.num(id, m, arguments[0], arguments[1]) : H.num.apply(null, [id, m].concat(Array.prototype.slice.call(arguments))));
        return back(H.call.apply(null, [id, m].concat(out(Array.prototype.slice.call(arguments)))));
      };
      if (desc.steady.indexOf(m) < 0) { obj[m] = call; return; }
      // Asked once per entry into the VM (a clock: time does not move while the VM runs).
      var at = -1, value;
      obj[m] = function () {
        if (arguments.length > 0) return call.apply(null, arguments);
        if (at !== epoch) { value = call(); at = epoch; }
        return value;
      };
    });
    desc.props.forEach(function (p) {
      Object.defineProperty(obj, p, { enumerable: true, get: function () { return back(H.get(id, p)); } });
    });
    return obj;
  }
  var device = {};
  H.ctors.forEach(function (name) {
    device[name] = function (options) { return wrap(back(H.make.apply(null, [name].concat(out(options))))); };
  });
  device.identity = wrap(back(H.identity()));
  Object.defineProperty(globalThis, 'device', { value: device, enumerable: true });
  globalThis.__saphirFresh = function () { epoch++; };
  globalThis.__saphirDispatch = function (id, j) {
    epoch++;
    var args = dec(JSON.parse(j), Array.prototype.slice.call(arguments, 2));
    return fns[id].apply(undefined, args);
  };
})(globalThis.__saphirHost); delete globalThis.__saphirHost;`;

interface HostObject {
  target: Record<string, unknown>;
}

/** A host object's methods, and its other properties (names starting `_` are the host's own). */
export function methodsOf(o: object): { methods: string[]; props: string[] } {
  const methods = new Set<string>();
  const props = new Set<string>();
  for (let p: object | null = o; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const k of Object.getOwnPropertyNames(p)) {
      if (k === 'constructor' || k.startsWith('_') || methods.has(k) || props.has(k)) continue;
      const d = Object.getOwnPropertyDescriptor(p, k)!;
      if (typeof d.value === 'function') methods.add(k);
      else props.add(k);
    }
  }
  return { methods: [...methods], props: [...props] };
}

/** The HAL constructors a Device offers (`Flash`, `Serial`…): own function properties and capitalised methods. */
export function constructorsOf(device: Record<string, unknown>): string[] {
  const ctors = Object.keys(device).filter((k) => typeof device[k] === 'function');
  for (let p: object | null = Object.getPrototypeOf(device); p && p !== Object.prototype; p = Object.getPrototypeOf(p))
    for (const k of Object.getOwnPropertyNames(p))
      if (k !== 'constructor' && /^[A-Z]/.test(k) && typeof device[k] === 'function' && !ctors.includes(k))
        ctors.push(k);
  return ctors;
}

export class QjsDevice {
  readonly faults: QjsFault[] = [];
  readonly variant: QjsVariant;
  private disposed = false;
  private depth = 0;
  private readonly watchdog = new Watchdog();
  private objects = new Map<number, HostObject>();
  private nextId = 1;
  private hostFns = new Map<number, (...args: unknown[]) => unknown>();
  private dispatch: QuickJSHandle | undefined;
  /** Forgets the values of steady methods (before an `eval`: the host may have moved time since). */
  private fresh: QuickJSHandle | undefined;

  private constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly vm: QuickJSContext,
    private readonly opts: QjsStartOptions,
  ) {
    this.variant = opts.variant ?? 'quickjs';
  }

  /** Creates the VM, installs `device`, evaluates the bundle (which boots the app) and runs its jobs. */
  static async start(opts: QjsStartOptions): Promise<QjsDevice> {
    const mod = await quickjsModule(opts.variant ?? 'quickjs');
    const runtime = mod.newRuntime();
    runtime.setMemoryLimit(opts.memoryLimit ?? VM_LIMITS.memoryLimit);
    runtime.setMaxStackSize(opts.stackLimit ?? VM_LIMITS.stackLimit);
    const vm = runtime.newContext();
    const q = new QjsDevice(runtime, vm, opts);
    runtime.setInterruptHandler(() => q.depth > 0 && q.watchdog.expired);
    q.install();
    q.enter('boot', () => vm.evalCode(opts.bundle, opts.filename ?? 'saphir-fw.js', { strip: opts.strip ?? true }));
    return q;
  }

  /** False once disposed. A VM that faulted keeps running; the caller decides to reset it. */
  get alive(): boolean {
    return !this.disposed;
  }

  /** Evaluates code in the VM (tests, diagnostics); returns its value dumped to a Node value. */
  eval(code: string): unknown {
    let value: unknown;
    this.enter('eval', () => {
      if (this.fresh) this.vm.callFunction(this.fresh, this.vm.undefined).dispose();
      const r = this.vm.evalCode(code, 'eval.js');
      if (!r.error) value = this.vm.dump(r.value);
      return r;
    });
    return value;
  }

  heapStats(): HeapStats {
    const h = this.runtime.computeMemoryUsage();
    const raw = this.vm.dump(h) as Record<string, number>;
    h.dispose();
    return { used: raw.memory_used_size, objects: raw.obj_count, raw };
  }

  /** Bytes in use by the VM heap. */
  heapUsed(): number {
    return this.heapStats().used;
  }

  /**
   * The heap the device would use: `heapUsed` less the bytecode's line tables (`pc2line`). The device
   * stores its firmware stripped of debug information; these QuickJS builds keep the line tables
   * whatever `strip` says (test/firmware/heap-strip.test.ts), so they are taken out here.
   */
  heapDevice(): number {
    const s = this.heapStats();
    return s.used - (s.raw.js_func_pc2line_size ?? 0);
  }

  dumpMemoryUsage(): string {
    return this.runtime.dumpMemoryUsage();
  }

  /** Frees the VM. Called from inside a HAL call (the VM is running), it takes effect when that entry returns. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.depth > 0) return;
    this.free();
  }

  private free(): void {
    this.dispatch?.dispose();
    this.fresh?.dispose();
    this.objects.clear();
    this.hostFns.clear();
    try {
      this.vm.dispose();
      this.runtime.dispose();
    } catch {
      // A VM interrupted mid-call may still hold handles; its memory goes with the runtime anyway.
    }
  }

  // --- entering the VM ------------------------------------------------------------------------------

  private fault(kind: QjsFault['kind'], message: string, where: string): void {
    const f: QjsFault = { kind, message, where };
    this.faults.push(f);
    this.opts.onFault?.(f);
  }

  private classify(err: unknown, where: string): void {
    const e = (err && typeof err === 'object' ? err : { message: String(err) }) as { name?: string; message?: string };
    const msg = `${e.name ?? 'Error'}: ${e.message ?? ''}`;
    if (/interrupted/i.test(msg)) this.fault('interrupted', msg, where);
    else if (/out of memory/i.test(msg)) this.fault('out-of-memory', msg, where);
    else this.fault('exception', msg, where);
  }

  /** Runs `f` (which enters the VM) under the deadline, then the pending jobs. Returns the value handle. */
  private enter(where: string, f: () => { error?: QuickJSHandle; value?: QuickJSHandle }): void {
    if (this.disposed) return;
    const outer = this.depth === 0;
    const limit =
      where === 'boot' ? (this.opts.bootDeadlineMs ?? 20000) : (this.opts.deadlineMs ?? VM_LIMITS.deadlineMs);
    if (outer) this.watchdog.start(limit);
    this.depth++;
    try {
      const r = f();
      if (r.error) {
        if (!this.disposed) this.classify(this.vm.dump(r.error), where);
        r.error.dispose();
      } else r.value?.dispose();
      if (outer && !this.disposed) {
        const jobs = this.runtime.executePendingJobs();
        if (jobs.error) {
          this.classify(this.vm.dump(jobs.error), 'jobs');
          jobs.error.dispose();
        }
      }
    } catch (err) {
      if (!this.disposed) this.classify(err, where);
    } finally {
      this.depth--;
      if (this.depth === 0 && this.disposed) this.free();
    }
  }

  // --- the bridge -----------------------------------------------------------------------------------

  private install(): void {
    const vm = this.vm;
    const device = this.opts.device as unknown as Record<string, unknown>;
    const ctors = constructorsOf(device);
    const H = vm.newObject();
    const ctorList = this.toVm(ctors, true);
    vm.setProp(H, 'ctors', ctorList);
    ctorList.dispose();
    const fn = (name: string, impl: (...a: QuickJSHandle[]) => QuickJSHandle | undefined) => {
      const h = vm.newFunction(name, impl);
      vm.setProp(H, name, h);
      h.dispose();
    };
    fn('make', (name, json, ...bins) => {
      if (this.disposed) throw new Error('device reset');
      const Ctor = device[vm.getString(name)] as new (o: unknown) => Record<string, unknown>;
      const options = this.decode(vm.getString(json), bins);
      return this.toVm(this.register(new Ctor(options)));
    });
    fn('identity', () => this.toVm(this.register(device.identity as Record<string, unknown>)));
    // A method call: `call` with the arguments as wire JSON and blobs, `num` with finite numbers as they are.
    const invoke = (id: QuickJSHandle, method: QuickJSHandle, args: () => unknown[]) => {
      if (this.disposed) throw new Error('device reset');
      const key = vm.getNumber(id);
      const obj = this.objects.get(key);
      if (!obj) throw new Error('closed');
      const m = vm.getString(method);
      const result = (obj.target[m] as (...a: unknown[]) => unknown).apply(obj.target, args());
      if (m === 'close') this.objects.delete(key);
      return this.toVm(result);
    };
    fn('call', (id, method, json, ...bins) =>
      invoke(id, method, () => this.decode(vm.getString(json), bins) as unknown[]),
    );
    fn('num', (id, method, ...nums) => invoke(id, method, () => nums.map((h) => vm.getNumber(h))));
    fn('get', (id, prop) => {
      if (this.disposed) throw new Error('device reset');
      const obj = this.objects.get(vm.getNumber(id));
      if (!obj) throw new Error('closed');
      return this.toVm(obj.target[vm.getString(prop)]);
    });
    vm.setProp(vm.global, '__saphirHost', H);
    H.dispose();
    const r = vm.evalCode(PRELUDE, 'prelude.js');
    vm.unwrapResult(r).dispose();
    this.dispatch = vm.getProp(vm.global, '__saphirDispatch');
    this.fresh = vm.getProp(vm.global, '__saphirFresh');
  }

  private register(target: Record<string, unknown>): {
    id: number;
    methods: string[];
    props: string[];
    steady: string[];
  } {
    const id = this.nextId++;
    this.objects.set(id, { target });
    const steady = Array.isArray(target._steady) ? target._steady.map(String) : [];
    return { id, ...methodsOf(target), steady };
  }

  /** Wire → Node value. */
  private decode(json: string, binHandles: QuickJSHandle[]): unknown {
    const bins = binHandles.map((h) => {
      const life = this.vm.getArrayBuffer(h);
      const copy = life.value.slice();
      life.dispose();
      return copy;
    });
    const dec = (w: unknown): unknown => {
      if (w === null || typeof w !== 'object') return w;
      if (Array.isArray(w)) return w.map(dec);
      const o = w as Record<string, unknown>;
      if (o.$u === 1) return undefined;
      if (typeof o.$b === 'number') return o.t === 'ab' ? bins[o.$b].buffer : bins[o.$b];
      if (typeof o.$f === 'number') return this.hostFunction(o.$f);
      const r: Record<string, unknown> = {};
      for (const k of Object.keys(o)) r[k] = dec(o[k]);
      return r;
    };
    return dec(JSON.parse(json));
  }

  /** A Node function that calls VM function `id` (under the deadline, then runs pending jobs). */
  private hostFunction(id: number): (...args: unknown[]) => unknown {
    let f = this.hostFns.get(id);
    if (!f) {
      f = (...args: unknown[]) => {
        if (this.disposed || !this.dispatch) return undefined;
        let out: unknown;
        this.enter('callback', () => {
          const wire = this.encode(args);
          const handles = [
            this.vm.newNumber(id),
            this.vm.newString(wire.json),
            ...wire.bins.map((b) => this.vm.newArrayBuffer(b)),
          ];
          const r = this.vm.callFunction(this.dispatch!, this.vm.undefined, ...handles);
          for (const h of handles) h.dispose();
          if (!r.error) {
            out = this.vm.dump(r.value);
          }
          return r;
        });
        return out;
      };
      this.hostFns.set(id, f);
    }
    return f;
  }

  private encode(v: unknown): { json: string; bins: ArrayBuffer[] } {
    const bins: ArrayBuffer[] = [];
    const enc = (x: unknown): unknown => {
      if (x === undefined) return { $u: 1 };
      if (x === null || typeof x !== 'object') return typeof x === 'function' ? { $u: 1 } : x;
      if (x instanceof Uint8Array) {
        bins.push(x.buffer.slice(x.byteOffset, x.byteOffset + x.byteLength) as ArrayBuffer);
        return { $b: bins.length - 1, t: 'u8' };
      }
      if (x instanceof ArrayBuffer) {
        bins.push(x.slice(0));
        return { $b: bins.length - 1, t: 'ab' };
      }
      if (ArrayBuffer.isView(x)) {
        bins.push(x.buffer.slice(x.byteOffset, x.byteOffset + x.byteLength) as ArrayBuffer);
        return { $b: bins.length - 1, t: 'u8' };
      }
      if (Array.isArray(x)) return x.map(enc);
      const r: Record<string, unknown> = {};
      for (const k of Object.keys(x)) r[k] = enc((x as Record<string, unknown>)[k]);
      return r;
    };
    return { json: JSON.stringify(enc(v)), bins };
  }

  /** Node value → VM wire value (a JSON string, or [json, ...ArrayBuffers]); `plain` makes a real VM value. */
  private toVm(v: unknown, plain = false): QuickJSHandle {
    const vm = this.vm;
    if (plain) {
      const r = vm.evalCode(`(${JSON.stringify(v)})`);
      return vm.unwrapResult(r);
    }
    // Fast paths for what most HAL calls return (a clock reading, a flash read): no JSON on either side.
    if (v === undefined) return vm.undefined;
    if (typeof v === 'number') return vm.newNumber(v);
    if (typeof v === 'boolean') return v ? vm.true : vm.false;
    if (v === null) return vm.null;
    if (v instanceof Uint8Array && v.constructor === Uint8Array)
      return vm.newArrayBuffer(
        v.byteOffset === 0 && v.byteLength === v.buffer.byteLength
          ? v.buffer
          : v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength),
      );
    const { json, bins } = this.encode(v);
    if (bins.length === 0) return vm.newString(json);
    const arr = vm.newArray();
    const s = vm.newString(json);
    vm.setProp(arr, 0, s);
    s.dispose();
    bins.forEach((b, i) => {
      const h = vm.newArrayBuffer(b);
      vm.setProp(arr, i + 1, h);
      h.dispose();
    });
    return arr;
  }
}
