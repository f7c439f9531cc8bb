// The simulated device's ROM bootloader: A/B image slots on the NOR chip (rom/layout.ts), MCUboot
// semantics (test → confirm → revert), anti-rollback, power-cut-safe boot state.
//
// API for the simulator:
//   bootSelect(chip, opts?) → BootedImage | { error }   at every reset; never returns an image that fails
//       SHA-256, the firmware-key signature, the board id or the security counter. A `pendingConfirm`
//       image was started in test mode: call `confirm()` (HAL identity.confirm()) after the self-test,
//       otherwise the next bootSelect reverts to the previous image.
//   installImage(chip, bytes, opts?)   verifies a complete image and writes it to the inactive slot, then
//       marks it for one test boot; refusals change nothing on the chip.
//   provision(chip, bytes)             factory programming: slot A, confirmed (tests, simulator start).
//   bootInfo(chip, opts?)              boot state and both slots' summaries (service `identify`).
//   trustedOptions(chip, opts?)        the firmware key, board id and production flag provisioned in the
//       chip's write-once area (rom/provision.ts); bootSelect, installImage and bootInfo use them
//       unless `opts.publicKey` is given (tests).
//
// Boot state: 32-byte records, each with a sequence number and a CRC-32, appended to both sectors of
// `bootState` (two copies); the valid record with the highest sequence wins, and the security counter is
// the highest of any valid record. A cut mid-record leaves a bad CRC (ignored: the previous state holds);
// a sector is erased only when the other holds the newest record; a reset copies the newest record to
// a sector that lacks it.
import { LAYOUT, SECTOR_SIZE } from './layout.ts';
import { crc32 } from '../src/crc32.ts';
import {
  BOARD_ID,
  DEV_FIRMWARE_PUBLIC_KEY_HEX,
  HEADER_SIZE,
  parseHeader,
  verifyImage,
  type ParsedImage,
} from '../src/image/format.ts';
import { fromHex } from '../src/hex.ts';
import { equalBytes, isErased } from '../src/bytes.ts';
import type { SlotReport } from '../src/service/protocol.ts';
import type { Verifier } from '../src/crypto/ed25519.ts';
import { romPlatform } from './platform.ts';
import { sha256 } from '@noble/hashes/sha2.js';
import { readTrust } from './provision.ts';

/** What the bootloader needs of the NOR chip (whole-chip addresses). */
export interface NorChip {
  read(offset: number, length: number): Uint8Array;
  /** The same bytes without a copy, to compare and forget at once (an image is 100 KiB or more). */
  peek?(offset: number, length: number): Uint8Array;
  /** Clears bits only (result = old & new). */
  program(offset: number, bytes: Uint8Array): void;
  /** Erases the SECTOR_SIZE sector starting at `offset` to 0xFF. */
  eraseSector(offset: number): void;
  /** Erases the 64 KiB block starting at `offset` in one operation, when the chip has it. */
  eraseBlock64?(offset: number): void;
  /** The chip's busy time so far (ms, typical figures): what the service port paces its replies by. */
  busyMs?(): number;
}

export type Slot = 0 | 1;
export const SLOT_NAMES = ['A', 'B'] as const;
export const SLOTS = [LAYOUT.slotA, LAYOUT.slotB] as const;
export const SLOT_SIZE = LAYOUT.slotA.size;
const NONE = 0xff;
const PAGE = 256;

export interface BootOptions {
  publicKey?: Uint8Array;
  boardId?: number;
  verify?: Verifier;
  /** A production device refuses development-signed images, whatever key it trusts. */
  production?: boolean;
}

export interface BootState {
  seq: number;
  confirmed: Slot;
  /** Slot to start once in test mode, or null. */
  trial: Slot | null;
  /** The trial was started; a reset before confirm reverts it. */
  trialBooted: boolean;
  /** Anti-rollback: the lowest security counter the device accepts. */
  minCounter: number;
}

export interface BootedImage {
  slot: Slot;
  image: ParsedImage;
  bundle: Uint8Array;
  imageHash: string;
  version: string;
  securityCounter: number;
  pendingConfirm: boolean;
  /** Marks the running image good; no-op when already confirmed. */
  confirm(): void;
}

