// Service protocol messages shared by the device (hw-sim/service.ts) and the host (src/node/flash-client.ts).
// docs/service-protocol.md is the reference. Portable.

export const PROTOCOL_VERSION = 1;

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
  return Array.isArray(v) && v.every((r) => Array.isArray(r) && r.length === 2 && Number.isInteger(r[0]) && Number.isInteger(r[1]));
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

export function u32le(n: number, out: Uint8Array = new Uint8Array(4), at = 0): Uint8Array {
  out[at] = n & 0xff;
  out[at + 1] = (n >>> 8) & 0xff;
  out[at + 2] = (n >>> 16) & 0xff;
  out[at + 3] = (n >>> 24) & 0xff;
  return out;
}

export function readU32le(b: Uint8Array, at: number): number {
  return (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
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
