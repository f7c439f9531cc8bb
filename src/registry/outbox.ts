// Payments made offline, waiting to be pushed to the fleet registry: a small append-only log on its
// own flash partition (the ledger stays the record of what was paid; this only says what the
// registry has not heard yet). Portable. Format in docs/registry.md.
//
// Slot (256 bytes, 16 a 4 KiB sector), integers big-endian:
//   0 type 0xA6 · 1 synced flag (0xFF waiting; programmed to 0x00 once the registry answered) ·
//   2 emission u16 · 4 block u16 · 6 number u32 · 10 paid at u48 ms · 16 sequence u32 ·
//   20 code length u8 · 21… code (ASCII) · 252 CRC-32 of bytes 0–251 with byte 1 read as 0xFF.
// A slot is committed when its CRC is written (one program operation); the flag is outside the CRC,
// so marking a slot synced never rewrites it. A torn mark (some bits cleared) counts as synced: the
// mark is only written after the registry answered.
import { crc32 } from '../crc32.ts';
import { isErased } from '../bytes.ts';
import type { Flash } from '../hal.ts';

export const SLOT = 256;
const TYPE = 0xa6;
const CODE_MAX = 252 - 21;

export interface OutboxEntry {
  emission: number;
  block: number;
  number: number;
  paidAtMs: number;
  code: string;
  /** Where it lies (for `markSynced`). */
  slot: number;
  seq: number;
}

export class OutboxFull extends Error {}

function slotCrc(b: Uint8Array): number {
  const c = b.slice(0, 252);
  c[1] = 0xff;
  return crc32(c) >>> 0;
}

export class Outbox {
  private readonly perSector: number;
  private readonly slots: number;
  private waiting: OutboxEntry[] = [];
  /** Sequence of every committed slot (synced or not), by slot; -1 erased; -2 dead (torn, garbage). */
  private seqOf: number[] = [];
  private lastSeq = 0;
  private head = 0;

  private constructor(private readonly flash: Flash) {
    this.perSector = Math.floor(flash.blockLength / SLOT);
    this.slots = this.perSector * Math.floor(flash.size / flash.blockLength);
    this.scan();
  }

  /** Reads the partition; only reads. */
  static open(flash: Flash): Outbox {
    return new Outbox(flash);
  }

  /** Payments waiting for the registry, oldest first. */
  get pending(): readonly OutboxEntry[] {
    return this.waiting;
  }

  /** Entries it can hold at once; heard entries give their room back a sector at a time. */
  get capacity(): number {
    return this.slots;
  }

  private scan(): void {
    this.waiting = [];
    this.seqOf = [];
    this.lastSeq = 0;
    let headSlot = -1;
    for (let i = 0; i < this.slots; i++) {
      const b = this.flash.read(i * SLOT, SLOT);
      if (isErased(b)) {
        this.seqOf.push(-1);
        continue;
      }
      const crc = ((b[252] << 24) | (b[253] << 16) | (b[254] << 8) | b[255]) >>> 0;
      const len = b[20];
      if (b[0] !== TYPE || crc !== slotCrc(b) || len > CODE_MAX) {
        this.seqOf.push(-2);
        continue;
      }
      const seq = ((b[16] << 24) | (b[17] << 16) | (b[18] << 8) | b[19]) >>> 0;
      this.seqOf.push(seq);
      if (seq > this.lastSeq || headSlot < 0) {
        this.lastSeq = seq;
        headSlot = i;
      }
      if (b[1] !== 0xff) continue;
      let code = '';
      for (let k = 0; k < len; k++) code += String.fromCharCode(b[21 + k]);
      this.waiting.push({
        emission: (b[2] << 8) | b[3],
        block: (b[4] << 8) | b[5],
        number: ((b[6] << 24) | (b[7] << 16) | (b[8] << 8) | b[9]) >>> 0,
        paidAtMs: b[10] * 2 ** 40 + b[11] * 2 ** 32 + (((b[12] << 24) | (b[13] << 16) | (b[14] << 8) | b[15]) >>> 0),
        code,
        slot: i,
        seq,
      });
    }
    this.waiting.sort((a, b) => a.seq - b.seq);
    this.head = headSlot < 0 ? 0 : (headSlot + 1) % this.slots;
  }

  /** Appends a payment; durable when it returns. Throws `OutboxFull` (nothing written) when no room. */
  add(e: { emission: number; block: number; number: number; paidAtMs: number; code: string }): void {
    if (e.code.length > CODE_MAX || !/^[\x20-\x7e]*$/.test(e.code))
      throw new RangeError('outbox: code too long or not ASCII');
    const slot = this.freeSlot();
    const b = new Uint8Array(SLOT).fill(0xff);
    b[0] = TYPE;
    b[2] = e.emission >> 8;
    b[3] = e.emission & 255;
    b[4] = e.block >> 8;
    b[5] = e.block & 255;
    for (let k = 0; k < 4; k++) b[6 + k] = (e.number >>> (24 - 8 * k)) & 255;
    const hi = Math.floor(e.paidAtMs / 2 ** 32);
    const lo = e.paidAtMs >>> 0;
    b[10] = (hi >>> 8) & 255;
    b[11] = hi & 255;
    for (let k = 0; k < 4; k++) b[12 + k] = (lo >>> (24 - 8 * k)) & 255;
    const seq = this.lastSeq + 1;
    for (let k = 0; k < 4; k++) b[16 + k] = (seq >>> (24 - 8 * k)) & 255;
    b[20] = e.code.length;
    for (let k = 0; k < e.code.length; k++) b[21 + k] = e.code.charCodeAt(k);
    const crc = slotCrc(b);
    for (let k = 0; k < 4; k++) b[252 + k] = (crc >>> (24 - 8 * k)) & 255;
    this.flash.write(b, slot * SLOT);
    this.seqOf[slot] = seq;
    this.lastSeq = seq;
    this.head = (slot + 1) % this.slots;
    this.waiting.push({ ...e, slot, seq });
  }

  /** Marks entries as heard by the registry (granted, conflict or refused as invalid). */
  markSynced(entries: readonly OutboxEntry[]): void {
    for (const e of entries) {
      this.flash.write(new Uint8Array([0x00]), e.slot * SLOT + 1);
      this.waiting = this.waiting.filter((w) => w.slot !== e.slot);
    }
  }

  /** The next erased slot at or after the head; erases a sector ahead when all it holds is synced. */
  private freeSlot(): number {
    for (let n = 0; n < this.slots; n++) {
      const i = (this.head + n) % this.slots;
      if (i % this.perSector === 0 && !this.sectorErased(i)) {
        if (!this.sectorReclaimable(i)) throw new OutboxFull('outbox full: payments wait for the registry');
        this.flash.eraseBlock(i / this.perSector);
        for (let k = 0; k < this.perSector; k++) this.seqOf[i + k] = -1;
      }
      if (this.seqOf[i] === -1) return i;
    }
    throw new OutboxFull('outbox full: payments wait for the registry');
  }

  private sectorErased(first: number): boolean {
    for (let k = 0; k < this.perSector; k++) if (this.seqOf[first + k] !== -1) return false;
    return true;
  }

  private sectorReclaimable(first: number): boolean {
    // Keep one sector's distance ahead of the oldest waiting entry, so the head never erases it.
    for (const w of this.waiting) if (w.slot >= first && w.slot < first + this.perSector) return false;
    return true;
  }
}