/** What the service protocol reports of a slot ('empty': erased header; 'invalid': would not boot). */
export type SlotSummary = SlotReport;

export type Refusal = 'malformed' | 'hash' | 'signature' | 'board' | 'rollback' | 'too-large' | 'busy' | 'flash';

// --- boot state records ---------------------------------------------------------------------------

const REC = 32;
const REC_MAGIC = 0x31545342; // 'BST1'
const STATE_SECTORS = LAYOUT.bootState.size / SECTOR_SIZE;
const RECS_PER_SECTOR = SECTOR_SIZE / REC;
const DEFAULT_STATE: BootState = { seq: 0, confirmed: 0, trial: null, trialBooted: false, minCounter: 0 };

interface StateScan {
  state: BootState;
  /** Each sector's highest valid sequence number (-1: none) and where its next record goes (null: full). */
  top: number[];
  next: (number | null)[];
}

function decodeRecord(b: Uint8Array): BootState | null {
  const dv = new DataView(b.buffer, b.byteOffset, REC);
  if (dv.getUint32(0, true) !== REC_MAGIC) return null;
  if (dv.getUint32(28, true) !== crc32(b.subarray(0, 28))) return null;
  const confirmed = b[8];
  const trial = b[9];
  if (confirmed > 1 || (trial > 1 && trial !== NONE) || b[10] > 1) return null;
  return {
    seq: dv.getUint32(4, true),
    confirmed: confirmed as Slot,
    trial: trial === NONE ? null : (trial as Slot),
    trialBooted: b[10] === 1,
    minCounter: dv.getUint32(12, true),
  };
}

function encodeRecord(s: BootState): Uint8Array {
  const b = new Uint8Array(REC);
  const dv = new DataView(b.buffer);
  dv.setUint32(0, REC_MAGIC, true);
  dv.setUint32(4, s.seq, true);
  b[8] = s.confirmed;
  b[9] = s.trial === null ? NONE : s.trial;
  b[10] = s.trialBooted ? 1 : 0;
  dv.setUint32(12, s.minCounter, true);
  dv.setUint32(28, crc32(b.subarray(0, 28)), true);
  return b;
}

// The newest valid record of either sector is the state; the security counter is the highest of every
// valid record, so losing the newest records (a lost sector, a flipped bit) never lowers it.
function scanState(chip: NorChip): StateScan {
  let best: BootState | null = null;
  let minCounter = 0;
  const top: number[] = [];
  const next: (number | null)[] = [];
  for (let s = 0; s < STATE_SECTORS; s++) {
    const data = chip.read(LAYOUT.bootState.offset + s * SECTOR_SIZE, SECTOR_SIZE);
    let last = -1;
    top.push(-1);
    for (let i = 0; i < RECS_PER_SECTOR; i++) {
      if (!isErased(data.subarray(i * REC, (i + 1) * REC))) last = i;
      if (data[i * REC] !== (REC_MAGIC & 0xff)) continue; // erased or torn: not a record
      const r = decodeRecord(data.subarray(i * REC, (i + 1) * REC));
      if (!r) continue;
      minCounter = Math.max(minCounter, r.minCounter);
      top[s] = Math.max(top[s], r.seq);
      if (!best || r.seq > best.seq) best = r;
    }
    next.push(last + 1 < RECS_PER_SECTOR ? last + 1 : null);
  }
  return { state: best ? { ...best, minCounter } : DEFAULT_STATE, top, next };
}

export function readBootState(chip: NorChip): BootState {
  return scanState(chip).state;
}

/**
 * Puts record `s` into every sector whose newest is older, the sector lacking it first: a full sector
 * is erased only when another one holds the newest record.
 */
