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
  DEV_SIGNED_DETAIL,
  checkSlot,
  devSigned,
  inactiveSlot,
  readBootState,
  trustedOptions,
  writeState,
  type BootedImage,
  type BootOptions,
  type NorChip,
  type Refusal,
  type Slot,
} from './bootloader.ts';
import {
  BOARD_ID,
  DEV_FIRMWARE_PUBLIC_KEY_HEX,
  HEADER_SIZE,
  manifestStatus,
  parseHeader,
  parseImage,
} from '../src/image/format.ts';
import { fromHex } from '../src/hex.ts';
import { equalBytes } from '../src/bytes.ts';
import { sha256 } from '@noble/hashes/sha2.js';
import { romPlatform } from './platform.ts';
import type { Verifier } from '../src/crypto/ed25519.ts';

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

export interface UpdateOptions {
  publicKey: Uint8Array;
  boardId: number;
  verify: Verifier;
  production: boolean;
}

/** The firmware key, board id and production flag: `boot` (tests) or the chip's provisioning. */
export function updateOptions(chip: NorChip, boot?: BootOptions): UpdateOptions {
  const t = trustedOptions(chip, boot);
  // Damaged provisioning: a key nothing verifies with (the bootloader refuses to boot too).
  const o = 'error' in t ? { publicKey: new Uint8Array(32) } : t;
  return {
    publicKey: o.publicKey ?? fromHex(DEV_FIRMWARE_PUBLIC_KEY_HEX),
    boardId: o.boardId ?? BOARD_ID,
    verify: o.verify ?? romPlatform().verify,
    production: o.production ?? false,
  };
}

export type ManifestCheck =
  { ok: true; hash: Uint8Array; hashHex: string; manifest: Manifest } | { ok: false; reason: string; detail: string };

/**
 * What an update's start checks before a byte of the image is written (the service port's BEGIN, a
 * campaign's download): the manifest (header, then the TLV area) of a `total`-byte image: sizes, board,
 * security counter, the Ed25519 signature of the SHA-256 by the firmware key, not development-signed on
 * a production device, and the inactive slot not running on trial.
 */
export function checkManifest(
  chip: NorChip,
  total: number,
  header: Uint8Array,
  tlv: Uint8Array,
  o: UpdateOptions,
  running: BootedImage | null,
): ManifestCheck {
  const refuse = (reason: string, detail: string) => ({ ok: false as const, reason, detail });
  const h = parseHeader(header);
  if ('error' in h) return refuse('malformed', h.error);
  if (total !== HEADER_SIZE + h.imageSize + tlv.length) return refuse('malformed', 'sizes in BEGIN do not add up');
  if (total > SLOT_SIZE) return refuse('too-large', `${total} bytes, a slot holds ${SLOT_SIZE}`);
  if (h.boardId !== o.boardId) {
    return refuse('board', `image for board 0x${h.boardId.toString(16)}, this is board 0x${o.boardId.toString(16)}`);
  }
  const min = readBootState(chip).minCounter;
  if (h.securityCounter < min)
    return refuse('rollback', `security counter ${h.securityCounter} below the device's ${min}`);
  // The manifest placed where it sits in the image, for parseImage; transient (the session keeps the hash).
  const buf = new Uint8Array(total);
  buf.set(header, 0);
  buf.set(tlv, total - tlv.length);
  const img = parseImage(buf);
  if ('error' in img) return refuse('malformed', img.error);
  if (o.production && devSigned(img, o.verify)) return refuse('signature', DEV_SIGNED_DETAIL);
  if (img.keyHash && !equalBytes(img.keyHash, sha256(o.publicKey)))
    return refuse('signature', 'signed by another key than the firmware key');
  if (!o.verify(img.signature, img.hash, o.publicKey))
    return refuse('signature', 'Ed25519 signature does not verify with the firmware key');
  // The hash's signature says nothing of this header (the bundle is not here to hash): the manifest's
  // does. A header forged around a genuine signed hash is refused here, before the journal or the
  // slot is touched; an image without one (built before it existed) is refused.
  const m = manifestStatus(img, o.publicKey, o.verify);
  if (m === 'absent')
    return refuse('manifest', 'no signed manifest (TLV 0xA0): an image built before 4 Dec 2026; sign it again');
  if (m === 'invalid')
    return refuse('signature', 'the manifest signature does not verify: this header is not the one signed');
  if (running && running.pendingConfirm && running.slot === inactiveSlot(chip)) {
    return refuse('busy', 'the running image is not confirmed yet; reset or let it confirm first');
  }
  const manifest: Manifest = { header: header.slice(), tlv: tlv.slice(), tlvAt: total - tlv.length };
  return { ok: true, hash: img.hash.slice(), hashHex: toHex(img.hash), manifest };
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

  /** The offset of the first chunk still missing, or -1 when every chunk is held. */
  nextMissing(): number {
    for (let i = 0; i < this.chunks; i++) if (!this.done[i]) return i * CHUNK;
    return -1;
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

/** What the ROM needs of the device for a download the firmware feeds. */
export interface UpdaterHost {
  chip: NorChip;
  boot?: BootOptions;
  running(): BootedImage | null;
  /** Resets the device: the bootloader then starts the finished image on trial. */
  reset(): void;
}

/**
 * The ROM's update service for the firmware (HAL `Updater`, docs/hal.md): an update campaign's image,
 * downloaded by the firmware chunk by chunk, goes through the same streaming writer as the service port
 * (journal on flash: a power cut resumes; FINISH checks the slot in place; the bootloader checks again at
 * the test boot). The firmware never writes a slot itself. Holds one chunk at a time (the caller's).
 */
export class RomUpdater {
  private w: SlotWriter | null = null;
  constructor(private readonly host: UpdaterHost) {}

  /** Checks the manifest (header and TLV area) and starts, or resumes, the update of that image. */
  begin(manifest: Uint8Array, size: number): { ok: boolean; reason?: string; detail?: string; next?: number } {
    const c = checkManifest(
      this.host.chip,
      size,
      manifest.subarray(0, HEADER_SIZE),
      manifest.subarray(HEADER_SIZE),
      updateOptions(this.host.chip, this.host.boot),
      this.host.running(),
    );
    if (!c.ok) {
      this.w = null;
      return c;
    }
    if (!this.w || toHex(this.w.hash) !== c.hashHex || this.w.size !== size)
      this.w = SlotWriter.begin(this.host.chip, c.hash, size, c.manifest);
    return { ok: true, next: this.w.nextMissing() };
  }

  /** Programs the chunk at `offset` (4 KiB, the last up to the end); the offset of the next missing one, -1 when all are held. */
  write(offset: number, data: Uint8Array): { ok: boolean; reason?: string; next?: number } {
    const w = this.w;
    if (!w) return { ok: false, reason: 'no-session' };
    const r = w.write(offset, data);
    return r === 'ok' ? { ok: true, next: w.nextMissing() } : { ok: false, reason: r };
  }

  /** Verifies the slot in place and marks it for one test boot. */
  finish(): { ok: boolean; reason?: string; detail?: string; version?: string } {
    const w = this.w;
    if (!w) return { ok: false, reason: 'no-session', detail: 'no update in progress' };
    const r = this.host.running();
    const res = w.finish(updateOptions(this.host.chip, this.host.boot), r && r.pendingConfirm ? r.slot : null);
    if (res.ok || res.reason !== 'incomplete') this.w = null;
    return res.ok ? { ok: true, version: res.version } : { ok: false, reason: res.reason, detail: res.detail };
  }

  /** Resets the device into the test boot of the finished image. */
  restart(): void {
    this.host.reset();
  }
}
