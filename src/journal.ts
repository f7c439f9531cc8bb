// The check journal: every verdict the device showed, paid or not, in a ring on its own flash partition
// (docs/firmware.md, "At the counter"). The trace an operator reads when a clerk tells a winner they lost.
// Layout: the first two sectors hold the last Z report's time as time-mark records (src/ledger/
// time-mark.ts); the others are the ring. A ring sector starts with a 16-byte header ("SPJR", sequence
// u32 BE, CRC-32) and holds 255 records of 16 bytes:
//   kind (u8) · reason (u8) · emission (u16) · block (u16) · number (u24) · prize / 5 (u16) · time (u32, s) · check (u8)
// `check` is the low byte of the CRC-32 of the 15 bytes before: a record torn by a power cut, or a flipped
// bit, reads as no record. When the ring is full its oldest sector is erased. Portable.
import type { Flash } from './hal.ts';
import { crc32Range } from './crc32.ts';
import { getU16BE, getU32BE, isErased, putU16BE, putU32BE } from './bytes.ts';

/** What a scan ended on. */
export const JOURNAL_KINDS = [
  'lose',
  'win',
  'paid',
  'centre',
  'already-paid',
  'expired',
  'invalid',
  'not-payable',
  'early',
] as const;
export type JournalKind = (typeof JOURNAL_KINDS)[number];

export interface JournalEntry {
  kind: JournalKind;
  /** For `invalid`: the index of the reason in the caller's list (0 when none). */
  reason: number;
  emission: number;
  block: number;
  number: number;
  prizeEur: number;
  /** Trusted time, ms (kept to the second). */
  atMs: number;
}

/** Sectors of the partition before the ring: the last Z report's time (time-mark records). */
export const JOURNAL_Z_BLOCKS = 2;
const REC = 16;
const HEAD = [0x53, 0x50, 0x4a, 0x52]; // "SPJR"

export class Journal {
  /** The ring sector being written, its sequence, and the next free slot in it (1…255; 256: full). */
  private cur = -1;
  private seq = 0;
  private slot = 256;

  constructor(private readonly flash: Flash) {
    const n = this.sectors;
    for (let s = 0; s < n; s++) {
      const q = this.header(s);
      if (q >= 0 && (this.cur < 0 || q > this.seq)) {
        this.cur = s;
        this.seq = q;
      }
    }
    if (this.cur < 0) return;
    const bl = flash.blockLength;
    const data = flash.read((JOURNAL_Z_BLOCKS + this.cur) * bl, bl);
    this.slot = 1;
    while (this.slot * REC < bl && !isErased(data.subarray(this.slot * REC, this.slot * REC + REC))) this.slot++;
  }

  /** Ring sectors: every sector past the Z marks (at least 2 for a ring). */
  get sectors(): number {
    return Math.max(0, Math.floor(this.flash.size / this.flash.blockLength) - JOURNAL_Z_BLOCKS);
  }

  /** Appends one entry: one 16-byte write (and, every 255 entries, an erase and a header). */
  append(e: JournalEntry): void {
    if (this.sectors < 2) return;
    const bl = this.flash.blockLength;
    if (this.cur < 0 || this.slot * REC >= bl) {
      this.cur = this.cur < 0 ? 0 : (this.cur + 1) % this.sectors;
      this.seq++;
      const base = (JOURNAL_Z_BLOCKS + this.cur) * bl;
      this.flash.eraseBlock(JOURNAL_Z_BLOCKS + this.cur);
      const h = new Uint8Array(REC);
      h.set(HEAD);
      putU32BE(h, 4, this.seq);
      putU32BE(h, 8, crc32Range(h, 0, 8));
      this.flash.write(h, base);
      this.slot = 1;
    }
    const r = new Uint8Array(REC);
    r[0] = JOURNAL_KINDS.indexOf(e.kind);
    r[1] = e.reason & 255;
    putU16BE(r, 2, e.emission);
    putU16BE(r, 4, e.block);
    r[6] = (e.number >>> 16) & 255;
    putU16BE(r, 7, e.number & 0xffff);
    putU16BE(r, 9, Math.min(0xffff, Math.round(e.prizeEur / 5)));
    putU32BE(r, 11, Math.floor(e.atMs / 1000));
    r[15] = crc32Range(r, 0, 15) & 255;
    this.flash.write(r, (JOURNAL_Z_BLOCKS + this.cur) * bl + this.slot * REC);
    this.slot++;
  }

  /** Calls `f` on every readable entry, oldest first, a sector at a time (no list held in memory). */
  forEach(f: (e: JournalEntry) => void): void {
    const n = this.sectors;
    if (this.cur < 0) return;
    const bl = this.flash.blockLength;
    for (let k = 1; k <= n; k++) {
      const s = (this.cur + k) % n;
      if (this.header(s) < 0) continue;
      const d = this.flash.read((JOURNAL_Z_BLOCKS + s) * bl, bl);
      for (let o = REC; o + REC <= bl; o += REC) {
        if (d[o] >= JOURNAL_KINDS.length || (crc32Range(d, o, 15) & 255) !== d[o + 15]) continue;
        f({
          kind: JOURNAL_KINDS[d[o]],
          reason: d[o + 1],
          emission: getU16BE(d, o + 2),
          block: getU16BE(d, o + 4),
          number: (d[o + 6] << 16) | getU16BE(d, o + 7),
          prizeEur: getU16BE(d, o + 9) * 5,
          atMs: getU32BE(d, o + 11) * 1000,
        });
      }
    }
  }

  /** The sequence in the header of ring sector `s`, or -1 when it has none (erased, torn, damaged). */
  private header(s: number): number {
    const h = this.flash.read((JOURNAL_Z_BLOCKS + s) * this.flash.blockLength, REC);
    for (let i = 0; i < 4; i++) if (h[i] !== HEAD[i]) return -1;
    return getU32BE(h, 8) === crc32Range(h, 0, 8) ? getU32BE(h, 4) : -1;
  }
}
