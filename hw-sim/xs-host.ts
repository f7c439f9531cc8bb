// Runs the firmware bundle in Moddable XS: the `xsnap-worker` process that @agoric/xsnap builds from
// source at install (gcc/make), and bridges the Node-side HAL `Device` into it as `globalThis.device`.
//
// The bridge is the QuickJS one (bridge.ts: PRELUDE and the host objects, the same wire: JSON text plus binary blobs,
// functions by id, steady methods once per entry), carried over xsnap's command channel: inside XS
// `issueCommand(ArrayBuffer)` blocks until the host answers, and the host's `?` command runs
// `handleCommand` inside XS. @agoric/xsnap's own Node API is asynchronous; the simulator enters the
// firmware synchronously (a timer firing on virtual time), so this host speaks xsnap's netstring protocol
// itself over two named pipes read and written with blocking calls. A `sh` guard writes one last
// netstring when the worker exits, so a blocked read always ends.
//
// Limits: XS's crank meter stands for the watchdog's deadline (`computeLimit`, an exceeded crank ends the
// worker: an `interrupted` fault). Heap figures are XS's own meters (`allocate`: bytes XS allocated for its
// heap and chunks; `compute`: the crank's meter), not QuickJS's `memory_used_size`.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, writeSync, constants } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Device } from '../src/hal.ts';
import {
  FirmwareVm,
  HostObjects,
  PRELUDE,
  decodeWire,
  encodeWire,
  wireValue,
  type HostFn,
  type QjsFault,
} from './bridge.ts';

export interface XsStartOptions {
  bundle: string;
  device: Device;
  onFault?: (fault: QjsFault) => void;
  /** XS meter units one entry may use before the worker is stopped (a hung app); default `XS_COMPUTE_LIMIT`. */
  computeLimit?: number;
}

/** Compute units of one entry into XS: ~100× a scan with a cold verifier (measured ~3–4 M), so only a hang reaches it. */
export const XS_COMPUTE_LIMIT = 1_000_000_000;

/** XS's own meters after the last entry (`allocate`: bytes of heap XS holds; `compute`: meter units of that entry). */
export interface XsMeters {
  allocate: number;
  compute: number;
  currentHeapCount: number;
}

/** Why XS cannot run here: @agoric/xsnap is an optional dependency that builds XS with a C compiler at install. */
export type XsMissingReason = 'not-installed' | 'not-built' | 'broken';

/** What installs XS: a C compiler, then npm again (npm drops an optional package whose build failed). */
export const XS_INSTALL = 'apt-get install build-essential && npm ci';

/** The environment variable that makes this machine look as if it had no XS (tests of the skip path). */
export const XS_ABSENT_ENV = 'SAPHIR_XS_ABSENT';

let found: { path: string } | { missing: string; reason: XsMissingReason } | undefined;

/**
 * The xsnap worker binary once it has answered `-v`, or why there is none: the package not installed
 * (npm skipped it: its build failed without a C compiler), not built, or not starting. Asked once per process.
 */
export function xsnapWorker(): { path: string } | { missing: string; reason: XsMissingReason } {
  return (found ??= probe());
}

