// The host's service client (docs/service-protocol.md): typed requests and replies over a byte link
// (host/serial-link.ts), image chunks pipelined, resumed uploads (the upload's state and its replies
// judged: src/service/upload.ts, which the simulator's hw-sim/service-driver.ts drives too). Protocol only: no wording, no output
// (the commands word its errors: host/commands/service-text.ts).
//
//   const c = await ServiceClient.open('/dev/ttyUSB0', { baud: 115200 });
//   const id = await c.identify();
//   const r = await c.flash(imageBytes, { onProgress });   // BEGIN, missing chunks, FINISH
//   await c.reboot(); await c.close();
//
// Requests that change the device or read its records first authenticate the session with a technician
// key (`techSeed`, default the published development one): CHALLENGE, then AUTH with its signature.
// Errors are FlashError with a `code`; `message` is the diagnostic detail (English, often the device's).
import { CMD, ERROR, MAX_CHUNK, RESPONSE, type Packet } from '../src/service/packet.ts';
import { jsonBytes, parseJson } from '../src/service/json.ts';
import type { SignedRequest } from '../src/registry/protocol.ts';
import type { Flash } from '../src/hal.ts';
import {
  u32le,
  ledgerRequest,
  decodeLedgerPage,
  LEDGER_BINARY,
  LEDGER_ENTRY_BYTES,
  LEDGER_PAGE_ENTRIES,
  type LedgerEntry,
  type Identity,
  type LedgerPage,
  type Range,
  type SessionReport,
} from '../src/service/protocol.ts';
import { Upload, type UploadFailure, type Write } from '../src/service/upload.ts';
import { DEV_TECH_SEED_HEX, NONCE_SIZE, authMessage } from '../src/service/auth.ts';
import { fromHex } from '../src/hex.ts';
import { nodeSign } from '../tools/node-crypto.ts';
import { LinkOpenError, PacketLink, openSerial, type Link } from './serial-link.ts';

export type { Link };

export type FlashErrorCode =
  'no-port' | 'busy' | 'open-failed' | 'no-answer' | 'link-lost' | 'refused' | 'protocol' | 'verify' | 'auth';

export class FlashError extends Error {
  constructor(
    readonly code: FlashErrorCode,
    message: string,
    readonly detail: { reason?: string; baud?: number; path?: string } = {},
  ) {
    super(message);
  }
}

export interface Progress {
  /** Image bytes the device holds. */
  done: number;
  total: number;
  /** Bytes sent in this run, and since when (ms, performance.now()). */
  sent: number;
  startedAt: number;
}

export interface FlashResult {
  slot: string;
  hash: string;
  version: string;
  /** Bytes the device already held when this run began (resume). */
  resumedFrom: number;
  sent: number;
}

interface Pending {
  resolve(p: Packet): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

export class ServiceClient {
  private seq = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly packets: PacketLink;
  private lost: Error | null = null;
  private onAck: ((p: Packet) => void) | null = null;
  private onLost: ((e: Error) => void) | null = null;
  private deviceChunk = MAX_CHUNK;
  private deviceWindow = 8;
  private identified = false;
  private authed = false;
  private identity: Identity | null = null;
  private readonly techSeed: Uint8Array;

  constructor(
    private readonly link: Link,
    readonly baud: number,
    opts: { techSeed?: Uint8Array } = {},
  ) {
    this.techSeed = opts.techSeed ?? fromHex(DEV_TECH_SEED_HEX);
    this.packets = new PacketLink(link, (p) => this.dispatch(p));
    link.onClose((err) => {
      this.lost = new FlashError('link-lost', err?.message ?? 'port closed', { baud });
      for (const [, p] of this.pending) {
        clearTimeout(p.timer);
        p.reject(this.lost);
      }
      this.pending.clear();
      this.onLost?.(this.lost);
    });
  }

  static async open(path: string, opts: { baud?: number; techSeed?: Uint8Array } = {}): Promise<ServiceClient> {
    const baud = opts.baud ?? 115200;
    const link = await openSerial(path, baud).catch((e: unknown) => {
      throw e instanceof LinkOpenError ? new FlashError(e.code, e.message, { path }) : e;
    });
    return new ServiceClient(link, baud, { techSeed: opts.techSeed });
  }

