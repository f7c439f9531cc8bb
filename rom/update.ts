// The bootloader's streaming update (MCUboot style): an image goes straight into the inactive slot, one
// 4 KiB chunk (= one sector) at a time, and a journal on flash records which chunks are programmed, so a
// power cut during the transfer loses only the chunks in flight.
//
//   const w = SlotWriter.begin(chip, hash, size, { running });   // BEGIN, after the manifest checks
//   w.write(offset, data);   // WRITE: erase if needed, program, mark the chunk in the journal
//   w.eraseAhead();          // while the next chunks are on the line: erase the next 64 KiB block
//   w.finish(opts);          // FINISH: verify the slot in place, mark it for one test boot
//
// Journal (LAYOUT.updateJournal, one sector): a 64-byte head {magic, slot, size, SHA-256, CRC-32}, then one
// byte per chunk of the slot: 0x00 = programmed, anything else = not (a cut mid-mark leaves some bits set,
// read as not programmed). A chunk is marked only after its last page is programmed. The journal is only
// a shortcut: FINISH hashes the slot itself, so a stale or damaged journal can cost a re-send, never an
// unverified image; the bootloader (bootSelect) checks every image it starts anyway.
import { LAYOUT, SECTOR_SIZE } from './layout.ts';
import { crc32 } from '../src/crc32.ts';
import { toHex } from '../src/hex.ts';
import type { Range } from '../src/service/protocol.ts';
import {
  SLOTS,
  SLOT_NAMES,
  SLOT_SIZE,
  checkSlot,
  readBootState,
  writeState,
  type BootOptions,
  type NorChip,
  type Refusal,
  type Slot,
} from './bootloader.ts';

/** Bytes of one WRITE chunk: one flash sector, so a chunk is erased and programmed on its own. */
export const CHUNK = SECTOR_SIZE;
export const CHUNKS = SLOT_SIZE / CHUNK;
const BLOCK = 65536;
const PER_BLOCK = BLOCK / CHUNK;
const PAGE = 256;
const J = LAYOUT.updateJournal;
const J_MAGIC = 0x314a5055; // 'UPJ1'
/** Bytes of the journal head; chunk `i`'s mark is the byte at `J_HEAD + i`. */
export const J_HEAD = 64;
const DONE = 0x00;

export interface Journal {
  slot: Slot;
  size: number;
  hash: Uint8Array;
  /** One byte a chunk: 1 = programmed. */
  done: Uint8Array;
}

export function readJournal(chip: NorChip): Journal | null {
  const b = chip.read(J.offset, J_HEAD + CHUNKS);
  const dv = new DataView(b.buffer, b.byteOffset, J_HEAD);
  if (dv.getUint32(0, true) !== J_MAGIC || dv.getUint32(60, true) !== crc32(b.subarray(0, 60))) return null;
  const slot = b[4];
  const size = dv.getUint32(8, true);
  if (slot > 1 || size === 0 || size > SLOT_SIZE) return null;
  const done = new Uint8Array(CHUNKS);
  for (let i = 0; i < CHUNKS; i++) done[i] = b[J_HEAD + i] === DONE ? 1 : 0;
  return { slot: slot as Slot, size, hash: b.slice(12, 44), done };
}

function writeJournalHead(chip: NorChip, slot: Slot, size: number, hash: Uint8Array): void {
  clearJournal(chip); // usually already blank (FINISH cleared it): no erase then
  const b = new Uint8Array(J_HEAD);
  const dv = new DataView(b.buffer);
  dv.setUint32(0, J_MAGIC, true);
  b[4] = slot;
  dv.setUint32(8, size, true);
  b.set(hash.subarray(0, 32), 12);
  dv.setUint32(60, crc32(b.subarray(0, 60)), true);
  chip.program(J.offset, b);
}

/** Forgets the update in progress (erases the journal when it holds anything). */
export function clearJournal(chip: NorChip): void {
  const head = chip.read(J.offset, J_HEAD + CHUNKS);
  if (head.some((x) => x !== 0xff)) chip.eraseSector(J.offset);
}

