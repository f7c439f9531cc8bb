// Service protocol messages shared by the device (rom/service.ts) and the host (host/flash-client.ts).
// docs/service-protocol.md is the reference. Portable.
import { getU32LE, putU32LE } from '../bytes.ts';
import type { Payment } from '../ledger/format.ts';

/** 2: BEGIN needs the signed manifest (TLV 0xA0) and binds the session to it (WRITE status 5). */
export const PROTOCOL_VERSION = 2;

/** A half-open byte range [start, end). */
export type Range = [number, number];

/** Adds [a, b) to sorted, merged `ranges` (returns a new list). */
export function addRange(ranges: readonly Range[], a: number, b: number): Range[] {
  if (b <= a) return ranges.slice();
  const out: Range[] = [];
  let cur: Range = [a, b];
  let placed = false;
  for (const r of ranges) {
    if (r[1] < cur[0]) out.push(r);
    else if (r[0] > cur[1]) {
      if (!placed) {
        out.push(cur);
        placed = true;
      }
      out.push(r);
    } else cur = [Math.min(r[0], cur[0]), Math.max(r[1], cur[1])];
  }
  if (!placed) out.push(cur);
  return out;
}

/** The parts of [0, size) not covered by `ranges`. */
export function missingRanges(ranges: readonly Range[], size: number): Range[] {
  const out: Range[] = [];
  let at = 0;
  for (const [a, b] of ranges) {
    if (a > at) out.push([at, Math.min(a, size)]);
    at = Math.max(at, b);
  }
  if (at < size) out.push([at, size]);
  return out.filter(([a, b]) => b > a);
}

export function coveredBytes(ranges: readonly Range[]): number {
  let n = 0;
  for (const [a, b] of ranges) n += b - a;
  return n;
}

export function isRangeList(v: unknown): v is Range[] {
  return (
    Array.isArray(v) &&
    v.every((r) => Array.isArray(r) && r.length === 2 && Number.isInteger(r[0]) && Number.isInteger(r[1]))
  );
}

export interface SlotReport {
  slot: 'A' | 'B';
  /** 'empty': erased header; 'invalid': present but would not boot (see detail). */
  status: 'valid' | 'invalid' | 'empty';
  version?: string;
  boardId?: number;
  securityCounter?: number;
  hash?: string;
  size?: number;
  detail?: string;
}

export interface SessionReport {
  hash: string;
  size: number;
  /** At most MAX_REPORTED_RANGES ranges; `truncated` when the device holds more. */
  received: Range[];
  truncated?: boolean;
}

/** Replies list at most this many received ranges, so that IDENTIFY and STATUS stay small. */
export const MAX_REPORTED_RANGES = 64;

/** IDENTIFY response. */
export interface Identity {
  protocol: number;
  boardId: number;
  deviceId: string;
  /** The running image, null when the bootloader found none. */
  running: { slot: 'A' | 'B'; version: string; hash: string; pendingConfirm: boolean } | null;
  /** Anti-rollback: images below this security counter are refused. */
  securityCounter: number;
  confirmed: 'A' | 'B';
  trial: 'A' | 'B' | null;
  slots: SlotReport[];
  /** Largest WRITE data the device takes, and how many WRITEs may be in flight. */
  maxChunk: number;
  window: number;
  session: SessionReport | null;
  /** The device's provisioned trust anchors (absent from older devices). */
  trust?: TrustReport;
  /** The version of the operator notice on the device (0: none; absent from older devices). */
  notice?: number;
}

/** Which keys a device trusts (SHA-256 of each public key, hex) and whether it is a production device. */
export interface TrustReport {
  firmwareKeySha256: string;
  techKeySha256: string;
  production: boolean;
  /** False: nothing provisioned, the development keys are trusted. */
  provisioned: boolean;
}

/** BEGIN / STATUS / FINISH / REBOOT / ABORT responses. */
export type Reply<T = {}> = ({ ok: true } & T) | { ok: false; reason: string; detail: string };

/** CLOCK request: the technician's trusted time, ms since 1970 UTC. */
export interface ClockRequest {
  nowMs: number;
}

/** CLOCK reply: the mark on flash now (it only ever rises) and before. */
export interface ClockReply {
  markMs: number;
  previousMs: number;
}

export interface LedgerPage {
  total: number;
  entries: unknown[];
  /** Index to ask next, null at the end. */
  next: number | null;
}

/** WRITE acknowledgement (binary): status u8 · offset u32 · received-total u32. */
export const WRITE_OK = 0;
export const WRITE_NO_SESSION = 1;
export const WRITE_OUT_OF_RANGE = 2;
/** No authenticated session (CHALLENGE, AUTH first). */
export const WRITE_NOT_AUTHENTICATED = 3;
/** Not one whole chunk at a chunk boundary: refused at once, so a host cannot fragment the session. */
export const WRITE_UNALIGNED = 4;
/** The chunk's header or TLV bytes are not the ones BEGIN named (signed): nothing is programmed. */
export const WRITE_MISMATCH = 5;