  /** CHALLENGE, then AUTH with the technician key's signature of the device's nonce. */
  async authenticate(): Promise<void> {
    // Board and device id are signed with the nonce: from the last IDENTIFY, or a fresh one.
    const id = this.identity ?? (await this.identify());
    const c = await this.json<{ ok: boolean; nonce?: string; reason?: string; detail?: string }>(CMD.CHALLENGE);
    if (!c.ok || typeof c.nonce !== 'string' || !/^[0-9a-f]+$/.test(c.nonce) || c.nonce.length !== 2 * NONCE_SIZE) {
      throw new FlashError('protocol', 'CHALLENGE reply malformed');
    }
    const sig = nodeSign(authMessage(id.boardId, id.deviceId, fromHex(c.nonce)), this.techSeed);
    // One try: a resent AUTH would meet a spent nonce.
    const r = await this.json<{ ok: boolean; reason?: string; detail?: string }>(CMD.AUTH, sig, { tries: 1 });
    if (!r.ok) throw new FlashError('auth', r.detail ?? 'refused', { reason: r.reason });
    this.authed = true;
  }

  private async ensureAuth(): Promise<void> {
    if (!this.authed) await this.authenticate();
  }

  close(): Promise<void> {
    for (const [, p] of this.pending) clearTimeout(p.timer);
    this.pending.clear();
    return this.link.close();
  }

  /** Milliseconds the line needs for `bytes` bytes at the client's baud rate. */
  wireMs(bytes: number): number {
    return (bytes * 10 * 1000) / this.baud;
  }

  private dispatch(p: Packet): void {
    if (p.type === (CMD.WRITE | RESPONSE) && this.onAck) return this.onAck(p);
    const w = this.pending.get(p.seq);
    if (!w) return;
    this.pending.delete(p.seq);
    clearTimeout(w.timer);
    w.resolve(p);
  }

  private nextSeq(): number {
    this.seq = (this.seq + 1) & 0xffff;
    return this.seq;
  }

  private send(type: number, seq: number, payload: Uint8Array): void {
    if (this.lost) throw this.lost;
    this.packets.send({ type, seq, payload });
  }

