// Device side of the service protocol (docs/service-protocol.md), part of the simulated ROM. Portable (the
// web page's scenarios drive it through hw-sim/service-driver.ts): Ed25519 through the simulator's host
// (hw-sim/host.ts), nonces from the platform's crypto.getRandomValues unless given.
//
//   const port = new ServicePort(host, { baud: 115200, send: (bytes) => serial.write(bytes) });
//   serial.on('data', (bytes) => port.receive(bytes));
//
// `host` is the simulated device (ServiceHost below). With `baud`, the port models the UART: received
// bytes reach the protocol, and replies leave, no faster than baud / 10 bytes a second (8N1).
// An update streams into the inactive slot (rom/update.ts SlotWriter): each WRITE is one whole 4 KiB
// chunk, programmed at once and recorded in the update journal, so a power cut resumes from what was
// programmed. With `baud`, the chip's own time (host.chip.busyMs) is paced too: a WRITE is acknowledged
// once its chunk is programmed, the next 64 KiB block is erased while later chunks are on the line, and at
// most RAM_CHUNKS chunks wait in RAM (a WRITE beyond that is dropped, as a UART overrun would).
//
// IDENTIFY, STATUS and CHALLENGE are open; every other request needs a session authenticated by a
// technician key the chip was provisioned with (rom/provision.ts): CHALLENGE gives a fresh nonce,
// AUTH answers it with a signature (src/service/auth.ts). A nonce serves one AUTH and lives NONCE_TTL_MS;
// the session ends at REBOOT, at any other start of the device, at a link reset, at a power cut, at a new
// CHALLENGE and after AUTH_IDLE_MS without a request. Replies beyond MAX_TX_BACKLOG waiting for the line
// make the device drop requests (a flood cannot queue megabytes); a power cut empties both directions.
import { bootInfo, SLOT_NAMES, type BootedImage, type BootOptions, type NorChip } from './bootloader.ts';
import { CMD, ERROR, MAX_CHUNK, PacketReader, RESPONSE, encodePacket, type Packet } from '../src/service/packet.ts';
import { jsonBytes, parseJson } from '../src/service/json.ts';
import { MARK_BLOCKS, MARK_SERVICE, readMark, writeMark } from '../src/ledger/index.ts';
import type { Flash } from '../src/hal.ts';
import { LAYOUT, SECTOR_SIZE } from './layout.ts';
import {
  SlotWriter,
  CHUNK,
  checkManifest,
  clearJournal,
  readJournal,
  doneRanges,
  updateOptions,
  type Manifest,
} from './update.ts';
import {
  PROTOCOL_VERSION,
  MAX_REPORTED_RANGES,
  WRITE_NOT_AUTHENTICATED,
  WRITE_UNALIGNED,
  WRITE_MISMATCH,
  WRITE_NO_SESSION,
  WRITE_OK,
  WRITE_OUT_OF_RANGE,
  coveredBytes,
  readU32le,
  u32le,
  encodeLedgerPage,
  LEDGER_BINARY,
  LEDGER_PAGE_ENTRIES,
  type LedgerEntry,
  type Identity,
  type SessionReport,
} from '../src/service/protocol.ts';
import { HEADER_SIZE } from '../src/image/format.ts';
import { toHex } from '../src/hex.ts';
import { equalBytes } from '../src/bytes.ts';
import { romPlatform } from './platform.ts';
import { isDevTechKey, readTrust, trustReport } from './provision.ts';
import { NONCE_SIZE, authMessage } from '../src/service/auth.ts';
import { Outbox } from '../src/registry/outbox.ts';
import { MAX_BATCH, signRequestWith, type RegistryRequest } from '../src/registry/protocol.ts';
import { loadNotice, noticeRefusal, parseNoticeText, storeNotice, type StoredNotice } from '../src/notice.ts';
import { asciiText } from '../src/config.ts';

