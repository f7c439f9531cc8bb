// The persisted high-water mark of trusted time (docs/ledger.md, "Trusted time"): 16-byte records
// appended to each of two sectors in turn; the highest valid one wins, so a power cut or the loss
// of one sector keeps the mark, and the boot copies it back to a sector that lacks it. Portable.
import type { Flash } from '../hal.ts';
import { crc32Range } from '../crc32.ts';

/** Sectors the mark takes at the start of the ledger partition. */
export const MARK_BLOCKS = 2;
const REC = 16;
const MAGIC = [0x53, 0x50, 0x54, 0x4d]; // "SPTM"
/** Why a mark was written: the RTC was believed, the clerk confirmed it, a technician set it. */
export const MARK_RTC = 1;
export const MARK_KEYPAD = 2;
export const MARK_SERVICE = 3;
/** The same records, on the check journal's partition: the time a Z report closed the period. */
export const MARK_Z = 4;

/** The highest valid mark (ms since 1970 UTC) on the two mark sectors of `flash`, 0 when none. */
export function readMark(flash: Flash): number {
  let best = 0;
  for (let s = 0; s < MARK_BLOCKS; s++) best = Math.max(best, scanBlock(flash, s).max);
  return best;
}

/**
 * The two highest distinct marks, highest first (0 for none): on the journal's partition, the last Z
 * and the one before it, which bound the period the last Z closed. A full sector keeps its highest
 * record across its erase (append), so the pair survives the wrap.
 */
export function readLastTwo(flash: Flash): [number, number] {
  let a = 0;
  let b = 0;
  for (let s = 0; s < MARK_BLOCKS; s++)
    for (const v of scanBlock(flash, s).values) {
      if (v > a) {
        b = a;
        a = v;
      } else if (v < a && v > b) b = v;
    }
  return [a, b];
}

/** Appends the mark `ms` to both sectors (erasing a full one first). Power-safe: one sector at a time. */
export function writeMark(flash: Flash, ms: number, source = MARK_RTC): void {
  const r = new Uint8Array(REC);
  r.set(MAGIC);
  const hi = Math.floor(ms / 0x100000000);
  r[4] = hi >> 8;
  r[5] = hi & 255;
  for (let i = 0; i < 4; i++) r[6 + i] = (ms >>> (24 - 8 * i)) & 255;
  r[10] = source;
  r[11] = 255;
  const c = crc32Range(r, 0, 12);
  for (let i = 0; i < 4; i++) r[12 + i] = (c >>> (24 - 8 * i)) & 255;
  for (let s = 0; s < MARK_BLOCKS; s++) append(flash, s, r);
}

/**
 * The mark, as readMark gives it, after copying its record to the sector that lacks it (a write cut
 * between the two sectors, a lost sector): two copies again, so that one flipped bit cannot lower it.
 */
export function restoreMark(flash: Flash): number {
  const a = scanBlock(flash, 0);
  const b = scanBlock(flash, 1);
  if (a.max !== b.max) append(flash, a.max > b.max ? 1 : 0, (a.max > b.max ? a : b).rec!);
  return Math.max(a.max, b.max);
}

function append(flash: Flash, s: number, r: Uint8Array): void {
  const scan = scanBlock(flash, s);
  let at = scan.free;
  if (at < 0) {
    // The sector's highest record goes back first: the erase never leaves a sector with one mark only
    // (the Z before the last bounds the last Z's period). A cut before it: the other sector has both.
    const keep = scan.rec && scan.rec.slice();
    flash.eraseBlock(s);
    at = 0;
    if (keep) {
      flash.write(keep, s * flash.blockLength);
      at = REC;
    }
  }
  flash.write(r, s * flash.blockLength + at);
}

/** The highest valid record of sector `s` (its value and bytes), and where the next one goes (-1: full). */
function scanBlock(flash: Flash, s: number): { max: number; rec?: Uint8Array; free: number; values: number[] } {
  const bl = flash.blockLength;
  const b = flash.read(s * bl, bl);
  let max = 0;
  let rec: Uint8Array | undefined;
  let end = 0;
  const values: number[] = [];
  for (let o = 0; o + REC <= bl; o += REC) {
    let erased = 255;
    for (let i = 0; i < REC; i++) erased &= b[o + i];
    if (erased !== 255) end = o + REC;
    if (b[o] !== MAGIC[0] || b[o + 1] !== MAGIC[1] || b[o + 2] !== MAGIC[2] || b[o + 3] !== MAGIC[3]) continue;
    const crc = ((b[o + 12] << 24) | (b[o + 13] << 16) | (b[o + 14] << 8) | b[o + 15]) >>> 0;
    if (crc !== crc32Range(b, o, 12)) continue;
    const ms =
      ((b[o + 4] << 8) | b[o + 5]) * 0x100000000 +
      (((b[o + 6] << 24) | (b[o + 7] << 16) | (b[o + 8] << 8) | b[o + 9]) >>> 0);
    values.push(ms);
    if (ms > max) {
      max = ms;
      rec = b.subarray(o, o + REC);
    }
  }
  return { max, rec, free: end + REC <= bl ? end : -1, values };
}
