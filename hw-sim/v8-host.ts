// Runs the firmware bundle in the simulator's own engine (V8 under Node) instead of QuickJS: the same
// bundle text, the same `globalThis.device`, tens of times faster. The fault explorer uses it for
// throughput; every violation it finds is replayed on QuickJS before it is reported.
//
// What it keeps of the QuickJS bridge (bridge.ts: the same description of the device), so the firmware
// sees the same device:
// - values cross as copies (bytes, arrays, records), never as shared objects: a flash read the
//   firmware holds does not change when the chip does;
// - functions the firmware passes become host functions that enter the firmware: each entry is one
//   epoch for the steady methods (the clocks), and an exception in it is a fault, not a host crash;
// - host objects show their methods, and their other properties as getters read on every access;
//   `close` forgets the object, and a disposed device throws `device reset` on every HAL call.
// What it cannot keep: no heap figure (heapUsed() is undefined) and no interrupt of a hung call (a
// call that ran past the deadline is reported `interrupted` once it returns).
// What it adds: `globalThis.__hostEd25519`, the host's verifier under the device's rules (answers
// remembered), which only the fault explorer's build of the bundle calls (docs/explorer.md, "Engines").
import type { Device } from '../src/hal.ts';
import { VM_LIMITS, Watchdog, type HeapStats } from './qjs-host.ts';
import { FirmwareVm, constructorsOf, describe, type QjsFault } from './bridge.ts';
import { simHost } from './host.ts';
import type { Verifier } from '../src/crypto/ed25519.ts';
import { toHex } from '../src/hex.ts';

export interface V8StartOptions {
  bundle: string;
  device: Device;
  deadlineMs?: number;
  onFault?: (fault: QjsFault) => void;
}

type Fn = (...a: unknown[]) => unknown;

/** One compiled factory per bundle text: each boot runs it again, so every boot has fresh state. */
const factories = new Map<string, (g: object) => void>();
function factoryOf(bundle: string): (g: object) => void {
  let f = factories.get(bundle);
  if (!f) {
    if (factories.size > 8) factories.clear();
    // `globalThis` and `device` are parameters: the bundle's `globalThis.device`/`globalThis.saphir` are this boot's.
    const g = new Function('globalThis', 'device', bundle) as (g: object, d: unknown) => void;
    f = (o: object) => g(o, (o as { device: unknown }).device);
    factories.set(bundle, f);
  }
  return f;
}

/**
 * `verify` with its answers remembered (a pure function: the same bytes, the same answer). Across boots
 * the firmware asks about the same signatures again (its self-test at every boot, a ticket scanned
 * again): about three calls in four of an explorer schedule.
 */
const remembered = new WeakMap<Verifier, Verifier>();
/** Whether `__hostEd25519` remembers its answers (default true; bench/explore.bench.ts's figure without it turns it off). */
export const hostVerify = { memo: true };
export function rememberedVerify(verify: Verifier): Verifier {
  let r = remembered.get(verify);
  if (!r) {
    const answers = new Map<string, boolean>();
    r = (signature, message, publicKey) => {
      const key = `${toHex(signature)}|${toHex(publicKey)}|${toHex(message)}`;
      let answer = answers.get(key);
      if (answer === undefined) {
        answer = verify(signature, message, publicKey);
        if (answers.size >= 4096) answers.clear();
        answers.set(key, answer);
      }
      return answer;
    };
    remembered.set(verify, r);
  }
  return r;
}

/**
 * A copy of `v` as the QuickJS bridge makes it: bytes and records copied, functions mapped by `fn`.
 * Numbers keep their value at the top (`top`), and take JSON's below it (NaN and ±Infinity become
 * null, -0 becomes 0), as the bridge's JSON path does.
 */
function copy(v: unknown, fn: (f: Fn) => unknown, top = true): unknown {
  if (typeof v === 'number')
    return top || (Number.isFinite(v) && !Object.is(v, -0)) ? v : Number.isFinite(v) ? 0 : null;
  if (v === null || typeof v !== 'object') return typeof v === 'function' ? fn(v as Fn) : v;
  if (v instanceof ArrayBuffer) return v.slice(0);
  // The element copy keeps a small array on V8's heap: ~40× cheaper than slicing its buffer (a scanner's reports).
  if (v instanceof Uint8Array) return new Uint8Array(v);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
  if (Array.isArray(v)) return v.map((x) => copy(x, fn, false));
  const r: Record<string, unknown> = {};
  for (const k of Object.keys(v)) r[k] = copy((v as Record<string, unknown>)[k], fn, false);
  return r;
}

/** Arguments the firmware passes: as they are when all are finite numbers (the bridge's fast path), else as JSON makes them. */
function copyArgs(args: unknown[], fn: (f: Fn) => unknown): unknown[] {
  const plain = args.every((a) => typeof a === 'number' && Number.isFinite(a) && !Object.is(a, -0));
  return plain ? args.slice() : args.map((a) => copy(a, fn, false));
}