/** What the simulated device gives its service port. */
export interface ServiceHost {
  chip: NorChip;
  deviceId: string;
  boot?: BootOptions;
  /** The image running now (null when none booted). */
  running(): BootedImage | null;
  /** Resets the device; called once the REBOOT reply has left the wire. */
  reboot(): void;
  /** The paid-ticket ledger (src/ledger readEntries), for LEDGER. */
  ledgerEntries?(): unknown[];
  /** Called when a flash operation of a request met a power cut (the chip is unpowered). */
  powerLost?(): void;
  /** How many times the device has started: a session opened before the last start is over (RAM lost). */
  starts?(): number;
  /** The device's own key (its secure element) signing a registry request, and its clock: for OUTBOX. */
  deviceKey?: { sign(message: Uint8Array): Uint8Array };
  nowMs?(): number;
}

export interface ServicePortOptions {
  send(bytes: Uint8Array): void;
  /** Simulated UART rate; unpaced when absent. */
  baud?: number;
  /**
   * Nonce source (default crypto.getRandomValues) and clock (default performance.now): tests', and the
   * simulator's seeded randomness and virtual time (Simulator.updateOverService).
   */
  random?: (n: number) => Uint8Array;
  now?: () => number;
}

/** A nonce answered later than this is stale. */
export const NONCE_TTL_MS = 30_000;
/** An authenticated session unused this long ends. */
export const AUTH_IDLE_MS = 120_000;
/** Longest `detail` text of an error reply. */
const MAX_DETAIL = 200;

/** Chunks the device holds in RAM while the chip works: the update's RAM is RAM_CHUNKS × 4 KiB + the manifest. */
export const RAM_CHUNKS = 6;
export const WINDOW = RAM_CHUNKS;
export { WRITE_UNALIGNED };
const PIECE = 256;
/**
 * Replies waiting for the line beyond this: a request is dropped unanswered, as a device blocked on its
 * UART would overrun its receive FIFO (a flood of 9-byte IDENTIFYs each asking ~750 bytes back).
 */
export const MAX_TX_BACKLOG = 16 * 1024;
/** Bytes on the way in beyond this (a writer faster than the baud rate) are lost, as an overrun. */
export const MAX_RX_BACKLOG = 64 * 1024;
const LEDGER_PAGE_BYTES = 3000;

interface Session {
  hash: Uint8Array;
  hashHex: string;
  size: number;
  /** Header and TLV area from BEGIN: all the image the device keeps in RAM besides chunks in flight. */
  manifestBytes: number;
  /** The signed header and TLV area BEGIN named: the only ones this session writes. */
  manifest: Manifest;
  writer: SlotWriter;
}

/** Delivers byte pieces no faster than `baud` / 10 bytes a second. */
class Wire {
  private clock = 0;
  private queue: { due: number; bytes: Uint8Array; then?: () => void }[] = [];
  private timer: unknown | null = null;
  private closed = false;
  /** Bytes queued, not yet delivered. */
  backlog = 0;

  constructor(
    private readonly baud: number | undefined,
    private readonly deliver: (b: Uint8Array) => void,
    private readonly maxBacklog = Infinity,
  ) {}

  push(bytes: Uint8Array, after?: () => void): void {
    if (this.closed) return;
    if (this.baud && this.backlog + bytes.length > this.maxBacklog) return;
    if (!this.baud) {
      this.deliver(bytes);
      after?.();
      return;
    }
    const now = romPlatform().now();
    this.clock = Math.max(this.clock, now);
    for (let i = 0; i < bytes.length; i += PIECE) {
      const piece = bytes.subarray(i, Math.min(i + PIECE, bytes.length));
      this.clock += (piece.length * 10 * 1000) / this.baud;
      this.queue.push({ due: this.clock, bytes: piece });
    }
    this.backlog += bytes.length;
    if (after) this.queue.push({ due: this.clock, bytes: new Uint8Array(0), then: after });
    this.arm();
  }