export function u32le(n: number, out: Uint8Array = new Uint8Array(4), at = 0): Uint8Array {
  putU32LE(out, at, n);
  return out;
}

export function readU32le(b: Uint8Array, at: number): number {
  return getU32LE(b, at);
}

/** BEGIN payload: total size u32 · image header · TLV area (the signed manifest, no bundle). */
export function beginPayload(image: Uint8Array, signedLength: number, headerSize: number): Uint8Array {
  const tlv = image.subarray(signedLength);
  const out = new Uint8Array(4 + headerSize + tlv.length);
  u32le(image.length, out, 0);
  out.set(image.subarray(0, headerSize), 4);
  out.set(tlv, 4 + headerSize);
  return out;
}

export function writePayload(offset: number, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + data.length);
  u32le(offset, out, 0);
  out.set(data, 4);
  return out;
}

// --- binary LEDGER pages ------------------------------------------------------------------------
// Request: first index u32 · count u16 · 0x01 (binary). Without the last three bytes the device answers
// the JSON page above. Reply: 0x01 · total u32 · first u32 · n u16 · device ids (k u8, then k × (len u8 ·
// ASCII)) · n × 19-byte entries {emission u16, block u16, number u32, prizeEur u32, paidAtMs u48,
// device id index u8}, all little-endian.

export const LEDGER_BINARY = 1;
export const LEDGER_ENTRY_BYTES = 19;
/** Entries in a binary page: about 3.6 KB, within the largest frame. */
export const LEDGER_PAGE_ENTRIES = 190;

/** A binary page's entry: a ledger payment, as the device recorded it. */
export type LedgerEntry = Payment;

export function ledgerRequest(first: number, count: number): Uint8Array {
  const out = new Uint8Array(7);
  u32le(first, out, 0);
  out[4] = count & 0xff;
  out[5] = (count >>> 8) & 0xff;
  out[6] = LEDGER_BINARY;
  return out;
}

/** A binary page of `entries[first … first + count)`. */
export function encodeLedgerPage(entries: readonly LedgerEntry[], first: number, count: number): Uint8Array {
  const page = entries.slice(first, first + count);
  const ids: string[] = [];
  for (const e of page) if (!ids.includes(e.deviceId)) ids.push(e.deviceId);
  let idBytes = 1;
  for (const id of ids) idBytes += 1 + id.length;
  const out = new Uint8Array(11 + idBytes + page.length * LEDGER_ENTRY_BYTES);
  out[0] = LEDGER_BINARY;
  u32le(entries.length, out, 1);
  u32le(first, out, 5);
  out[9] = page.length & 0xff;
  out[10] = (page.length >>> 8) & 0xff;
  let o = 11;
  out[o++] = ids.length;
  for (const id of ids) {
    out[o++] = id.length;
    for (let i = 0; i < id.length; i++) out[o++] = id.charCodeAt(i) & 0x7f;
  }
  for (const e of page) {
    out[o] = e.emission & 0xff;
    out[o + 1] = (e.emission >>> 8) & 0xff;
    out[o + 2] = e.block & 0xff;
    out[o + 3] = (e.block >>> 8) & 0xff;
    u32le(e.number, out, o + 4);
    u32le(e.prizeEur, out, o + 8);
    const ms = e.paidAtMs;
    u32le(ms % 0x100000000, out, o + 12);
    const hi = Math.floor(ms / 0x100000000);
    out[o + 16] = hi & 0xff;
    out[o + 17] = (hi >>> 8) & 0xff;
    out[o + 18] = ids.indexOf(e.deviceId);
    o += LEDGER_ENTRY_BYTES;
  }
  return out;
}

/** Decodes a binary page; null when it is not one or does not add up. */
export function decodeLedgerPage(b: Uint8Array): { total: number; first: number; entries: LedgerEntry[] } | null {
  if (b.length < 12 || b[0] !== LEDGER_BINARY) return null;
  const total = readU32le(b, 1);
  const first = readU32le(b, 5);
  const n = b[9] | (b[10] << 8);
  let o = 11;
  const k = b[o++];
  const ids: string[] = [];
  for (let i = 0; i < k; i++) {
    if (o >= b.length) return null;
    const len = b[o++];
    if (o + len > b.length) return null;
    let s = '';
    for (let j = 0; j < len; j++) s += String.fromCharCode(b[o + j]);
    ids.push(s);
    o += len;
  }
  if (b.length !== o + n * LEDGER_ENTRY_BYTES) return null;
  const entries: LedgerEntry[] = [];
  for (let i = 0; i < n; i++, o += LEDGER_ENTRY_BYTES) {
    const dev = b[o + 18];
    if (dev >= ids.length) return null;
    entries.push({
      emission: b[o] | (b[o + 1] << 8),
      block: b[o + 2] | (b[o + 3] << 8),
      number: readU32le(b, o + 4),
      prizeEur: readU32le(b, o + 8),
      paidAtMs: readU32le(b, o + 12) + (b[o + 16] | (b[o + 17] << 8)) * 0x100000000,
      deviceId: ids[dev],
    });
  }
  return { total, first, entries };
}
