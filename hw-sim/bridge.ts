// How the Node-side HAL `Device` is described to a firmware engine: the one bridge description the three
// hosts share (qjs-host.ts: QuickJS and QuickJS-ng, xs-host.ts: Moddable XS, v8-host.ts: V8), and what
// each host's VM keeps around it (`FirmwareVm`: the faults, disposed).
//
// - Constructors: the Device's own function properties and its capitalised methods (`constructorsOf`).
// - A host object: its methods, its other properties (getters read on every access: `methodsOf`), and
//   the methods it names in `_steady`, asked once per entry into the VM (a clock: virtual time does not
//   move while the VM runs). `describe` gives all three; `HostObjects` keeps the objects by id for the
//   hosts whose VM holds ids (QuickJS, XS), with `close` forgetting one and a reset device refusing all.
// - Values cross as copies, in the wire form: JSON text plus binary blobs, `{ $b: i, t: 'u8' | 'ab' }` for
//   the i-th blob (a Uint8Array or an ArrayBuffer), `{ $u: 1 }` for undefined, `{ $f: id }` for a function
//   of the VM (which keeps it: pass long-lived callbacks). Inside the VM, `PRELUDE` speaks it; on the host,
//   `encodeWire`/`decodeWire`, and `wireValue` for what a HAL call returns (its fast paths first).
// Portable (no Node built-ins): the web page's simulator uses it too.

export interface QjsFault {
  /** `interrupted`: a call ran past the deadline (a hung app); `exception`: uncaught error. */
  kind: 'interrupted' | 'exception' | 'out-of-memory';
  message: string;
  /** Where it happened: `boot`, `callback`, `jobs`, `eval`. */
  where: string;
}

/** What every host's VM keeps around the bridge: the firmware's faults, and whether it is disposed. */
export abstract class FirmwareVm {
  readonly faults: QjsFault[] = [];
  protected disposed = false;
  /** Entries into the VM under way (a HAL call can enter it again). */
  protected depth = 0;

  constructor(private readonly onFault?: (fault: QjsFault) => void) {}

  /** False once disposed. A VM that faulted keeps running; the caller decides to reset it. */
  get alive(): boolean {
    return !this.disposed;
  }

  protected fault(kind: QjsFault['kind'], message: string, where: string): void {
    const f: QjsFault = { kind, message, where };
    this.faults.push(f);
    this.onFault?.(f);
  }
}

/** A function of the host, or the VM's function seen from the host. */
export type HostFn = (...args: unknown[]) => unknown;

/** A host object as the VM's prelude builds it (`wrap`). */
export interface Descriptor {
  id: number;
  methods: string[];
  props: string[];
  steady: string[];
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

/** The methods a host object asks to be read once per entry into the VM (its `_steady` list). */
export function steadyOf(target: Record<string, unknown>): string[] {
  return Array.isArray(target._steady) ? target._steady.map(String) : [];
}

/** A host object's description: its methods, its other properties, its steady methods. */
export function describe(target: Record<string, unknown>): Omit<Descriptor, 'id'> {
  return { ...methodsOf(target), steady: steadyOf(target) };
}

/**
 * The host objects a VM holds by id (QuickJS, XS): the Device's constructors and identity, method calls
 * and property reads. Every call throws `device reset` once `reset()` says so, and `closed` on an object
 * the firmware closed.
 */
export class HostObjects {
  private objects = new Map<number, Record<string, unknown>>();
  private nextId = 1;

  constructor(
    private readonly device: Record<string, unknown>,
    private readonly reset: () => boolean,
  ) {}

  /** The constructors' names, for the prelude's `device`. */
  constructors(): string[] {
    return constructorsOf(this.device);
  }

  /** `new device[name](options)`, described. */
  make(name: string, options: unknown): Descriptor {
    this.live();
    const Ctor = this.device[name] as new (o: unknown) => Record<string, unknown>;
    return this.register(new Ctor(options));
  }

  /** `device.identity`, described. */
  identity(): Descriptor {
    return this.register(this.device.identity as Record<string, unknown>);
  }

  /** A method call on object `id`; `close` forgets the object. */
  call(id: number, method: string, args: unknown[]): unknown {
    const obj = this.get(id);
    const result = (obj[method] as HostFn).apply(obj, args);
    if (method === 'close') this.objects.delete(id);
    return result;
  }

  /** A property of object `id`, read now. */
  prop(id: number, name: string): unknown {
    return this.get(id)[name];
  }

  clear(): void {
    this.objects.clear();
  }

  private live(): void {
    if (this.reset()) throw new Error('device reset');
  }

  private get(id: number): Record<string, unknown> {
    this.live();
    const obj = this.objects.get(id);
    if (!obj) throw new Error('closed');
    return obj;
  }

  private register(target: Record<string, unknown>): Descriptor {
    const id = this.nextId++;
    this.objects.set(id, target);
    return { id, ...describe(target) };
  }
}

/** A host value in the wire form: JSON text and its blobs (copies). */
export function encodeWire(v: unknown): { json: string; bins: ArrayBuffer[] } {
  const bins: ArrayBuffer[] = [];
  const enc = (x: unknown): unknown => {
    if (x === undefined) return { $u: 1 };
    if (x === null || typeof x !== 'object') return typeof x === 'function' ? { $u: 1 } : x;
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

/**
 * The wire form as a host value. `bins` are copies the value may own (each a Uint8Array over a whole
 * buffer of its own); `fn` makes the host function that calls the VM's function `id`.
 */
export function decodeWire(json: string, bins: Uint8Array[], fn: (id: number) => HostFn): unknown {
  const dec = (w: unknown): unknown => {
    if (w === null || typeof w !== 'object') return w;
    if (Array.isArray(w)) return w.map(dec);
    const o = w as Record<string, unknown>;
    if (o.$u === 1) return undefined;
    if (typeof o.$b === 'number') return o.t === 'ab' ? bins[o.$b].buffer : bins[o.$b];
    if (typeof o.$f === 'number') return fn(o.$f);
    const r: Record<string, unknown> = {};
    for (const k of Object.keys(o)) r[k] = dec(o[k]);
    return r;
  };
  return dec(JSON.parse(json));
}

/**
 * What a HAL call returns, as the prelude's `back` takes it: nothing, a plain JSON value (the fast path
 * of a clock reading or a flag), a whole Uint8Array (a flash read: an ArrayBuffer in the VM), else wire
 * JSON text, with its blobs when it has some.
 */
export type WireValue =
  | { k: 'u' }
  | { k: 'j'; v: number | boolean | null }
  | { k: 'a'; bytes: Uint8Array }
  | { k: 'w'; json: string }
  | { k: 'l'; json: string; bins: ArrayBuffer[] };

export function wireValue(v: unknown): WireValue {
  if (v === undefined) return { k: 'u' };
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return { k: 'j', v };
  if (v instanceof Uint8Array && v.constructor === Uint8Array) return { k: 'a', bytes: v };
  const { json, bins } = encodeWire(v);
  return bins.length === 0 ? { k: 'w', json } : { k: 'l', json, bins };
}

/** Runs inside the VM before the bundle (QuickJS, XS). `H` is the host's side: `make`, `identity`, `call`, `num`, `get`, `ctors`. */
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