  private arm(): void {
    if (this.timer || this.queue.length === 0 || this.closed) return;
    const delay = Math.max(0, this.queue[0].due - romPlatform().now());
    this.timer = romPlatform().later(() => {
      this.timer = null;
      const now = romPlatform().now();
      while (this.queue.length && this.queue[0].due <= now + 0.5 && !this.closed) {
        const p = this.queue.shift()!;
        this.backlog -= p.bytes.length;
        if (p.bytes.length) this.deliver(p.bytes);
        p.then?.();
      }
      this.arm();
    }, delay);
  }

  /** Forgets what is queued (the device lost power: its UART buffers are gone). */
  clear(): void {
    if (this.timer) romPlatform().cancel(this.timer);
    this.timer = null;
    this.queue = [];
    this.backlog = 0;
    this.clock = 0;
  }

  close(): void {
    this.closed = true;
    this.clear();
  }
}

const GATED = new Set<number>([
  CMD.BEGIN,
  CMD.WRITE,
  CMD.FINISH,
  CMD.REBOOT,
  CMD.ABORT,
  CMD.LEDGER,
  CMD.CLOCK,
  CMD.OUTBOX,
  CMD.OUTBOX_DONE,
  CMD.JOURNAL,
  CMD.NOTICE,
]);

export class ServicePort {
  private readonly reader: PacketReader;
  private readonly rx: Wire;
  private readonly tx: Wire;
  private session: Session | null = null;
  private readonly paced: boolean;
  /** romPlatform().now() at which the chip finishes what it was given (paced mode). */
  private chipFree = 0;
  private readonly timers = new Set<unknown>();
  private held = 0;
  private off = false;
  /** Most update bytes held in RAM at once (chunks waiting for the chip + the manifest): update_ram_kib. */
  updateRamPeak = 0;
  private nonce: { bytes: Uint8Array; at: number } | null = null;
  private outboxNonce = 0;
  private authedUntil = -Infinity;
  /** host.starts() when the session opened. */
  private authedStart = 0;
  /** Requests dropped unanswered because replies already filled the line (MAX_TX_BACKLOG). */
  overruns = 0;
  private readonly random: (n: number) => Uint8Array;
  private readonly now: () => number;

  constructor(
    private readonly host: ServiceHost,
    opts: ServicePortOptions,
  ) {
    this.random = opts.random ?? ((n) => romPlatform().random(n));
    this.now = opts.now ?? (() => romPlatform().now());
    this.reader = new PacketReader((p) => this.handle(p));
    this.rx = new Wire(opts.baud, (b) => this.reader.push(b), MAX_RX_BACKLOG);
    this.tx = new Wire(opts.baud, opts.send);
    this.paced = !!opts.baud;
  }

  /** Bytes arriving from the serial line. */
  receive(bytes: Uint8Array): void {
    this.rx.push(bytes);
  }

  /** The link went away: a partial frame and the authentication are forgotten, the update session is kept. */
  linkReset(): void {
    this.reader.reset();
    this.endAuth();
  }

  /** Whether requests that change the device or read its records are served now. */
  get authenticated(): boolean {
    return this.now() < this.authedUntil && (this.host.starts?.() ?? 0) === this.authedStart;
  }

  private endAuth(): void {
    this.authedUntil = -Infinity;
    this.nonce = null;
    // The ledger pages read for that session: the next one reads the ledger as it is then.
    this.ledgerCache = null;
  }

  close(): void {
    this.rx.close();
    this.tx.close();
    for (const t of this.timers) romPlatform().cancel(t);
    this.timers.clear();
  }

  /** A flash operation met a power cut: RAM (session, chunks waiting, their acknowledgements) is gone. */
  private powerGone(): void {
    this.session = null;
    this.endAuth();
    this.ledgerCache = null;
    for (const t of this.timers) romPlatform().cancel(t);
    this.timers.clear();
    this.held = 0;
    this.chipFree = 0;
    this.host.powerLost?.();
  }

  /** Runs chip work `f` and returns when (romPlatform().now()) the chip is done with it; no delay unpaced. */
  private chipWork(f: () => void): number {
    const before = this.host.chip.busyMs?.() ?? 0;
    f();
    if (!this.paced) return 0;
    const ms = (this.host.chip.busyMs?.() ?? 0) - before;
    this.chipFree = Math.max(this.chipFree, romPlatform().now()) + ms;
    return this.chipFree;
  }