  /** One request, one reply; retried `tries` times on silence. */
  async request(
    type: number,
    payload: Uint8Array = new Uint8Array(0),
    opts: { timeoutMs?: number; tries?: number } = {},
  ): Promise<Packet> {
    const tries = opts.tries ?? 3;
    // Requests and replies up to a few KiB each way, plus the device's work.
    const timeoutMs = opts.timeoutMs ?? 800 + this.wireMs(payload.length + 4200) * 1.5;
    for (let t = 0; t < tries; t++) {
      if (this.lost) throw this.lost;
      const seq = this.nextSeq();
      const p = await new Promise<Packet | null>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.pending.delete(seq);
          this.packets.resync();
          resolve(null);
        }, timeoutMs);
        this.pending.set(seq, { resolve, reject, timer });
        try {
          this.send(type, seq, payload);
        } catch (e) {
          clearTimeout(timer);
          this.pending.delete(seq);
          reject(e);
        }
      });
      if (p) {
        if (p.type === ERROR) throw new FlashError('protocol', describe(parseJson(p.payload)));
        return p;
      }
    }
    throw new FlashError('no-answer', `no answer at ${this.baud} baud`, { baud: this.baud });
  }

  private async json<T>(type: number, payload?: Uint8Array, opts?: { timeoutMs?: number; tries?: number }): Promise<T> {
    const p = await this.request(type, payload, opts);
    const v = parseJson(p.payload);
    if (v === undefined || typeof v !== 'object' || v === null) throw new FlashError('protocol', 'reply is not JSON');
    return v as T;
  }

  async identify(opts: { tries?: number; timeoutMs?: number } = {}): Promise<Identity> {
    const id = await this.json<Identity>(CMD.IDENTIFY, undefined, opts);
    if (typeof id.boardId !== 'number' || !Array.isArray(id.slots))
      throw new FlashError('protocol', 'IDENTIFY reply malformed');
    // What the device can take: later uploads stay within it.
    if (Number.isInteger(id.maxChunk) && id.maxChunk > 0) this.deviceChunk = Math.min(id.maxChunk, MAX_CHUNK);
    if (Number.isInteger(id.window) && id.window > 0) this.deviceWindow = Math.min(id.window, 64);
    this.identity = id;
    this.identified = true;
    return id;
  }

  /**
   * The check journal's partition, sector by sector (JOURNAL), as a HAL Flash the portable reader
   * (src/journal.ts) reads as the device does; null from a device without the command.
   */
  async journalFlash(): Promise<Flash | null> {
    await this.ensureAuth();
    const sector = async (s: number) => {
      const p = await this.request(CMD.JOURNAL, new Uint8Array([s & 0xff, s >> 8]));
      if (p.payload.length < 2) throw new FlashError('protocol', 'JOURNAL reply malformed');
      return p.payload;
    };
    let first: Uint8Array;
    try {
      first = await sector(0);
    } catch (e) {
      if (e instanceof FlashError && e.code === 'protocol') return null;
      throw e;
    }
    const count = first[0] | (first[1] << 8);
    const bl = first.length - 2;
    if (count < 1 || count > 1024 || (bl !== 4096 && count > 0))
      throw new FlashError('protocol', 'JOURNAL reply malformed');
    const bytes = new Uint8Array(count * bl);
    bytes.set(first.subarray(2), 0);
    for (let s = 1; s < count; s++) {
      const d = await sector(s);
      if (d.length !== bl + 2) throw new FlashError('protocol', 'JOURNAL sector short');
      bytes.set(d.subarray(2), s * bl);
    }
    return {
      size: bytes.length,
      blockLength: bl,
      read: (o, n) => bytes.slice(o, o + n),
      write: () => {
        throw new Error('read only');
      },
      eraseBlock: () => {
        throw new Error('read only');
      },
    };
  }

  /** The device's offline payments as a sync request it signed (null when none wait), and their slots. */
  async outbox(): Promise<{ request: SignedRequest | null; slots: number[] }> {
    await this.ensureAuth();
    const r = await this.gated<{
      ok: boolean;
      reason?: string;
      detail?: string;
      request?: SignedRequest | null;
      slots?: number[];
    }>(CMD.OUTBOX);
    if (!r.ok) throw new FlashError('refused', r.detail ?? 'OUTBOX refused', { reason: r.reason });
    return { request: r.request ?? null, slots: Array.isArray(r.slots) ? r.slots : [] };
  }

  /** Tells the device the registry answered for these outbox slots. */
  async outboxDone(slots: number[]): Promise<number> {
    await this.ensureAuth();
    const r = await this.gated<{ ok: boolean; detail?: string; waiting?: number }>(
      CMD.OUTBOX_DONE,
      jsonBytes({ slots }),
    );
    if (!r.ok) throw new FlashError('refused', r.detail ?? 'OUTBOX_DONE refused');
    return r.waiting ?? 0;
  }

  async status(): Promise<SessionReport | null> {
    const r = await this.json<{ ok: boolean; session: SessionReport | null }>(CMD.STATUS);
    return r.session ?? null;
  }

  async reboot(): Promise<void> {
    await this.ensureAuth();
    await this.gated(CMD.REBOOT);
    this.authed = false;
  }

  /** NOTICE: a signed operator notice's bytes (src/notice.ts noticeBytes); the device's answer. */
  async notice(
    bytes: Uint8Array,
  ): Promise<{ ok: true; version: number; previous: number } | { ok: false; reason: string; detail: string }> {
    await this.ensureAuth();
    return this.gated(CMD.NOTICE, bytes);
  }

  async abort(): Promise<void> {
    await this.ensureAuth();
    await this.gated(CMD.ABORT);
  }

  /** A JSON request that needs the session; a refusal for want of it is an 'auth' error. */
  private async gated<T extends { ok?: boolean; reason?: string; detail?: string }>(
    type: number,
    payload?: Uint8Array,
    opts?: { timeoutMs?: number; tries?: number },
  ): Promise<T> {
    const r = await this.json<T>(type, payload, opts);
    if (r.ok === false && r.reason === 'auth') {
      this.authed = false;
      throw new FlashError('auth', r.detail ?? 'not authenticated', { reason: 'auth' });
    }
    return r;
  }

  /**
   * Every ledger entry: binary pages, `window` requests in flight (their replies queue on the line, so
   * each waits for those before it). A device that answers the first page in JSON is read page by page.
   */
  async ledger(opts: { window?: number; onProgress?: (p: Progress) => void } = {}): Promise<unknown[]> {
    const window = opts.window ?? 4;
    await this.ensureAuth();
    const startedAt = performance.now();
    const timeoutMs = 800 + this.wireMs((window + 1) * (LEDGER_PAGE_ENTRIES * LEDGER_ENTRY_BYTES + 400)) * 1.5;
    const page = async (first: number) => {
      const p = await this.request(CMD.LEDGER, ledgerRequest(first, LEDGER_PAGE_ENTRIES), { timeoutMs });
      return p.payload;
    };
    const head = await page(0);
    if (head[0] !== LEDGER_BINARY) return this.ledgerJson(head);
    const d0 = decodeLedgerPage(head);
    if (!d0 || d0.first !== 0) throw new FlashError('protocol', 'LEDGER reply malformed');
    const total = d0.total;
    const pages: LedgerEntry[][] = [d0.entries];
    let got = d0.entries.length;
    opts.onProgress?.({ done: got, total, sent: 0, startedAt });
    let next = LEDGER_PAGE_ENTRIES;
    const worker = async () => {
      while (next < total) {
        const first = next;
        next += LEDGER_PAGE_ENTRIES;
        const d = decodeLedgerPage(await page(first));
        if (!d || d.first !== first || d.total !== total)
          throw new FlashError('protocol', 'LEDGER reply malformed (did the ledger change during the export?)');
        if (d.entries.length !== Math.min(LEDGER_PAGE_ENTRIES, total - first))
          throw new FlashError('protocol', 'LEDGER page short');
        pages[first / LEDGER_PAGE_ENTRIES] = d.entries;
        got += d.entries.length;
        opts.onProgress?.({ done: got, total, sent: 0, startedAt });
      }
    };
    await Promise.all(Array.from({ length: window }, worker));
    return pages.flat();
  }

  /** The JSON paging of devices without binary pages; `head` is the reply to index 0. */
  private async ledgerJson(head: Uint8Array): Promise<unknown[]> {
    const out: unknown[] = [];
    let next: number | null = 0;
    let first: Uint8Array | null = head;
    while (next !== null) {
      const page = (first ? parseJson(first) : await this.json<LedgerPage>(CMD.LEDGER, u32le(next))) as LedgerPage & {
        ok?: boolean;
        reason?: string;
        detail?: string;
      };
      first = null;
      if (!page || typeof page !== 'object') throw new FlashError('protocol', 'LEDGER reply malformed');
      if (page.ok === false && page.reason === 'auth') {
        this.authed = false;
        throw new FlashError('auth', page.detail ?? 'not authenticated', { reason: 'auth' });
      }
      if (!Array.isArray(page.entries)) throw new FlashError('protocol', 'LEDGER reply malformed');
      out.push(...page.entries);
      if (page.next !== null && (typeof page.next !== 'number' || page.next <= next))
        throw new FlashError('protocol', 'LEDGER paging broken');
      next = page.next;
    }
    return out;
  }

  /** BEGIN: the device checks the signed manifest; returns what it already holds of this image. */
  async begin(image: Uint8Array): Promise<SessionReport> {
    return this.beginUpload(uploadOf(image, this.deviceChunk));
  }

  private async beginUpload(u: Upload): Promise<SessionReport> {
    await this.ensureAuth();
    const r = await this.gated<{ ok: boolean; session?: SessionReport }>(CMD.BEGIN, u.beginPayload());
    const refused = u.onBegin(r);
    if (refused) throw flashError(refused);
    return r.session!;
  }

  async finish(timeoutMs = 30000): Promise<{ slot: string; hash: string; version: string }> {
    await this.ensureAuth();
    const r = await this.gated<{
      ok: boolean;
      reason?: string;
      detail?: string;
      slot: string;
      hash: string;
      version: string;
    }>(CMD.FINISH, undefined, { timeoutMs, tries: 1 });
    if (!r.ok) throw new FlashError('refused', r.detail ?? 'refused', { reason: r.reason });
    return r;
  }

  /**
   * Sends the parts of `image` in `have`'s complement, `window` WRITEs in flight. A silent spell resends
   * what was not acknowledged; repeated silence is 'no-answer'.
   */
  async upload(
    image: Uint8Array,
    have: readonly Range[],
    opts: { window?: number; chunk?: number; onProgress?: (p: Progress) => void; signal?: AbortSignal } = {},
  ): Promise<number> {
    const u = uploadOf(image, Math.min(opts.chunk ?? this.deviceChunk, this.deviceChunk));
    u.plan(have);
    return this.writes(u, opts);
  }

  /** The WRITEs of `u`, pipelined (the upload's state: src/service/upload.ts); resolves to the bytes sent. */
  private writes(
    u: Upload,
    opts: { window?: number; onProgress?: (p: Progress) => void; signal?: AbortSignal } = {},
  ): Promise<number> {
    const window = opts.window ?? this.deviceWindow;
    const startedAt = performance.now();
    const inflight = new Map<number, Write>();
    let silentRounds = 0;

    return new Promise<number>((resolve, reject) => {
      let timer: NodeJS.Timeout | null = null;
      let finished = false;
      const end = (err?: Error) => {
        if (finished) return;
        finished = true;
        if (timer) clearTimeout(timer);
        this.onAck = null;
        this.onLost = null;
        if (err) reject(err);
        else resolve(u.sent);
      };
      const inflightBytes = () => {
        let n = 0;
        for (const w of inflight.values()) n += w.range[1] - w.range[0] + 40;
        return n;
      };
      const arm = () => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(onSilence, 600 + this.wireMs(inflightBytes()) * 2);
      };
      const onSilence = () => {
        if (++silentRounds > 4)
          return end(new FlashError('no-answer', `no answer at ${this.baud} baud`, { baud: this.baud }));
        this.packets.resync();
        // Resend whatever was not acknowledged.
        const lost = [...inflight.values()].map((w) => w.range);
        inflight.clear();
        u.again(lost);
        pump();
      };
      const pump = () => {
        try {
          if (this.lost) return end(this.lost);
          if (opts.signal?.aborted)
            return end(new FlashError('link-lost', 'aborted', { baud: this.baud, reason: 'aborted' }));
          while (inflight.size < window) {
            const w = u.nextWrite();
            if (!w) break;
            const seq = this.nextSeq();
            inflight.set(seq, w);
            this.send(CMD.WRITE, seq, w.payload);
          }
          if (inflight.size === 0 && u.drained) return end();
          arm();
        } catch (e) {
          end(e as Error);
        }
      };
      this.onLost = (e) => end(e);
      this.onAck = (p) => {
        const w = inflight.get(p.seq);
        if (!w) return;
        inflight.delete(p.seq);
        silentRounds = 0;
        const refused = u.onAck(w, p.payload);
        if (refused) {
          if (refused.reason === 'auth') this.authed = false;
          return end(flashError(refused));
        }
        opts.onProgress?.({ done: u.done, total: u.total, sent: u.sent, startedAt });
        pump();
      };
      pump();
    });
  }

  /** BEGIN, upload what is missing, FINISH; checks the hash the device reports. */
  async flash(
    image: Uint8Array,
    opts: { onProgress?: (p: Progress) => void; window?: number; signal?: AbortSignal } = {},
  ): Promise<FlashResult> {
    uploadOf(image, MAX_CHUNK); // a malformed image is refused before the device is asked anything
    // The device's chunk size and RAM window decide how the image is cut and paced.
    if (!this.identified) await this.identify();
    const u = uploadOf(image, this.deviceChunk);
    await this.beginUpload(u);
    const sent = await this.writes(u, opts);
    // The device erases and programs a slot and reads it back: seconds on real NOR (512 KiB ≈ 8 s).
    const r = u.onFinish(await this.finish(20000));
    if ('stage' in r) throw flashError(r);
    return { ...r, resumedFrom: u.resumedFrom, sent };
  }
}

/** The upload of `image` in `chunk`-byte WRITEs; a malformed image is refused here. */
function uploadOf(image: Uint8Array, chunk: number): Upload {
  const u = Upload.of(image, { chunk, resume: true });
  if ('stage' in u) throw flashError(u);
  return u;
}

/** The client's error for where an upload stopped. */
function flashError(f: UploadFailure): FlashError {
  if (f.reason === 'auth') return new FlashError('auth', f.detail, { reason: 'auth' });
  if (f.reason === 'verify') return new FlashError('verify', f.detail);
  if (f.stage === 'write' || f.reason === 'protocol') return new FlashError('protocol', f.detail);
  return new FlashError('refused', f.detail || 'refused', { reason: f.reason });
}

function describe(v: unknown): string {
  if (v && typeof v === 'object' && 'detail' in v) return String((v as { detail: unknown }).detail);
  return 'device error';
}