/** The programmed chunks as sorted byte ranges of an image of `size` bytes (at most CHUNKS / 2 of them). */
export function doneRanges(done: Uint8Array, size: number): Range[] {
  const out: Range[] = [];
  for (let i = 0; i < CHUNKS && i * CHUNK < size; i++) {
    if (!done[i]) continue;
    const a = i * CHUNK;
    const b = Math.min(size, a + CHUNK);
    if (out.length && out[out.length - 1][1] === a) out[out.length - 1][1] = b;
    else out.push([a, b]);
  }
  return out;
}

export type WriteResult = 'ok' | 'unaligned' | 'out-of-range' | 'mismatch';

/** The signed parts of the image BEGIN named: its header (offset 0) and its TLV area (`tlvAt` on). */
export interface Manifest {
  header: Uint8Array;
  tlv: Uint8Array;
  tlvAt: number;
}
export type FinishResult =
  | { ok: true; slot: Slot; hashHex: string; version: string }
  | { ok: false; reason: Refusal | 'incomplete'; detail: string; missing?: Range[] };

export class SlotWriter {
  /** Sectors erased by this session and not programmed since (RAM: lost at a reset). */
  private readonly erased = new Uint8Array(CHUNKS);
  private readonly blockErased = new Uint8Array(CHUNKS / PER_BLOCK);
  private readonly chunks: number;

  private constructor(
    private readonly chip: NorChip,
    readonly slot: Slot,
    readonly size: number,
    readonly hash: Uint8Array,
    readonly done: Uint8Array,
    /** Bytes the device already held when this session began (resume). */
    readonly resumed: number,
    /** What every chunk must hold where it overlaps the header or the TLV area (BEGIN's, verified). */
    private readonly manifest: Manifest | null,
  ) {
    this.chunks = Math.ceil(size / CHUNK);
  }

  /**
   * BEGIN, once the manifest is checked: resumes the journal's update when it is this image for the
   * inactive slot; otherwise starts a new one (journal rewritten; the slot is erased as chunks come).
   * A trial pending for the inactive slot is dropped first: that slot is about to change.
   */
  static begin(chip: NorChip, hash: Uint8Array, size: number, manifest: Manifest | null = null): SlotWriter {
    const st = readBootState(chip);
    const slot: Slot = st.confirmed === 0 ? 1 : 0;
    if (st.trial === slot) writeState(chip, { trial: null, trialBooted: false });
    const j = readJournal(chip);
    if (j && j.slot === slot && j.size === size && toHex(j.hash) === toHex(hash)) {
      let n = 0;
      for (const [a, b] of doneRanges(j.done, size)) n += b - a;
      return new SlotWriter(chip, slot, size, hash, j.done, n, manifest);
    }
    writeJournalHead(chip, slot, size, hash);
    return new SlotWriter(chip, slot, size, hash, new Uint8Array(CHUNKS), 0, manifest);
  }

  received(): Range[] {
    return doneRanges(this.done, this.size);
  }

  /** Chunk `offset / CHUNK`, whole (the last one up to the image's end). A chunk already programmed is kept. */
  write(offset: number, data: Uint8Array): WriteResult {
    if (offset + data.length > this.size) return 'out-of-range';
    if (offset % CHUNK !== 0 || data.length !== Math.min(CHUNK, this.size - offset)) return 'unaligned';
    const i = offset / CHUNK;
    if (this.done[i]) return 'ok';
    if (this.manifest && !this.matches(offset, data)) return 'mismatch';
    const base = SLOTS[this.slot].offset;
    if (!this.erased[i]) this.eraseFor(i);
    this.erased[i] = 0;
    for (let o = 0; o < data.length; o += PAGE)
      this.chip.program(base + offset + o, data.subarray(o, Math.min(o + PAGE, data.length)));
    this.chip.program(J.offset + J_HEAD + i, new Uint8Array([DONE]));
    this.done[i] = 1;
    return 'ok';
  }

  /** The 64 KiB block holding the first chunk still missing (where BEGIN erases ahead), or -1. */
  firstMissingBlock(): number {
    for (let i = 0; i < this.chunks; i++) if (!this.done[i]) return Math.floor(i / PER_BLOCK);
    return -1;
  }