  /** Calls `f` at `due` (romPlatform().now()), at once when it is past. */
  private at(due: number, f: () => void): void {
    const delay = due - romPlatform().now();
    if (delay <= 0) return f();
    const t = romPlatform().later(() => {
      this.timers.delete(t);
      f();
    }, delay);
    this.timers.add(t);
  }

  /** 64 KiB block `b` erased in the background (a power cut there is handled like any other). */
  private eraseAhead(b: number): void {
    const s = this.session;
    if (!s) return;
    try {
      this.chipWork(() => s.writer.eraseAhead(b));
    } catch (e) {
      if (!(e instanceof Error && e.name === 'PowerCut')) throw e;
      this.powerGone();
    }
  }

  /**
   * The device is unpowered (`saphir sim --pty`'s `coupure`): RAM is lost, nothing is answered until
   * `powerOn()`. The journal on flash keeps what was programmed.
   */
  powerOff(): void {
    this.off = true;
    this.session = null;
    this.endAuth();
    this.rx.clear();
    this.tx.clear();
    this.ledgerCache = null;
    for (const t of this.timers) romPlatform().cancel(t);
    this.timers.clear();
    this.held = 0;
    this.chipFree = 0;
    this.reader.reset();
  }

  powerOn(): void {
    this.off = false;
  }

  /** Frames dropped for a bad CRC or framing. */
  get dropped(): number {
    return this.reader.dropped;
  }

  private reply(p: Packet, payload: Uint8Array, after?: () => void): void {
    this.tx.push(encodePacket({ type: p.type | RESPONSE, seq: p.seq, payload }), after);
  }

  private handle(p: Packet): void {
    if (this.off) return;
    if (this.tx.backlog > MAX_TX_BACKLOG) {
      this.overruns++;
      return;
    }
    try {
      this.serve(p);
    } catch (e) {
      // A power cut mid-FINISH (the NOR model throws PowerCut): the device is dead, it says nothing; the
      // simulator sees the unpowered chip and restarts it. Anything else is answered, never thrown.
      if (e instanceof Error && e.name === 'PowerCut') {
        this.powerGone();
        return;
      }
      const detail = (e instanceof Error ? e.message : String(e)).slice(0, MAX_DETAIL);
      this.tx.push(
        encodePacket({ type: ERROR, seq: p.seq, payload: jsonBytes({ ok: false, reason: 'internal', detail }) }),
      );
    }
  }