function putState(chip: NorChip, scan: StateScan, s: BootState): void {
  const order = scan.top.map((_, i) => i).sort((a, b) => scan.top[a] - scan.top[b]);
  for (const sector of order) {
    if (scan.top[sector] >= s.seq) continue;
    let index = scan.next[sector];
    if (index === null) {
      chip.eraseSector(LAYOUT.bootState.offset + sector * SECTOR_SIZE);
      index = 0;
    }
    chip.program(LAYOUT.bootState.offset + sector * SECTOR_SIZE + index * REC, encodeRecord(s));
  }
}

/** Appends a new state record (sequence number = previous + 1) to both sectors. */
export function writeState(chip: NorChip, change: Partial<Omit<BootState, 'seq'>>): BootState {
  const scan = scanState(chip);
  const s: BootState = { ...scan.state, ...change, seq: scan.state.seq + 1 };
  putState(chip, scan, s);
  return s;
}

/** At reset: a sector whose newest record is older than the state (a cut, a lost sector, a flipped bit) gets it again. */
export function restoreState(chip: NorChip): void {
  const scan = scanState(chip);
  if (scan.state.seq > 0 && Math.min(...scan.top) < scan.state.seq) putState(chip, scan, scan.state);
}

// --- slots ----------------------------------------------------------------------------------------

function options(o: BootOptions): Required<BootOptions> {
  return {
    publicKey: o.publicKey ?? fromHex(DEV_FIRMWARE_PUBLIC_KEY_HEX),
    boardId: o.boardId ?? BOARD_ID,
    verify: o.verify ?? romPlatform().verify,
    production: o.production ?? false,
  };
}

/** The options of the device's provisioned trust anchors; `o.publicKey` given: `o` as is (tests). */
export function trustedOptions(chip: NorChip, o: BootOptions = {}): BootOptions | { error: string } {
  if (o.publicKey) return o;
  const t = readTrust(chip);
  if ('error' in t) return { error: `${t.error}: the device trusts no key` };
  return { boardId: t.boardId, production: t.production, ...o, publicKey: t.firmwareKey };
}

/** True when `image` was signed by the published development firmware key. */
export function devSigned(
  image: { keyHash?: Uint8Array; signature: Uint8Array; hash: Uint8Array },
  verify: Verifier = romPlatform().verify,
): boolean {
  const dev = fromHex(DEV_FIRMWARE_PUBLIC_KEY_HEX);
  if (image.keyHash) return equalBytes(image.keyHash, sha256(dev));
  return verify(image.signature, image.hash, dev);
}

export const DEV_SIGNED_DETAIL = 'development-signed image: this is a production device';

function readSlot(chip: NorChip, slot: Slot): Uint8Array | { error: string; empty: boolean } {
  const part = SLOTS[slot];
  const head = chip.read(part.offset, HEADER_SIZE);
  if (isErased(head)) return { error: 'empty slot', empty: true };
  const h = parseHeader(head);
  if ('error' in h) return { error: h.error, empty: false };
  if (HEADER_SIZE + h.imageSize + 4 > part.size) return { error: 'image larger than the slot', empty: false };
  const tlvHead = chip.read(part.offset + HEADER_SIZE + h.imageSize, 4);
  const tlvSize = tlvHead[2] | (tlvHead[3] << 8);
  const total = Math.min(part.size, HEADER_SIZE + h.imageSize + tlvSize);
  // Only checked and summarised here: verifiedImage keeps a copy of what it remembers.
  return chip.peek ? chip.peek(part.offset, total) : chip.read(part.offset, total);
}

type Checked = { ok: true; image: ParsedImage; hashHex: string } | { ok: false; reason: Refusal; detail: string };

const verified: { bytes: Uint8Array; key: Uint8Array; verify: unknown; exact: boolean; v: Verified }[] = [];
type Verified = ReturnType<typeof verifyImage>;

/**
 * verifyImage, remembering the last few answers: a simulated reset verifies the same slot's bytes again
 * (three times a boot, with the explorer's checks), and comparing the bytes costs far less than hashing
 * them and checking the signature. Same bytes, key, verifier and mode: the same answer.
 */
