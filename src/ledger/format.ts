// On-flash layout of the paid-ticket ledger (docs/ledger.md): sector headers and fixed-size payment
// slots, each ending with a CRC-32. Portable.
import { crc32, crc32Range } from '../crc32.ts';
import { getU32BE, putU32BE } from '../bytes.ts';

/** A payment made at a till: which ticket, how much, when, on which device. */
export interface Payment {
  emission: number;
  block: number;
  number: number;
  prizeEur: number;
  /** Milliseconds since 1970-01-01T00:00:00Z. */
  paidAtMs: number;
  /** Printable ASCII, at most 16 characters. */
  deviceId: string;
}

/** The identity of a ticket within SAPHIR (game is implicit). */
export interface TicketKey {
  emission: number;
  block: number;
  number: number;
}

/** "SPLG" */
export const SECTOR_MAGIC = 0x53504c47;
export const FORMAT_VERSION = 1;
export const HEADER_SIZE = 16;
export const SLOT_SIZE = 40;
export const SLOT_TYPE_PAYMENT = 0xa5;
export const DEVICE_ID_MAX = 16;
/** CRC-32 of the type byte 0xA5 alone: a slot's CRC continues from it over bytes 1–35. */
const CRC_TYPE = crc32(Uint8Array.of(SLOT_TYPE_PAYMENT));
const MAX_MS = 2 ** 48 - 1;

/** Sector header: magic, version, slot size, 0xFFFF, sequence number, CRC-32 of the 12 bytes before. */
export function encodeHeader(seq: number): Uint8Array {
  const b = new Uint8Array(HEADER_SIZE);
  putU32BE(b, 0, SECTOR_MAGIC);
  b[4] = FORMAT_VERSION;
  b[5] = SLOT_SIZE;
  b[6] = 0xff;
  b[7] = 0xff;
  putU32BE(b, 8, seq);
  putU32BE(b, 12, crc32(b.subarray(0, 12)));
  return b;
}

/** The sequence number of a valid header at `o` in `b`, or -1. */
export function decodeHeader(b: Uint8Array, o = 0): number {
  if (getU32BE(b, o) !== SECTOR_MAGIC || b[o + 4] !== FORMAT_VERSION || b[o + 5] !== SLOT_SIZE) return -1;
  if (getU32BE(b, o + 12) !== crc32(b.subarray(o, o + 12))) return -1;
  return getU32BE(b, o + 8);
}

/** Why a payment cannot be stored, or null when it can. */
export function paymentProblem(p: Payment): string | null {
  if (p === null || typeof p !== 'object') return 'payment: not an object';
  const int = (v: unknown, max: number) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;
  if (!int(p.emission, 0xffff)) return 'payment: emission must be an integer 0…65535';
  if (!int(p.block, 0xffff)) return 'payment: block must be an integer 0…65535';
  if (!int(p.number, 0xffffffff)) return 'payment: ticket number must be an integer 0…4294967295';
  if (!int(p.prizeEur, 0xffffffff)) return 'payment: prizeEur must be a whole number of euros ≥ 0';
  if (!int(p.paidAtMs, MAX_MS)) return 'payment: paidAtMs must be an integer time in ms ≥ 0';
  if (typeof p.deviceId !== 'string' || p.deviceId.length > DEVICE_ID_MAX || !/^[\x20-\x7e]*$/.test(p.deviceId)) {
    return `payment: deviceId must be printable ASCII, at most ${DEVICE_ID_MAX} characters`;
  }
  return null;
}

/**
 * A 40-byte slot: type 0xA5 (the commit byte: a writer programs it last, apart), device id length, emission u16, block u16, number u32, prize u32,
 * paid-at u48 (ms), device id (16 bytes, zero padded), CRC-32 of bytes 0…35. Big-endian.
 */
export function encodePayment(p: Payment): Uint8Array {
  const b = new Uint8Array(SLOT_SIZE);
  b[0] = SLOT_TYPE_PAYMENT;
  b[1] = p.deviceId.length;
  b[2] = p.emission >> 8;
  b[3] = p.emission & 0xff;
  b[4] = p.block >> 8;
  b[5] = p.block & 0xff;
  putU32BE(b, 6, p.number);
  putU32BE(b, 10, p.prizeEur);
  const hi = Math.floor(p.paidAtMs / 0x100000000);
  b[14] = (hi >> 8) & 0xff;
  b[15] = hi & 0xff;
  putU32BE(b, 16, p.paidAtMs >>> 0);
  for (let i = 0; i < p.deviceId.length; i++) b[20 + i] = p.deviceId.charCodeAt(i);
  putU32BE(b, 36, crc32(b.subarray(0, 36)));
  return b;
}

/**
 * 'empty': erased (all 0xFF). 'torn': the type byte is erased, so the slot was never committed (a
 * write cut or failed before its commit; also a flipped bit in an erased slot): it holds nothing and
 * is no damage. 'ok': committed, with a device id length ≤ 16 and a CRC that holds, the type byte
 * counted as 0xA5 whatever of it reached flash (a cut commit, a flipped bit in it). 'bad': committed
 * and corrupted: damage.
 */
export function slotState(b: Uint8Array, o: number): 'empty' | 'torn' | 'bad' | 'ok' {
  if (b[o] !== 0xff && b[o + 1] <= DEVICE_ID_MAX && getU32BE(b, o + 36) === crc32Range(b, o + 1, 35, CRC_TYPE))
    return 'ok';
  let rest = 0xff;
  for (let i = 1; i < SLOT_SIZE; i++) rest &= b[o + i];
  return b[o] === 0xff ? (rest === 0xff ? 'empty' : 'torn') : rest === 0xff ? 'torn' : 'bad';
}

/** The key fields of a slot already known to be 'ok'. */
export function slotEmission(b: Uint8Array, o: number): number {
  return (b[o + 2] << 8) | b[o + 3];
}
export function slotBlock(b: Uint8Array, o: number): number {
  return (b[o + 4] << 8) | b[o + 5];
}
export function slotNumber(b: Uint8Array, o: number): number {
  return getU32BE(b, o + 6);
}

/** Decodes a slot already known to be 'ok'. */
export function decodePayment(b: Uint8Array, o: number): Payment {
  let deviceId = '';
  for (let i = 0; i < b[o + 1]; i++) deviceId += String.fromCharCode(b[o + 20 + i]);
  return {
    emission: slotEmission(b, o),
    block: slotBlock(b, o),
    number: slotNumber(b, o),
    prizeEur: getU32BE(b, o + 10),
    paidAtMs: ((b[o + 14] << 8) | b[o + 15]) * 0x100000000 + getU32BE(b, o + 16),
    deviceId,
  };
}