  /** The block after the one chunk `i` is in. */
  static nextBlock(i: number): number {
    return Math.floor(i / PER_BLOCK) + 1;
  }

  /**
   * Erases 64 KiB block `b` ahead of its chunks, when the image reaches it and nothing in it is kept;
   * true when it did. Called while the following chunks are on the line, so the erase costs no line time.
   */
  eraseAhead(b: number): boolean {
    if (b < 0 || b * PER_BLOCK >= this.chunks || this.blockErased[b] || !this.needsErase(b) || this.hasDone(b))
      return false;
    this.eraseBlock(b);
    return true;
  }

  /** Verifies the slot in place (SHA-256, signature, board, counter) and marks it for one test boot. */
  finish(o: BootOptions, running: Slot | null): FinishResult {
    const missing: Range[] = [];
    for (let i = 0; i < this.chunks; i++) {
      if (this.done[i]) continue;
      const a = i * CHUNK;
      const b = Math.min(this.size, a + CHUNK);
      if (missing.length && missing[missing.length - 1][1] === a) missing[missing.length - 1][1] = b;
      else missing.push([a, b]);
    }
    if (missing.length) {
      let n = 0;
      for (const [a, b] of missing) n += b - a;
      return { ok: false, reason: 'incomplete', detail: `${n} bytes missing`, missing };
    }
    if (running === this.slot) {
      return {
        ok: false,
        reason: 'busy',
        detail: `slot ${SLOT_NAMES[this.slot]} runs unconfirmed; confirm or reset first`,
      };
    }
    const st = readBootState(this.chip);
    const c = checkSlot(this.chip, this.slot, st.minCounter, o);
    const hashHex = toHex(this.hash);
    if (!c.ok || c.hashHex !== hashHex) {
      // What is in the slot is not the image: the next run starts over.
      clearJournal(this.chip);
      this.done.fill(0);
      return c.ok ? { ok: false, reason: 'hash', detail: `slot holds ${c.hashHex}, expected ${hashHex}` } : c;
    }
    writeState(this.chip, { trial: this.slot, trialBooted: false });
    clearJournal(this.chip);
    return { ok: true, slot: this.slot, hashHex, version: c.image.versionText };
  }

  /** Whether `data` at `offset` holds the signed header and TLV bytes where it overlaps them. */
  private matches(offset: number, data: Uint8Array): boolean {
    const m = this.manifest!;
    const same = (part: Uint8Array, at: number) => {
      const a = Math.max(offset, at);
      const b = Math.min(offset + data.length, at + part.length);
      for (let k = a; k < b; k++) if (data[k - offset] !== part[k - at]) return false;
      return true;
    };
    return same(m.header, 0) && same(m.tlv, m.tlvAt);
  }

  private needsErase(b: number): boolean {
    for (let i = b * PER_BLOCK; i < Math.min(this.chunks, (b + 1) * PER_BLOCK); i++)
      if (!this.done[i] && !this.erased[i]) return true;
    return false;
  }

  private hasDone(b: number): boolean {
    for (let i = b * PER_BLOCK; i < (b + 1) * PER_BLOCK; i++) if (this.done[i]) return true;
    return false;
  }

  /** Chunk `i` is about to be programmed: its whole block in one erase when nothing in it is kept, else its sector. */
  private eraseFor(i: number): void {
    const b = Math.floor(i / PER_BLOCK);
    if (!this.blockErased[b] && !this.hasDone(b)) return this.eraseBlock(b);
    this.chip.eraseSector(SLOTS[this.slot].offset + i * CHUNK);
    this.erased[i] = 1;
  }

  private eraseBlock(b: number): void {
    const base = SLOTS[this.slot].offset + b * BLOCK;
    if (this.chip.eraseBlock64) this.chip.eraseBlock64(base);
    else for (let k = 0; k < PER_BLOCK; k++) this.chip.eraseSector(base + k * CHUNK);
    this.blockErased[b] = 1;
    for (let i = b * PER_BLOCK; i < (b + 1) * PER_BLOCK; i++) this.erased[i] = 1;
  }
}