function verifiedImage(bytes: Uint8Array, key: Uint8Array, verify: unknown, exact: boolean): Verified {
  const same = romPlatform().sameBytes;
  for (const e of verified)
    if (e.verify === verify && e.exact === exact && same(e.key, key) && same(e.bytes, bytes)) return e.v;
  // The parsed image holds views into the bytes it was read from: a copy of our own, never changed.
  const own = bytes.slice();
  const v = verifyImage(own, key, { verify: verify as Verifier, exact });
  verified.unshift({ bytes: own, key: key.slice(), verify, exact, v });
  if (verified.length > 6) verified.pop();
  return v;
}

/** Every check the bootloader makes before starting or accepting an image. */
export function checkImage(bytes: Uint8Array, minCounter: number, o: BootOptions = {}, exact = true): Checked {
  const opt = options(o);
  if (bytes.length > SLOT_SIZE)
    return { ok: false, reason: 'too-large', detail: `${bytes.length} bytes, a slot holds ${SLOT_SIZE}` };
  const v = verifiedImage(bytes, opt.publicKey, opt.verify, exact);
  if (opt.production && v.image && devSigned(v.image, opt.verify))
    return { ok: false, reason: 'signature', detail: DEV_SIGNED_DETAIL };
  if (!v.ok) return { ok: false, reason: v.reason, detail: v.detail };
  const h = v.image.header;
  if (h.boardId !== opt.boardId) {
    return {
      ok: false,
      reason: 'board',
      detail: `image for board 0x${h.boardId.toString(16)}, this is board 0x${opt.boardId.toString(16)}`,
    };
  }
  if (h.securityCounter < minCounter) {
    return {
      ok: false,
      reason: 'rollback',
      detail: `security counter ${h.securityCounter} below the device's ${minCounter}`,
    };
  }
  return { ok: true, image: v.image, hashHex: v.hashHex };
}

export function checkSlot(chip: NorChip, slot: Slot, minCounter: number, o: BootOptions): Checked {
  const bytes = readSlot(chip, slot);
  if (!(bytes instanceof Uint8Array)) return { ok: false, reason: 'malformed', detail: bytes.error };
  return checkImage(bytes, minCounter, o);
}

function booted(chip: NorChip, slot: Slot, c: Extract<Checked, { ok: true }>, pending: boolean): BootedImage {
  const img: BootedImage = {
    slot,
    image: c.image,
    bundle: c.image.bundle,
    imageHash: c.hashHex,
    version: c.image.versionText,
    securityCounter: c.image.header.securityCounter,
    pendingConfirm: pending,
    confirm() {
      if (!img.pendingConfirm) return;
      const st = readBootState(chip);
      writeState(chip, {
        confirmed: slot,
        trial: null,
        trialBooted: false,
        minCounter: Math.max(st.minCounter, img.securityCounter),
      });
      img.pendingConfirm = false;
    },
  };
  return img;
}

/** At reset: picks, checks and returns the image to start. See the top of the file. */
export function bootSelect(chip: NorChip, opts: BootOptions = {}): BootedImage | { error: string } {
  const o = trustedOptions(chip, opts);
  if ('error' in o) return o;
  restoreState(chip);
  let st = readBootState(chip);
  if (st.trial !== null) {
    if (!st.trialBooted) {
      const c = checkSlot(chip, st.trial, st.minCounter, o);
      if (c.ok) {
        writeState(chip, { trialBooted: true });
        return booted(chip, st.trial, c, true);
      }
    }
    // Started once and never confirmed (or no longer valid): revert.
    st = writeState(chip, { trial: null, trialBooted: false });
  }
  const c = checkSlot(chip, st.confirmed, st.minCounter, o);
  if (c.ok) return booted(chip, st.confirmed, c, false);
  const other: Slot = st.confirmed === 0 ? 1 : 0;
  const f = checkSlot(chip, other, st.minCounter, o);
  if (f.ok) {
    writeState(chip, { confirmed: other });
    return booted(chip, other, f, false);
  }
  return {
    error: `no bootable image: slot ${SLOT_NAMES[st.confirmed]}: ${c.detail}; slot ${SLOT_NAMES[other]}: ${f.detail}`,
  };
}