export class V8Device extends FirmwareVm {
  readonly variant = 'v8' as const;
  private readonly watchdog = new Watchdog();
  private epoch = 0;
  /** The firmware's functions as host functions, one per function (as the VM keeps them by id). */
  private hostFns = new Map<Fn, Fn>();
  private readonly global: Record<string, unknown> = {};

  private constructor(private readonly opts: V8StartOptions) {
    super(opts.onFault);
  }

  static async start(opts: V8StartOptions): Promise<V8Device> {
    const d = new V8Device(opts);
    d.global.device = d.makeDevice();
    // For a bundle built to ask for it (tools/build.ts hostEd25519Bundle; the shipped one never does):
    // the device's rules at the host's speed (Node: its native library, noble deciding a no it cannot),
    // each answer remembered.
    d.global.__hostEd25519 = hostVerify.memo ? rememberedVerify(simHost().verify) : simHost().verify;
    const boot = factoryOf(opts.bundle);
    d.enter('boot', () => boot(d.global));
    return d;
  }

  /** Evaluates code with the firmware's `globalThis` (tests, diagnostics). */
  eval(code: string): unknown {
    let value: unknown;
    this.epoch++;
    this.enter('eval', () => {
      value = copy(
        new Function('globalThis', 'device', 'code', 'return eval(code)')(this.global, this.global.device, code),
        () => undefined,
      );
    });
    return value;
  }

  heapStats(): HeapStats | undefined {
    return undefined;
  }

  /** Unknown: V8 has no per-firmware heap figure. */
  heapUsed(): number | undefined {
    return undefined;
  }

  dispose(): void {
    this.disposed = true;
    this.hostFns.clear();
  }

  private enter(where: string, f: () => void): void {
    if (this.disposed) return;
    const outer = this.depth === 0;
    const limit = where === 'boot' ? 20000 : (this.opts.deadlineMs ?? VM_LIMITS.deadlineMs);
    if (outer) this.watchdog.start(limit);
    this.depth++;
    try {
      f();
    } catch (err) {
      if (!this.disposed) {
        const e = (err && typeof err === 'object' ? err : { message: String(err) }) as {
          name?: string;
          message?: string;
        };
        const msg = `${e.name ?? 'Error'}: ${e.message ?? ''}`;
        this.fault(/Maximum call stack/i.test(msg) ? 'out-of-memory' : 'exception', msg, where);
      }
    } finally {
      this.depth--;
    }
    if (outer && !this.disposed && this.watchdog.expired)
      this.fault('interrupted', `InternalError: interrupted (ran ${this.watchdog.ran} ms)`, where);
  }

  /** A firmware function as the host calls it: one entry into the firmware, arguments copied in. */
  private hostFunction(f: Fn): Fn {
    let h = this.hostFns.get(f);
    if (!h) {
      h = (...args: unknown[]) => {
        if (this.disposed) return undefined;
        let out: unknown;
        this.epoch++;
        this.enter('callback', () => {
          out = copy(f(...args.map((a) => copy(a, () => undefined, false))), () => undefined);
        });
        return out;
      };
      this.hostFns.set(f, h);
    }
    return h;
  }

  private toFn = (f: Fn): unknown => this.hostFunction(f);
  private toHost = (v: unknown): unknown => copy(v, this.toFn, false);

  private wrap(target: Record<string, unknown>): Record<string, unknown> {
    const { methods, props, steady } = describe(target);
    let closed = false;
    const obj: Record<string, unknown> = {};
    const live = () => {
      if (this.disposed) throw new Error('device reset');
      if (closed) throw new Error('closed');
    };
    for (const m of methods) {
      const call = (...args: unknown[]) => {
        live();
        const r = (target[m] as Fn).apply(target, copyArgs(args, this.toFn));
        if (m === 'close') closed = true;
        return copy(r, () => undefined);
      };
      if (!steady.includes(m)) {
        obj[m] = call;
        continue;
      }
      let at = -1;
      let value: unknown;
      obj[m] = (...args: unknown[]) => {
        if (args.length > 0) return call(...args);
        if (at !== this.epoch) {
          value = call();
          at = this.epoch;
        }
        return value;
      };
    }
    for (const p of props)
      Object.defineProperty(obj, p, {
        enumerable: true,
        get: () => {
          live();
          return copy(target[p], () => undefined);
        },
      });
    return obj;
  }

  private makeDevice(): Record<string, unknown> {
    const device = this.opts.device as unknown as Record<string, unknown>;
    const ctors = constructorsOf(device);
    const out: Record<string, unknown> = {};
    for (const name of ctors) {
      const Ctor = device[name] as new (o: unknown) => Record<string, unknown>;
      const make = (options: unknown) => {
        if (this.disposed) throw new Error('device reset');
        return this.wrap(new Ctor(this.toHost(options)));
      };
      // A function, not an arrow: the firmware calls it with `new` (returning an object, it gets that object).
      out[name] = function (options: unknown) {
        return make(options);
      };
    }
    out.identity = this.wrap(device.identity as Record<string, unknown>);
    return out;
  }
}