  private serve(p: Packet): void {
    if (GATED.has(p.type)) {
      if (!this.authenticated) {
        this.authedUntil = -Infinity;
        if (p.type === CMD.WRITE) {
          const ack = new Uint8Array(9);
          ack[0] = WRITE_NOT_AUTHENTICATED;
          ack.set(p.payload.subarray(0, 4), 1);
          return this.reply(p, ack);
        }
        return this.reply(
          p,
          jsonBytes({
            ok: false,
            reason: 'auth',
            detail: 'no authenticated session (CHALLENGE, then AUTH with a technician key)',
          }),
        );
      }
      this.authedUntil = this.now() + AUTH_IDLE_MS;
    }
    switch (p.type) {
      case CMD.CHALLENGE:
        return this.reply(p, jsonBytes(this.challenge()));
      case CMD.AUTH:
        return this.reply(p, jsonBytes(this.auth(p.payload)));
      case CMD.IDENTIFY:
        return this.reply(p, jsonBytes(this.identify()));
      case CMD.BEGIN: {
        // A new update rewrites the journal (an erase): the reply waits for the chip.
        let r: ReturnType<ServicePort['begin']> | null = null;
        const due = this.chipWork(() => (r = this.begin(p.payload)));
        const res = r!;
        this.at(due, () => {
          this.reply(p, jsonBytes(res));
          if (res.ok && this.session) this.eraseAhead(this.session.writer.firstMissingBlock());
        });
        return;
      }
      case CMD.WRITE:
        return this.writePaced(p);
      case CMD.STATUS:
        return this.reply(p, jsonBytes({ ok: true, session: this.sessionReport() }));
      case CMD.FINISH:
        return this.reply(p, jsonBytes(this.finish()));
      case CMD.ABORT:
        this.session = null;
        clearJournal(this.host.chip);
        return this.reply(p, jsonBytes({ ok: true }));
      case CMD.REBOOT:
        this.session = null;
        this.endAuth();
        return this.reply(p, jsonBytes({ ok: true }), () => {
          try {
            this.host.reboot();
          } catch (e) {
            if (e instanceof Error && e.name === 'PowerCut') this.host.powerLost?.();
            else throw e;
          }
        });
      case CMD.LEDGER:
        if (p.payload.length >= 7 && p.payload[6] === LEDGER_BINARY) return this.reply(p, this.ledgerBinary(p.payload));
        return this.reply(p, jsonBytes(this.ledger(p.payload)));
      case CMD.CLOCK:
        return this.reply(p, jsonBytes(this.clock(p.payload)));
      case CMD.OUTBOX:
        return this.reply(p, jsonBytes(this.outbox()));
      case CMD.OUTBOX_DONE:
        return this.reply(p, jsonBytes(this.outboxDone(p.payload)));
      case CMD.JOURNAL:
        return this.reply(p, this.journalSector(p.payload));
      case CMD.NOTICE:
        return this.reply(p, jsonBytes(this.notice(p.payload)));
      default:
        this.tx.push(
          encodePacket({
            type: ERROR,
            seq: p.seq,
            payload: jsonBytes({ ok: false, reason: 'unknown-command', detail: `type 0x${p.type.toString(16)}` }),
          }),
        );
    }
  }

  /** The firmware key, board id and production flag: host.boot (tests) or the chip's provisioning. */
  private opts() {
    return updateOptions(this.host.chip, this.host.boot);
  }

  private sessionReport(): SessionReport | null {
    const s = this.session;
    // After a reset: what the journal on flash says (BEGIN with the same image resumes it).
    const j = s ? null : readJournal(this.host.chip);
    const r: SessionReport | null = s
      ? { hash: s.hashHex, size: s.size, received: s.writer.received() }
      : j
        ? { hash: toHex(j.hash), size: j.size, received: doneRanges(j.done, j.size) }
        : null;
    // Replies never grow with what a host sent: at most MAX_REPORTED_RANGES ranges.
    if (r && r.received.length > MAX_REPORTED_RANGES) {
      r.received = r.received.slice(0, MAX_REPORTED_RANGES);
      r.truncated = true;
    }
    return r;
  }

  private challenge() {
    const bytes = this.random(NONCE_SIZE);
    this.endAuth();
    this.nonce = { bytes, at: this.now() };
    return { ok: true as const, nonce: toHex(bytes) };
  }

  /** AUTH payload: the 64-byte signature of authMessage(board, device id, nonce). One try per nonce. */
  private auth(payload: Uint8Array) {
    const n = this.nonce;
    this.nonce = null;
    const refuse = (detail: string) => ({ ok: false as const, reason: 'auth', detail });
    if (!n) return refuse('no challenge outstanding (CHALLENGE first; a nonce serves once)');
    if (this.now() - n.at > NONCE_TTL_MS) return refuse('stale answer: the challenge expired');
    const trust = readTrust(this.host.chip);
    if ('error' in trust) return refuse(trust.error);
    // A record provisioned before provisionTrust refused it: its private half is published.
    if (trust.production && isDevTechKey(trust.techKey))
      return refuse('a production device refuses the published development technician key');
    const msg = authMessage(this.opts().boardId, this.host.deviceId, n.bytes);
    if (payload.length !== 64 || !romPlatform().verify(payload, msg, trust.techKey))
      return refuse('signature does not verify with the technician key');
    this.authedUntil = this.now() + AUTH_IDLE_MS;
    this.authedStart = this.host.starts?.() ?? 0;
    return { ok: true as const };
  }