function probe(): { path: string } | { missing: string; reason: XsMissingReason } {
  if (process.env[XS_ABSENT_ENV])
    return { missing: `@agoric/xsnap not installed (${XS_ABSENT_ENV} is set)`, reason: 'not-installed' };
  let dir: string;
  try {
    dir = dirname(createRequire(import.meta.url).resolve('@agoric/xsnap/package.json'));
  } catch {
    return { missing: '@agoric/xsnap not installed', reason: 'not-installed' };
  }
  const path = join(dir, 'xsnap-native', 'xsnap', 'build', 'bin', 'lin', 'release', 'xsnap-worker');
  if (!existsSync(path)) return { missing: `@agoric/xsnap not built (no ${path})`, reason: 'not-built' };
  try {
    const v = execFileSync(path, ['-v'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
    if (!v.startsWith('xsnap')) throw new Error(`-v printed ${JSON.stringify(v.slice(0, 80))}`);
  } catch (e) {
    return { missing: `${path} does not start (${(e as Error).message.split('\n')[0]})`, reason: 'broken' };
  }
  return { path };
}

// Inside XS: the bridge object `H` of the prelude over issueCommand, and handleCommand for the host's entries.
// Frame: u32 count, then per part u32 length and bytes; part 0 is UTF-8 JSON text.
const XS_PRELUDE = `(function () {
  var te = new TextEncoder(), td = new TextDecoder();
  function pack(parts) {
    var bytes = parts.map(function (p) { return typeof p === 'string' ? te.encode(p) : new Uint8Array(p); });
    var n = 4; bytes.forEach(function (b) { n += 4 + b.length; });
    var out = new Uint8Array(n), dv = new DataView(out.buffer), at = 4;
    dv.setUint32(0, bytes.length);
    bytes.forEach(function (b) { dv.setUint32(at, b.length); out.set(b, at + 4); at += 4 + b.length; });
    return out.buffer;
  }
  function unpack(buf) {
    var u = new Uint8Array(buf), dv = new DataView(buf), n = dv.getUint32(0), at = 4, parts = [];
    for (var i = 0; i < n; i++) { var len = dv.getUint32(at); parts.push(buf.slice(at + 4, at + 4 + len)); at += 4 + len; }
    return parts;
  }
  // A host answer: [kind, ...]: u undefined, j a JSON value as it is, w a wire string, a an ArrayBuffer, l [json, ...bins], e an error.
  function ask(parts) {
    var r = unpack(issueCommand(pack(parts)));
    var head = JSON.parse(td.decode(r[0]));
    if (head.k === 'u') return undefined;
    if (head.k === 'j') return head.v;
    if (head.k === 'w') return head.v;
    if (head.k === 'a') return r[1];
    if (head.k === 'l') return [head.v].concat(r.slice(1));
    throw new Error(head.v);
  }
  function args(a) { return Array.prototype.slice.call(a).map(function (x) { return typeof x === 'number' ? JSON.stringify(x) : x; }); }
  var H = {
    make: function () { return ask([JSON.stringify({ op: 'make' })].concat(args(arguments))); },
    identity: function () { return ask([JSON.stringify({ op: 'identity' })]); },
    call: function () { return ask([JSON.stringify({ op: 'call' })].concat(args(arguments))); },
    num: function () { return ask([JSON.stringify({ op: 'num', n: Array.prototype.slice.call(arguments) })]); },
    get: function () { return ask([JSON.stringify({ op: 'get' })].concat(args(arguments))); },
  };
  H.ctors = ask([JSON.stringify({ op: 'ctors' })]);
  globalThis.__saphirHost = H;
  globalThis.handleCommand = function (buf) {
    var parts = unpack(buf), head = JSON.parse(td.decode(parts[0]));
    var v;
    if (head.op === 'dispatch') v = globalThis.__saphirDispatch.apply(undefined, [head.id, td.decode(parts[1])].concat(parts.slice(2)));
    else if (head.op === 'eval') { globalThis.__saphirFresh(); v = (0, eval)(head.code); }
    return pack([JSON.stringify(v === undefined ? { u: 1 } : { v: v })]);
  };
})();`;

function pack(parts: (string | Uint8Array)[]): Uint8Array {
  const bytes = parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p));
  const out = Buffer.alloc(4 + bytes.reduce((n, b) => n + 4 + b.length, 0));
  out.writeUInt32BE(bytes.length, 0);
  let at = 4;
  for (const b of bytes) {
    out.writeUInt32BE(b.length, at);
    out.set(b, at + 4);
    at += 4 + b.length;
  }
  return out;
}

function unpack(buf: Uint8Array): Uint8Array[] {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const parts: Uint8Array[] = [];
  let at = 4;
  for (let i = 0, n = b.readUInt32BE(0); i < n; i++) {
    const len = b.readUInt32BE(at);
    parts.push(new Uint8Array(b.subarray(at + 4, at + 4 + len)));
    at += 4 + len;
  }
  return parts;
}

const text = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString('utf8');

class WorkerGone extends Error {}

export class XsDevice extends FirmwareVm {
  readonly variant = 'xs' as const;
  /** XS's meters after the last entry. */
  meters: XsMeters = { allocate: 0, compute: 0, currentHeapCount: 0 };
  private gone = false;
  private child: ChildProcess | undefined;
  private toXs = -1;
  private fromXs = -1;
  private dir = '';
  private pending = Buffer.alloc(0);
  /** What each read from the worker lands in (one per device: a message is read every HAL call). */
  private readonly chunk = Buffer.allocUnsafe(65536);
  private readonly hosts: HostObjects;
  private hostFns = new Map<number, HostFn>();

  private constructor(private readonly opts: XsStartOptions) {
    super(opts.onFault);
    this.hosts = new HostObjects(opts.device as unknown as Record<string, unknown>, () => this.disposed);
  }

  static async start(opts: XsStartOptions): Promise<XsDevice> {
    const worker = xsnapWorker();
    if ('missing' in worker) throw new Error(`XS engine unavailable: ${worker.missing}; ${XS_INSTALL}`);
    const x = new XsDevice(opts);
    x.spawn(worker.path, opts.computeLimit ?? XS_COMPUTE_LIMIT);
    x.enter('boot', () => {
      for (const code of [XS_PRELUDE, PRELUDE, opts.bundle]) x.command(Buffer.from(code, 'utf8'), 'e');
    });
    return x;
  }

