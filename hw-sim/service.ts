// Device side of the service protocol (docs/service-protocol.md), Node-side part of the simulated ROM.
//
//   const port = new ServicePort(host, { baud: 115200, send: (bytes) => serial.write(bytes) });
//   serial.on('data', (bytes) => port.receive(bytes));
//
// `host` is the simulated device (ServiceHost below). With `baud`, the port models the UART: received
// bytes reach the protocol, and replies leave, no faster than baud / 10 bytes a second (8N1).
// An update streams into the inactive slot (hw-sim/update.ts SlotWriter): each WRITE is one whole 4 KiB
// chunk, programmed at once and recorded in the update journal, so a power cut resumes from what was
// programmed. With `baud`, the chip's own time (host.chip.busyMs) is paced too: a WRITE is acknowledged
// once its chunk is programmed, the next 64 KiB block is erased while later chunks are on the line, and at
// most RAM_CHUNKS chunks wait in RAM (a WRITE beyond that is dropped, as a UART overrun would).
import {
  bootInfo,
  inactiveSlot,
  readBootState,
  SLOT_NAMES,
  SLOT_SIZE,
  type BootedImage,
  type BootOptions,
  type NorChip,
} from './bootloader.ts';
import { CMD, ERROR, MAX_CHUNK, PacketReader, RESPONSE, encodePacket, type Packet } from '../src/service/packet.ts';
import { jsonBytes } from '../src/service/json.ts';
import { SlotWriter, CHUNK, clearJournal, readJournal, doneRanges } from './update.ts';
import {
  PROTOCOL_VERSION,
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
  type Range,
  type SessionReport,
} from '../src/service/protocol.ts';
import { BOARD_ID, DEV_FIRMWARE_PUBLIC_KEY_HEX, HEADER_SIZE, equalBytes, parseHeader, parseImage } from '../src/image/format.ts';
import { fromHex, toHex } from '../src/hex.ts';
import { nodeVerify } from '../src/node/node-crypto.ts';
import { sha256 } from '@noble/hashes/sha2.js';

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
}

export interface ServicePortOptions {
  send(bytes: Uint8Array): void;
  /** Simulated UART rate; unpaced when absent. */
  baud?: number;
}

/** Chunks the device holds in RAM while the chip works: the update's RAM is RAM_CHUNKS × 4 KiB + the manifest. */
export const RAM_CHUNKS = 6;
export const WINDOW = RAM_CHUNKS;
/** WRITE status: not one whole chunk at a chunk boundary. */
export const WRITE_UNALIGNED = 3;
const PIECE = 256;
const LEDGER_PAGE_BYTES = 3000;

interface Session {
  hash: Uint8Array;
  hashHex: string;
  size: number;
  /** Header and TLV area from BEGIN: all the image the device keeps in RAM besides chunks in flight. */
  manifestBytes: number;
  writer: SlotWriter;
}

/** Delivers byte pieces no faster than `baud` / 10 bytes a second. */
class Wire {
  private clock = 0;
  private queue: { due: number; bytes: Uint8Array; then?: () => void }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly baud: number | undefined, private readonly deliver: (b: Uint8Array) => void) {}

  push(bytes: Uint8Array, after?: () => void): void {
    if (this.closed) return;
    if (!this.baud) {
      this.deliver(bytes);
      after?.();
      return;
    }
    const now = performance.now();
    this.clock = Math.max(this.clock, now);
    for (let i = 0; i < bytes.length; i += PIECE) {
      const piece = bytes.subarray(i, Math.min(i + PIECE, bytes.length));
      this.clock += (piece.length * 10 * 1000) / this.baud;
      this.queue.push({ due: this.clock, bytes: piece });
    }
    if (after) this.queue.push({ due: this.clock, bytes: new Uint8Array(0), then: after });
    this.arm();
  }

  private arm(): void {
    if (this.timer || this.queue.length === 0 || this.closed) return;
    const delay = Math.max(0, this.queue[0].due - performance.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      const now = performance.now();
      while (this.queue.length && this.queue[0].due <= now + 0.5 && !this.closed) {
        const p = this.queue.shift()!;
        if (p.bytes.length) this.deliver(p.bytes);
        p.then?.();
      }
      this.arm();
    }, delay);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.queue = [];
  }
}