  private trustReport() {
    const t = readTrust(this.host.chip);
    if ('error' in t) return undefined;
    return trustReport(this.host.boot?.publicKey ? { ...t, firmwareKey: this.host.boot.publicKey } : t);
  }

  /** `size` bytes of the chip from `offset` as a HAL Flash (a partition as the firmware sees it). */
  private area(offset: number, size: number): Flash {
    const c = this.host.chip;
    return {
      size,
      blockLength: SECTOR_SIZE,
      read: (o, n) => c.read(offset + o, n),
      write: (b, o) => c.program(offset + o, b),
      eraseBlock: (k) => c.eraseSector(offset + k * SECTOR_SIZE),
    };
  }

  /**
   * OUTBOX: the offline payments the registry has not heard, as a `sync` request signed by the device's
   * own key, for a technician's laptop to carry (`saphir ledger export --to URL`). Only entries whose
   * payment the ledger holds (an entry a power cut left without one is no payment).
   */
  private outbox() {
    if (!this.host.deviceKey)
      return { ok: false as const, reason: 'no-key', detail: 'this device has no key for the registry' };
    const paid = new Set(
      (this.host.ledgerEntries?.() ?? []).map((e) => {
        const p = e as { emission: number; block: number; number: number };
        return `${p.emission}/${p.block}/${p.number}`;
      }),
    );
    const entries = Outbox.open(this.area(LAYOUT.outbox.offset, LAYOUT.outbox.size))
      .pending.filter((e) => paid.has(`${e.emission}/${e.block}/${e.number}`))
      .slice(0, MAX_BATCH);
    if (entries.length === 0) return { ok: true as const, request: null, slots: [] as number[] };
    this.outboxNonce++;
    const now = Math.floor(this.host.nowMs?.() ?? Date.now());
    const req: RegistryRequest = {
      kind: 'sync',
      device_id: this.host.deviceId,
      nonce: `svc-${now.toString(36)}-${this.outboxNonce.toString(36)}`,
      sent_at: now,
      payments: entries.map((e) => ({ code: e.code, paid_at: e.paidAtMs })),
    };
    const key = this.host.deviceKey;
    const signed = signRequestWith(req, (m) => key.sign(m), romPlatform().sha512);
    return { ok: true as const, request: signed, slots: entries.map((e) => e.slot) };
  }

  /** OUTBOX_DONE {"slots": [...]}: the registry answered for these: they are marked heard. */
  private outboxDone(payload: Uint8Array) {
    const req = parseJson(payload) as { slots?: unknown } | undefined;
    const slots = req && typeof req === 'object' && Array.isArray(req.slots) ? req.slots : null;
    if (!slots || !slots.every((x) => Number.isInteger(x)))
      return { ok: false as const, reason: 'malformed', detail: 'OUTBOX_DONE wants {"slots": [integers]}' };
    const box = Outbox.open(this.area(LAYOUT.outbox.offset, LAYOUT.outbox.size));
    const heard = box.pending.filter((e) => slots.includes(e.slot));
    box.markSynced(heard);
    return { ok: true as const, marked: heard.length, waiting: box.pending.length };
  }

  /** The operator key the device trusts (null: none), and the newest notice on flash it verifies. */
  private heldNotice(): { key: Uint8Array | null; held: StoredNotice | null } {
    const t = readTrust(this.host.chip);
    const key = 'error' in t ? null : t.operatorKey;
    return { key, held: loadNotice(this.area(LAYOUT.notice.offset, LAYOUT.notice.size), key, romPlatform().verify) };
  }