/** The slot an update goes to: the one not confirmed. */
export function inactiveSlot(chip: NorChip): Slot {
  return readBootState(chip).confirmed === 0 ? 1 : 0;
}

export type InstallResult = { ok: true; slot: Slot; hashHex: string } | { ok: false; reason: Refusal; detail: string };

/**
 * Writes a complete image to the inactive slot and marks it for one test boot. Every check is made
 * before the first write, so a refusal leaves the chip as it was. `running` is the slot executing now
 * (an unconfirmed trial may not be overwritten).
 */
export function installImage(
  chip: NorChip,
  bytes: Uint8Array,
  opts: BootOptions & { running?: Slot | null } = {},
): InstallResult {
  const t = trustedOptions(chip, opts);
  if ('error' in t) return { ok: false, reason: 'signature', detail: t.error };
  const o = { ...t, running: opts.running };
  const st = readBootState(chip);
  const c = checkImage(bytes, st.minCounter, o);
  if (!c.ok) return c;
  const target: Slot = st.confirmed === 0 ? 1 : 0;
  if (o.running === target) {
    return { ok: false, reason: 'busy', detail: `slot ${SLOT_NAMES[target]} runs unconfirmed; confirm or reset first` };
  }
  if (st.trial !== null) writeState(chip, { trial: null, trialBooted: false });
  const part = SLOTS[target];
  for (let off = 0; off < bytes.length; off += SECTOR_SIZE) chip.eraseSector(part.offset + off);
  for (let off = 0; off < bytes.length; off += PAGE)
    chip.program(part.offset + off, bytes.subarray(off, Math.min(off + PAGE, bytes.length)));
  const back = checkSlot(chip, target, st.minCounter, o);
  if (!back.ok) return { ok: false, reason: 'flash', detail: `read-back check failed: ${back.detail}` };
  writeState(chip, { trial: target, trialBooted: false });
  return { ok: true, slot: target, hashHex: back.hashHex };
}

/** Factory programming: erases both slots and the boot state, writes `bytes` to slot A, confirmed. */
export function provision(chip: NorChip, bytes: Uint8Array, minCounter = 0): void {
  for (const p of [LAYOUT.slotA, LAYOUT.slotB, LAYOUT.bootState, LAYOUT.updateJournal]) {
    for (let off = 0; off < p.size; off += SECTOR_SIZE) chip.eraseSector(p.offset + off);
  }
  for (let off = 0; off < bytes.length; off += PAGE)
    chip.program(LAYOUT.slotA.offset + off, bytes.subarray(off, Math.min(off + PAGE, bytes.length)));
  writeState(chip, { confirmed: 0, trial: null, trialBooted: false, minCounter });
}

export function slotSummary(chip: NorChip, slot: Slot, o: BootOptions = {}): SlotSummary {
  const name = SLOT_NAMES[slot];
  const bytes = readSlot(chip, slot);
  if (!(bytes instanceof Uint8Array))
    return { slot: name, status: bytes.empty ? 'empty' : 'invalid', detail: bytes.error };
  const c = checkImage(bytes, 0, o);
  const h = parseHeader(bytes);
  const base: SlotSummary = { slot: name, status: c.ok ? 'valid' : 'invalid', size: bytes.length };
  if (!('error' in h)) {
    base.version =
      `${h.version.major}.${h.version.minor}.${h.version.patch}` + (h.version.build ? `+${h.version.build}` : '');
    base.boardId = h.boardId;
    base.securityCounter = h.securityCounter;
  }
  if (c.ok) base.hash = c.hashHex;
  else base.detail = c.detail;
  return base;
}

export interface BootInfo {
  state: BootState;
  slots: [SlotSummary, SlotSummary];
}

export function bootInfo(chip: NorChip, opts: BootOptions = {}): BootInfo {
  const t = trustedOptions(chip, opts);
  const o = 'error' in t ? { ...opts, publicKey: new Uint8Array(32) } : t;
  return { state: readBootState(chip), slots: [slotSummary(chip, 0, o), slotSummary(chip, 1, o)] };
}