export class ServicePort {
  private readonly reader: PacketReader;
  private readonly rx: Wire;
  private readonly tx: Wire;
  private session: Session | null = null;
  private readonly paced: boolean;
  /** performance.now() at which the chip finishes what it was given (paced mode). */
  private chipFree = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private held = 0;
  private off = false;
  /** Most update bytes held in RAM at once (chunks waiting for the chip + the manifest): update_ram_kib. */
  updateRamPeak = 0;

  constructor(private readonly host: ServiceHost, opts: ServicePortOptions) {
    this.reader = new PacketReader((p) => this.handle(p));
    this.rx = new Wire(opts.baud, (b) => this.reader.push(b));
    this.tx = new Wire(opts.baud, opts.send);
    this.paced = !!opts.baud;
  }

  /** Bytes arriving from the serial line. */
  receive(bytes: Uint8Array): void {
    this.rx.push(bytes);
  }

  /** The link went away: a partial frame is forgotten, the update session is kept. */
  linkReset(): void {
    this.reader.reset();
  }

  close(): void {
    this.rx.close();
    this.tx.close();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** A flash operation met a power cut: RAM (session, chunks waiting, their acknowledgements) is gone. */
  private powerGone(): void {
    this.session = null;
    this.ledgerCache = null;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.held = 0;
    this.chipFree = 0;
    this.host.powerLost?.();
  }

  /** Runs chip work `f` and returns when (performance.now()) the chip is done with it; no delay unpaced. */
  private chipWork(f: () => void): number {
    const before = this.host.chip.busyMs?.() ?? 0;
    f();
    if (!this.paced) return 0;
    const ms = (this.host.chip.busyMs?.() ?? 0) - before;
    this.chipFree = Math.max(this.chipFree, performance.now()) + ms;
    return this.chipFree;
  }

  /** Calls `f` at `due` (performance.now()), at once when it is past. */
  private at(due: number, f: () => void): void {
    const delay = due - performance.now();
    if (delay <= 0) return f();
    const t = setTimeout(() => {
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
    this.ledgerCache = null;
    for (const t of this.timers) clearTimeout(t);
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
    try {
      this.serve(p);
    } catch (e) {
      // A power cut mid-FINISH (the NOR model throws PowerCut): the device is dead, it says nothing; the
      // simulator sees the unpowered chip and restarts it. Anything else is answered, never thrown.
      if (e instanceof Error && e.name === 'PowerCut') {
        this.powerGone();
        return;
      }
      const detail = e instanceof Error ? e.message : String(e);
      this.tx.push(encodePacket({ type: ERROR, seq: p.seq, payload: jsonBytes({ ok: false, reason: 'internal', detail }) }));
    }
  }

  private serve(p: Packet): void {
    switch (p.type) {
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
      default:
        this.tx.push(encodePacket({ type: ERROR, seq: p.seq, payload: jsonBytes({ ok: false, reason: 'unknown-command', detail: `type 0x${p.type.toString(16)}` }) }));
    }
  }

  private opts() {
    return {
      publicKey: this.host.boot?.publicKey ?? fromHex(DEV_FIRMWARE_PUBLIC_KEY_HEX),
      boardId: this.host.boot?.boardId ?? BOARD_ID,
      verify: this.host.boot?.verify ?? nodeVerify,
    };
  }

  private sessionReport(): SessionReport | null {
    const s = this.session;
    if (s) return { hash: s.hashHex, size: s.size, received: s.writer.received() };
    // After a reset: what the journal on flash says (BEGIN with the same image resumes it).
    const j = readJournal(this.host.chip);
    return j ? { hash: toHex(j.hash), size: j.size, received: doneRanges(j.done, j.size) } : null;
  }

  identify(): Identity {
    const info = bootInfo(this.host.chip, this.host.boot);
    const r = this.host.running();
    return {
      protocol: PROTOCOL_VERSION,
      boardId: this.opts().boardId,
      deviceId: this.host.deviceId,
      running: r ? { slot: SLOT_NAMES[r.slot], version: r.version, hash: r.imageHash, pendingConfirm: r.pendingConfirm } : null,
      securityCounter: info.state.minCounter,
      confirmed: SLOT_NAMES[info.state.confirmed],
      trial: info.state.trial === null ? null : SLOT_NAMES[info.state.trial],
      slots: info.slots,
      maxChunk: MAX_CHUNK,
      window: WINDOW,
      session: this.sessionReport(),
    };
  }

  private begin(payload: Uint8Array) {
    const refuse = (reason: string, detail: string) => ({ ok: false as const, reason, detail });
    if (payload.length < 4 + HEADER_SIZE) return refuse('malformed', 'BEGIN too short for an image header');
    const total = readU32le(payload, 0);
    const header = payload.subarray(4, 4 + HEADER_SIZE);
    const tlv = payload.subarray(4 + HEADER_SIZE);
    const h = parseHeader(header);
    if ('error' in h) return refuse('malformed', h.error);
    if (total !== HEADER_SIZE + h.imageSize + tlv.length) return refuse('malformed', 'sizes in BEGIN do not add up');
    if (total > SLOT_SIZE) return refuse('too-large', `${total} bytes, a slot holds ${SLOT_SIZE}`);
    const o = this.opts();
    if (h.boardId !== o.boardId) {
      return refuse('board', `image for board 0x${h.boardId.toString(16)}, this is board 0x${o.boardId.toString(16)}`);
    }
    const min = readBootState(this.host.chip).minCounter;
    if (h.securityCounter < min) return refuse('rollback', `security counter ${h.securityCounter} below the device's ${min}`);
    // The manifest placed where it sits in the image, for parseImage; transient (the session keeps the hash).
    const buf = new Uint8Array(total);
    buf.set(header, 0);
    buf.set(tlv, total - tlv.length);
    const img = parseImage(buf);
    if ('error' in img) return refuse('malformed', img.error);
    if (img.keyHash && !equalBytes(img.keyHash, sha256(o.publicKey))) return refuse('signature', 'signed by another key than the firmware key');
    if (!o.verify(img.signature, img.hash, o.publicKey)) return refuse('signature', 'Ed25519 signature does not verify with the firmware key');
    const r = this.host.running();
    if (r && r.pendingConfirm && r.slot === inactiveSlot(this.host.chip)) {
      return refuse('busy', 'the running image is not confirmed yet; reset or let it confirm first');
    }
    const hashHex = toHex(img.hash);
    if (!this.session || this.session.hashHex !== hashHex || this.session.size !== total) {
      this.session = null;
      const writer = SlotWriter.begin(this.host.chip, img.hash.slice(), total);
      this.session = { hash: img.hash.slice(), hashHex, size: total, manifestBytes: HEADER_SIZE + tlv.length, writer };
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
    ack[0] = r === 'ok' ? WRITE_OK : r === 'unaligned' ? WRITE_UNALIGNED : WRITE_OUT_OF_RANGE;
    u32le(coveredBytes(s.writer.received()), ack, 5);
    return ack;
  }

  private finish() {
    const s = this.session;
    if (!s) return { ok: false as const, reason: 'no-session', detail: 'no update in progress (BEGIN first)' };
    const r = this.host.running();
    const res = s.writer.finish(this.opts(), r && r.pendingConfirm ? r.slot : null);
    if (!res.ok && res.reason === 'incomplete') return res;
    this.session = null;
    if (!res.ok) return res;
    return { ok: true as const, slot: SLOT_NAMES[res.slot], hash: res.hashHex, version: res.version };
  }

  private ledgerCache: LedgerEntry[] | null = null;

  /** A binary page (src/service/protocol.ts); the ledger is read again when an export starts (index 0). */
  private ledgerBinary(payload: Uint8Array): Uint8Array {
    const first = readU32le(payload, 0);
    const count = Math.min(payload[4] | (payload[5] << 8), LEDGER_PAGE_ENTRIES);
    if (first === 0 || !this.ledgerCache) this.ledgerCache = (this.host.ledgerEntries ? this.host.ledgerEntries() : []) as LedgerEntry[];
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