  /**
   * NOTICE: a signed operator notice (src/notice.ts, its text): stored on the notice partition when it
   * verifies with the operator key and is above the version held; the firmware applies it at its next start.
   */
  private notice(payload: Uint8Array) {
    const refuse = (reason: string, detail: string) => ({ ok: false as const, reason, detail });
    const text = asciiText(payload);
    const p = text === null ? { error: 'not ASCII' } : parseNoticeText(text);
    if ('error' in p) return refuse('malformed', p.error);
    const { key, held } = this.heldNotice();
    const previous = held ? held.signed.notice.version : 0;
    const why = noticeRefusal(p, key, previous, romPlatform().verify);
    if (why) {
      const detail = {
        unsigned: 'the notice is not signed',
        'no-key': 'this device has no operator key',
        signature: 'the signature does not verify with the operator key',
        older: `version ${p.notice.version} is not above the version held, ${previous}`,
      };
      return refuse(why, detail[why]);
    }
    storeNotice(this.area(LAYOUT.notice.offset, LAYOUT.notice.size), p, held);
    return { ok: true as const, version: p.notice.version, previous };
  }

  /** CLOCK: raises the trusted-time mark of the ledger partition; the firmware reads it at its next boot. */
  private clock(payload: Uint8Array) {
    const req = parseJson(payload) as { nowMs?: unknown } | undefined;
    const ms = req && typeof req === 'object' ? req.nowMs : undefined;
    // 2024-01-01 … 2100-01-01, the firmware's plausible range
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1704067200000 || ms >= 4102444800000) {
      return {
        ok: false as const,
        reason: 'malformed',
        detail: 'CLOCK wants {"nowMs": integer ms since 1970 UTC, 2024…2099}',
      };
    }
    // The time mark's two sectors at the start of the ledger partition.
    const marks = this.area(LAYOUT.ledger.offset, MARK_BLOCKS * SECTOR_SIZE);
    const previousMs = readMark(marks);
    if (ms > previousMs) writeMark(marks, ms, MARK_SERVICE);
    return { ok: true as const, markMs: Math.max(ms, previousMs), previousMs };
  }

  identify(): Identity {
    const info = bootInfo(this.host.chip, this.host.boot);
    const r = this.host.running();
    return {
      protocol: PROTOCOL_VERSION,
      boardId: this.opts().boardId,
      deviceId: this.host.deviceId,
      running: r
        ? { slot: SLOT_NAMES[r.slot], version: r.version, hash: r.imageHash, pendingConfirm: r.pendingConfirm }
        : null,
      securityCounter: info.state.minCounter,
      confirmed: SLOT_NAMES[info.state.confirmed],
      trial: info.state.trial === null ? null : SLOT_NAMES[info.state.trial],
      slots: info.slots,
      maxChunk: MAX_CHUNK,
      window: WINDOW,
      session: this.sessionReport(),
      trust: this.trustReport(),
      notice: this.heldNotice().held?.signed.notice.version ?? 0,
    };
  }

  private begin(payload: Uint8Array) {
    if (payload.length < 4 + HEADER_SIZE)
      return { ok: false as const, reason: 'malformed', detail: 'BEGIN too short for an image header' };
    const total = readU32le(payload, 0);
    const tlv = payload.subarray(4 + HEADER_SIZE);
    const c = checkManifest(
      this.host.chip,
      total,
      payload.subarray(4, 4 + HEADER_SIZE),
      tlv,
      this.opts(),
      this.host.running(),
    );
    if (!c.ok) return c;
    const manifest = c.manifest;
    const s = this.session;
    if (
      !s ||
      s.hashHex !== c.hashHex ||
      s.size !== total ||
      !equalBytes(s.manifest.header, manifest.header) ||
      !equalBytes(s.manifest.tlv, manifest.tlv)
    ) {
      this.session = null;
      const writer = SlotWriter.begin(this.host.chip, c.hash, total, manifest);
      this.session = {
        hash: c.hash,
        hashHex: c.hashHex,
        size: total,
        manifestBytes: HEADER_SIZE + tlv.length,
        manifest,
        writer,
      };
    }
    return { ok: true as const, session: this.sessionReport() };
  }

  /** WRITE: the chunk waits in RAM until the chip has programmed it; then the acknowledgement leaves. */
  private writePaced(p: Packet): void {
    if (this.held >= RAM_CHUNKS) return; // no buffer free: dropped, the host resends after its timeout
    const s = this.session;
    if (s) this.updateRamPeak = Math.max(this.updateRamPeak, (this.held + 1) * CHUNK + s.manifestBytes);
    let due = 0;
    const ack = this.write(p.payload, (f) => (due = this.chipWork(f)));
    const next = SlotWriter.nextBlock(Math.floor(readU32le(ack, 1) / CHUNK));
    this.held++;
    this.at(due, () => {
      this.held--;
      this.reply(p, ack);
      if (ack[0] === WRITE_OK) this.eraseAhead(next);
    });
  }

  private write(payload: Uint8Array, chip: (f: () => void) => void = (f) => f()): Uint8Array {
    const ack = new Uint8Array(9);
    const s = this.session;
    const offset = payload.length >= 4 ? readU32le(payload, 0) : 0;
    u32le(offset, ack, 1);
    if (!s) {
      ack[0] = WRITE_NO_SESSION;
      return ack;
    }
    const data = payload.subarray(4);
    let r: string = 'out-of-range';
    if (payload.length >= 4) chip(() => (r = s.writer.write(offset, data)));
    ack[0] =
      r === 'ok'
        ? WRITE_OK
        : r === 'unaligned'
          ? WRITE_UNALIGNED
          : r === 'mismatch'
            ? WRITE_MISMATCH
            : WRITE_OUT_OF_RANGE;
    u32le(coveredBytes(s.writer.received()), ack, 5);
    return ack;
  }

  private finish() {
    const s = this.session;
    if (!s) return { ok: false as const, reason: 'no-session', detail: 'no update in progress (BEGIN first)' };
    const r = this.host.running();
    const res = s.writer.finish(this.opts(), r && r.pendingConfirm ? r.slot : null);
    if (!res.ok && res.reason === 'incomplete') return { ...res, missing: res.missing?.slice(0, MAX_REPORTED_RANGES) };
    this.session = null;
    if (!res.ok) return res;
    return { ok: true as const, slot: SLOT_NAMES[res.slot], hash: res.hashHex, version: res.version };
  }

  /**
   * JOURNAL: sector u16 LE of the check journal's partition → count u16 LE (the partition's sectors),
   * then the sector's 4 KiB as they are (nothing when past the end). The host reads the records with
   * src/journal.ts, as the firmware does.
   */
  private journalSector(payload: Uint8Array): Uint8Array {
    const count = LAYOUT.journal.size / SECTOR_SIZE;
    const s = payload.length >= 2 ? payload[0] | (payload[1] << 8) : 0;
    const data =
      s < count ? this.host.chip.read(LAYOUT.journal.offset + s * SECTOR_SIZE, SECTOR_SIZE) : new Uint8Array(0);
    const out = new Uint8Array(2 + data.length);
    out[0] = count & 0xff;
    out[1] = count >> 8;
    out.set(data, 2);
    return out;
  }

  private ledgerCache: LedgerEntry[] | null = null;

  /** A binary page (src/service/protocol.ts); the ledger is read again when an export starts (index 0). */
  private ledgerBinary(payload: Uint8Array): Uint8Array {
    const first = readU32le(payload, 0);
    const count = Math.min(payload[4] | (payload[5] << 8), LEDGER_PAGE_ENTRIES);
    if (first === 0 || !this.ledgerCache)
      this.ledgerCache = (this.host.ledgerEntries ? this.host.ledgerEntries() : []) as LedgerEntry[];
    return encodeLedgerPage(this.ledgerCache, Math.min(first, this.ledgerCache.length), count);
  }

  private ledger(payload: Uint8Array) {
    const entries = this.host.ledgerEntries ? this.host.ledgerEntries() : [];
    const start = payload.length >= 4 ? readU32le(payload, 0) : 0;
    const page: unknown[] = [];
    let bytes = 0;
    let i = start;
    for (; i < entries.length; i++) {
      const n = JSON.stringify(entries[i]).length + 1;
      if (page.length > 0 && bytes + n > LEDGER_PAGE_BYTES) break;
      page.push(entries[i]);
      bytes += n;
    }
    return { ok: true, total: entries.length, entries: page, next: i < entries.length ? i : null };
  }
}
