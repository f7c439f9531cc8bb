// Runs the firmware bundle in QuickJS (quickjs-emscripten, or the QuickJS-ng variant) and bridges a
// Node-side HAL `Device` into the VM as `globalThis.device`.
//
// The host owns no time: every timer and clock the firmware sees comes from the Node-side Device (the
// simulator's runs on virtual time). The only real-time use is the per-call interrupt deadline, which
// stands for the hardware watchdog catching a hung app: an interrupted call is reported as a fault.
//
// The bridge (hw-sim/bridge.ts, shared with the XS and V8 hosts): its prelude builds `device` in the VM
// and calls the host functions `H.make`/`identity`/`call`/`num`/`get` made here, with JSON text plus
// binary blobs (ArrayBuffers) as extra arguments, finite numbers as they are (`num`).
import {
  DefaultIntrinsics,
  newQuickJSWASMModuleFromVariant,
  RELEASE_SYNC,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';
import type { Device } from '../src/hal.ts';
import { FirmwareVm, HostObjects, PRELUDE, decodeWire, encodeWire, wireValue, type QjsFault } from './bridge.ts';
import { simHost } from './host.ts';
import { directHostCalls } from './qjs-calls.ts';

/**
 * The built-ins the device's QuickJS is built with (JS_NewContextRaw and the JS_AddIntrinsic* the firmware
 * needs): not Date (src/claim.ts computes the calendar), Promise, Proxy or String.prototype.normalize, which it
 * never uses (4.8 KiB less heap in every case, net of the calendar code, 5 Dec; tools/build.ts ABSENT_INTRINSICS fails a build whose code names one). docs/firmware.md.
 */
export const DEVICE_INTRINSICS = {
  ...DefaultIntrinsics,
  Date: false,
  Promise: false,
  Proxy: false,
  StringNormalize: false,
};

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

export type { QjsFault } from './bridge.ts';

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

export class QjsDevice extends FirmwareVm {
  readonly variant: QjsVariant;
  private readonly watchdog = new Watchdog();
  private readonly hosts: HostObjects;
  private hostFns = new Map<number, (...args: unknown[]) => unknown>();
  private dispatch: QuickJSHandle | undefined;
  /** Forgets the values of steady methods (before an `eval`: the host may have moved time since). */
  private fresh: QuickJSHandle | undefined;
  /** The scripts the firmware compiled: the bundle, then each text it evaluated (the camera path…). */
  private readonly scripts: string[] = [];
  /** The VM's calls into the host take the direct path (hw-sim/qjs-calls.ts), not quickjs-emscripten's own. */
  directCalls = false;

  private constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly vm: QuickJSContext,
    private readonly opts: QjsStartOptions,
  ) {
    super(opts.onFault);
    this.variant = opts.variant ?? 'quickjs';
    this.hosts = new HostObjects(opts.device as unknown as Record<string, unknown>, () => this.disposed);
  }

  /** Creates the VM, installs `device`, evaluates the bundle (which boots the app) and runs its jobs. */
  static async start(opts: QjsStartOptions): Promise<QjsDevice> {
    const mod = await quickjsModule(opts.variant ?? 'quickjs');
    const runtime = mod.newRuntime();
    runtime.setMemoryLimit(opts.memoryLimit ?? VM_LIMITS.memoryLimit);
    runtime.setMaxStackSize(opts.stackLimit ?? VM_LIMITS.stackLimit);
    // (QuickJS-ng's context with chosen built-ins has no BigInt in this build: it keeps its defaults.)
    const vm = runtime.newContext(opts.variant === 'quickjs-ng' ? undefined : { intrinsics: DEVICE_INTRINSICS });
    const q = new QjsDevice(runtime, vm, opts);
    q.directCalls = directHostCalls(vm);
    runtime.setInterruptHandler(() => q.depth > 0 && q.watchdog.expired);
    q.install();
    q.scripts.push(opts.bundle);
    q.enter('boot', () => vm.evalCode(opts.bundle, opts.filename ?? 'saphir-fw.js', { strip: opts.strip ?? true }));
    return q;
  }

  /** The texts the firmware evaluated since boot (`(0, eval)(text)`: the camera path on its first frame). */
  get evaluated(): readonly string[] {
    return this.scripts.slice(1);
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
   * The heap the device would use: `heapUsed` less what a firmware stored stripped of debug information
   * (`qjsc -s`, as the device stores it) does not hold, and these QuickJS builds keep whatever `strip`
   * says (test/firmware/heap-strip.test.ts): the bytecode's line tables (`pc2line`, measured by the
   * engine) and every function's source text (counted from the syntax of the bundle and of each text the
   * firmware evaluated, hw-sim/function-source.ts; the engine reports it only inside `js_func_size`, and
   * test/firmware/function-source.test.ts checks the count against it).
   */
  heapDevice(): number {
    const s = this.heapStats();
    const sources = this.scripts.reduce((n, t) => n + simHost().functionSources(t), 0);
    return s.used - (s.raw.js_func_pc2line_size ?? 0) - sources;
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
    this.hosts.clear();
    this.hostFns.clear();
    try {
      this.vm.dispose();
      this.runtime.dispose();
    } catch {
      // A VM interrupted mid-call may still hold handles; its memory goes with the runtime anyway.
    }
  }

  // --- entering the VM ------------------------------------------------------------------------------

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
    const hosts = this.hosts;
    const H = vm.newObject();
    const ctorList = this.toVm(hosts.constructors(), true);
    vm.setProp(H, 'ctors', ctorList);
    ctorList.dispose();
    const fn = (name: string, impl: (...a: QuickJSHandle[]) => QuickJSHandle | undefined) => {
      const h = vm.newFunction(name, impl);
      vm.setProp(H, name, h);
      h.dispose();
    };
    fn('make', (name, json, ...bins) =>
      this.toVm(hosts.make(vm.getString(name), this.decode(vm.getString(json), bins))),
    );
    fn('identity', () => this.toVm(hosts.identity()));
    // A method call: `call` with the arguments as wire JSON and blobs, `num` with finite numbers as they are.
    fn('call', (id, method, json, ...bins) =>
      this.toVm(hosts.call(vm.getNumber(id), vm.getString(method), this.decode(vm.getString(json), bins) as unknown[])),
    );
    fn('num', (id, method, ...nums) =>
      this.toVm(
        hosts.call(
          vm.getNumber(id),
          vm.getString(method),
          nums.map((h) => vm.getNumber(h)),
        ),
      ),
    );
    fn('get', (id, prop) => this.toVm(hosts.prop(vm.getNumber(id), vm.getString(prop))));
    vm.setProp(vm.global, '__saphirHost', H);
    H.dispose();
    const r = vm.evalCode(PRELUDE, 'prelude.js');
    vm.unwrapResult(r).dispose();
    // Each text the firmware evaluates (`(0, eval)(text)`: the camera path) is noted, for heapDevice().
    const note = vm.newFunction('evaluated', (t) => {
      if (vm.typeof(t) === 'string') this.scripts.push(vm.getString(t));
    });
    const wrap = vm.unwrapResult(
      vm.evalCode('(function (e, n) { globalThis.eval = function eval(t) { n(t); return e(t); }; })', 'eval.js'),
    );
    const real = vm.getProp(vm.global, 'eval');
    vm.unwrapResult(vm.callFunction(wrap, vm.undefined, real, note)).dispose();
    for (const h of [real, wrap, note]) h.dispose();
    this.dispatch = vm.getProp(vm.global, '__saphirDispatch');
    this.fresh = vm.getProp(vm.global, '__saphirFresh');
  }

  /** Wire → Node value (the blobs copied out of the VM). */
  private decode(json: string, binHandles: QuickJSHandle[]): unknown {
    const bins = binHandles.map((h) => {
      const life = this.vm.getArrayBuffer(h);
      const copy = life.value.slice();
      life.dispose();
      return copy;
    });
    return decodeWire(json, bins, (id) => this.hostFunction(id));
  }

  /** A Node function that calls VM function `id` (under the deadline, then runs pending jobs). */
  private hostFunction(id: number): (...args: unknown[]) => unknown {
    let f = this.hostFns.get(id);
    if (!f) {
      f = (...args: unknown[]) => {
        if (this.disposed || !this.dispatch) return undefined;
        let out: unknown;
        this.enter('callback', () => {
          const wire = encodeWire(args);
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

  /** Node value → VM wire value (a JSON string, or [json, ...ArrayBuffers]); `plain` makes a real VM value. */
  private toVm(v: unknown, plain = false): QuickJSHandle {
    const vm = this.vm;
    if (plain) {
      const r = vm.evalCode(`(${JSON.stringify(v)})`);
      return vm.unwrapResult(r);
    }
    // Fast paths for what most HAL calls return (a clock reading, a flash read): no JSON on either side.
    const w = wireValue(v);
    if (w.k === 'u') return vm.undefined;
    if (w.k === 'j')
      return typeof w.v === 'number' ? vm.newNumber(w.v) : w.v === null ? vm.null : w.v ? vm.true : vm.false;
    if (w.k === 'a') {
      const b = w.bytes;
      return vm.newArrayBuffer(
        b.byteOffset === 0 && b.byteLength === b.buffer.byteLength
          ? b.buffer
          : b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength),
      );
    }
    if (w.k === 'w') return vm.newString(w.json);
    const arr = vm.newArray();
    const s = vm.newString(w.json);
    vm.setProp(arr, 0, s);
    s.dispose();
    w.bins.forEach((b, i) => {
      const h = vm.newArrayBuffer(b);
      vm.setProp(arr, i + 1, h);
      h.dispose();
    });
    return arr;
  }
}