  /** Evaluates code in XS (tests, diagnostics); its value as JSON makes it. */
  eval(code: string): unknown {
    let value: unknown;
    this.enter('eval', () => {
      value = this.command(pack([JSON.stringify({ op: 'eval', code })]));
    });
    return value;
  }

  /** XS's meters after the last entry (`allocate` is the bytes of heap XS holds). */
  heapUsed(): number {
    return this.meters.allocate;
  }

  heapStats(): { used: number; objects: number; raw: Record<string, number> } {
    return { used: this.meters.allocate, objects: this.meters.currentHeapCount, raw: { ...this.meters } };
  }

  /**
   * XS's live heap: after a garbage collection, the slots in use (`currentHeapCount`) and the bytes of
   * the machine as XS writes it in a snapshot (every live slot and chunk: objects, strings, buffers,
   * bytecode, and XS's own built-ins).
   */
  liveHeap(): { slots: number; snapshotBytes: number } | undefined {
    if (this.disposed || this.gone) return undefined;
    let slots = 0;
    let snapshotBytes = 0;
    this.enter('eval', () => {
      this.command(pack([JSON.stringify({ op: 'eval', code: 'gc()' })]));
      slots = this.meters.currentHeapCount;
      const file = join(this.dir, 'snapshot');
      this.send('w', Buffer.from(file, 'utf8'));
      const msg = this.readNetstring();
      if (msg[0] !== 46) throw new WorkerGone(`XS snapshot: ${msg.subarray(0, 40).toString('latin1')}`);
      snapshotBytes = Number(msg.subarray(msg.indexOf(1) + 1).toString('latin1'));
      rmSync(file, { force: true });
    });
    return { slots, snapshotBytes };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.depth > 0) return;
    this.free();
  }

  private free(): void {
    this.hosts.clear();
    this.hostFns.clear();
    this.child?.kill('SIGKILL');
    for (const fd of [this.toXs, this.fromXs]) if (fd >= 0) closeSync(fd);
    this.toXs = this.fromXs = -1;
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  // --- the worker and its pipes ---------------------------------------------------------------------

  private spawn(worker: string, limit: number): void {
    this.dir = mkdtempSync(join(tmpdir(), 'saphir-xs-'));
    const down = join(this.dir, 'down');
    const up = join(this.dir, 'up');
    execFileSync('mkfifo', [down, up]);
    // Ours read-write (opening never waits, reads block); the worker's ends opened after, closed here once passed.
    this.toXs = openSync(down, constants.O_RDWR);
    const childIn = openSync(down, constants.O_RDONLY);
    this.fromXs = openSync(up, constants.O_RDWR);
    const childOut = openSync(up, constants.O_WRONLY);
    // The guard: when the worker ends, one netstring `X<status>` on its output, so our blocked read returns.
    const guard = `"$0" "$@"; m="X$?"; printf '%d:%s,' "\${#m}" "$m" >&4`;
    this.child = spawn('/bin/sh', ['-c', guard, worker, '-l', String(limit)], {
      stdio: ['ignore', 'ignore', 'ignore', childIn, childOut],
    });
    this.child.unref();
    closeSync(childIn);
    closeSync(childOut);
  }

  private send(prefix: string, body: Uint8Array): void {
    const head = Buffer.from(`${body.length + 1}:${prefix}`, 'latin1');
    const msg = Buffer.concat([head, body, Buffer.from(',')]);
    for (let at = 0; at < msg.length;) at += writeSync(this.toXs, msg, at);
  }

  private readNetstring(): Buffer {
    const chunk = this.chunk;
    for (;;) {
      const colon = this.pending.indexOf(58);
      if (colon > 0) {
        const len = Number(this.pending.subarray(0, colon).toString('latin1'));
        if (this.pending.length >= colon + 1 + len + 1) {
          const body = this.pending.subarray(colon + 1, colon + 1 + len);
          this.pending = Buffer.from(this.pending.subarray(colon + 2 + len));
          return Buffer.from(body);
        }
      }
      const n = readSync(this.fromXs, chunk, 0, chunk.length, null);
      this.pending = Buffer.concat([this.pending, chunk.subarray(0, n)]);
    }
  }

  /** One entry: sends `?` (handleCommand) and answers the worker's HAL calls until its reply. */
  private command(payload: Uint8Array, op: '?' | 'e' = '?'): unknown {
    if (this.gone) throw new WorkerGone('XS worker gone');
    this.send(op, payload);
    for (;;) {
      const msg = this.readNetstring();
      const kind = String.fromCharCode(msg[0]);
      if (kind === '?') {
        this.send('/', this.answer(unpack(msg.subarray(1))));
        continue;
      }
      if (kind === '.') {
        const sep = msg.indexOf(1);
        const m = JSON.parse(msg.subarray(1, sep).toString('utf8')) as XsMeters;
        this.meters = { allocate: m.allocate, compute: m.compute, currentHeapCount: m.currentHeapCount };
        if (op === 'e' || sep + 1 >= msg.length) return undefined;
        const r = unpack(msg.subarray(sep + 1));
        const v = JSON.parse(text(r[0])) as { u?: 1; v?: unknown };
        return v.u ? undefined : v.v;
      }
      if (kind === '!') throw new Error(msg.subarray(1).toString('utf8'));
      this.gone = true;
      // `X<status>`: the worker ended (xsnap's exit codes: 17 the crank meter ran out, i.e. a hung entry;
      // 11 memory full; 12 stack overflow, which ends the XS machine where QuickJS throws a RangeError).
      const status = Number(msg.subarray(1).toString('latin1'));
      throw new WorkerGone(
        status === 17
          ? 'interrupted (XS compute limit)'
          : status === 12
            ? 'stack overflow (XS worker exited, 12)'
            : status === 11
              ? 'memory full (XS worker exited, 11)'
              : `XS worker exited (${status})`,
      );
    }
  }

  private enter(where: string, f: () => void): void {
    if (this.disposed) return;
    this.depth++;
    try {
      f();
    } catch (err) {
      if (!this.disposed) {
        const msg = err instanceof WorkerGone ? `InternalError: ${err.message}` : String((err as Error).message ?? err);
        if (err instanceof WorkerGone)
          this.fault(/interrupted/.test(msg) ? 'interrupted' : 'out-of-memory', msg, where);
        else this.fault(/memory full|stack overflow/i.test(msg) ? 'out-of-memory' : 'exception', msg, where);
      }
    } finally {
      this.depth--;
      if (this.depth === 0 && this.disposed) this.free();
    }
  }

  // --- the host side of the bridge ------------------------------------------------------------------

  /** A HAL request from XS, answered as a frame (see XS_PRELUDE `ask`). */
  private answer(parts: Uint8Array[]): Uint8Array {
    try {
      const head = JSON.parse(text(parts[0])) as { op: string; n?: unknown[] };
      const args = parts.slice(1);
      const hosts = this.hosts;
      if (head.op === 'ctors') return pack([JSON.stringify({ k: 'j', v: hosts.constructors() })]);
      if (this.disposed) throw new Error('device reset');
      if (head.op === 'identity') return this.reply(hosts.identity());
      if (head.op === 'make') return this.reply(hosts.make(text(args[0]), this.decode(text(args[1]), args.slice(2))));
      if (head.op === 'get') return this.reply(hosts.prop(Number(text(args[0])), text(args[1])));
      // call: id, method, json, ...bins; num: [id, method, ...numbers]
      if (head.op === 'num') return this.reply(hosts.call(Number(head.n![0]), String(head.n![1]), head.n!.slice(2)));
      const callArgs = this.decode(text(args[2]), args.slice(3)) as unknown[];
      return this.reply(hosts.call(Number(text(args[0])), text(args[1]), callArgs));
    } catch (e) {
      return pack([JSON.stringify({ k: 'e', v: e instanceof Error ? e.message : String(e) })]);
    }
  }

  /** A Node value as the prelude's `back` takes it (bridge.ts `wireValue`), in a frame. */
  private reply(v: unknown): Uint8Array {
    const w = wireValue(v);
    if (w.k === 'u') return pack([JSON.stringify({ k: 'u' })]);
    if (w.k === 'j') return pack([JSON.stringify({ k: 'j', v: w.v })]);
    if (w.k === 'a') return pack([JSON.stringify({ k: 'a' }), w.bytes]);
    if (w.k === 'w') return pack([JSON.stringify({ k: 'w', v: w.json })]);
    return pack([JSON.stringify({ k: 'l', v: w.json }), ...w.bins.map((b) => new Uint8Array(b))]);
  }

  /** Wire → Node value; `bins` are copies out of the frame (unpack). */
  private decode(json: string, bins: Uint8Array[]): unknown {
    return decodeWire(json, bins, (id) => this.hostFunction(id));
  }

  /** A Node function that enters XS to call the firmware's function `id`. */
  private hostFunction(id: number): HostFn {
    let f = this.hostFns.get(id);
    if (!f) {
      f = (...args: unknown[]) => {
        if (this.disposed || this.gone) return undefined;
        let out: unknown;
        this.enter('callback', () => {
          const wire = encodeWire(args);
          out = this.command(
            pack([JSON.stringify({ op: 'dispatch', id }), wire.json, ...wire.bins.map((b) => new Uint8Array(b))]),
          );
        });
        return out;
      };
      this.hostFns.set(id, f);
    }
    return f;
  }
}
