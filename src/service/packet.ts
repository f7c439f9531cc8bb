// Service protocol packets (docs/service-protocol.md):
//   COBS( type u8 · seq u16 LE · payload · CRC-32 LE of type..payload ) 0x00
// Responses carry the request's type | 0x80 and its sequence number. Portable.
import { crc32 } from '../crc32.ts';
import { cobsDecode, cobsEncode } from './cobs.ts';
import { getU16LE, getU32LE, putU16LE, putU32LE } from '../bytes.ts';

export const CMD = {
  IDENTIFY: 0x01,
  BEGIN: 0x02,
  WRITE: 0x03,
  STATUS: 0x04,
  FINISH: 0x05,
  REBOOT: 0x06,
  LEDGER: 0x07,
  ABORT: 0x08,
  /** Asks for a fresh nonce (open). */
  CHALLENGE: 0x09,
  /** Answers the nonce: Ed25519 signature by a technician key (src/service/auth.ts). */
  AUTH: 0x0a,
  /** Raises the device's trusted-time mark (docs/ledger.md): a far RTC jump is then believed. */
  CLOCK: 0x0b,
  /** The device's offline payments as a sync request it signed for the fleet registry (docs/registry.md). */
  OUTBOX: 0x0c,
  /** The registry answered for these outbox slots: the device marks them heard. */
  OUTBOX_DONE: 0x0d,
  /** One sector of the check journal's partition, raw (src/journal.ts): `sector` u16 LE. */
  JOURNAL: 0x0e,
  /** A signed operator notice (src/notice.ts, its text) for the notice partition. */
  NOTICE: 0x0f,
} as const;
export const RESPONSE = 0x80;
/** Sent by the device for a request it cannot serve (unknown type, bad payload). JSON payload. */
export const ERROR = 0x7f;

/** Largest payload either side sends (a WRITE: 4-byte offset + 4096 bytes of image). */
export const MAX_PAYLOAD = 4 + 4096 + 64;
export const MAX_CHUNK = 4096;

export interface Packet {
  type: number;
  seq: number;
  payload: Uint8Array;
}

export function encodePacket(p: Packet): Uint8Array {
  const raw = new Uint8Array(3 + p.payload.length + 4);
  raw[0] = p.type;
  putU16LE(raw, 1, p.seq);
  raw.set(p.payload, 3);
  const c = crc32(raw.subarray(0, 3 + p.payload.length));
  const at = 3 + p.payload.length;
  putU32LE(raw, at, c);
  return cobsEncode(raw);
}

/** Decodes one frame's bytes (delimiter excluded); null when malformed or the CRC fails. */
export function decodePacket(frame: Uint8Array): Packet | null {
  const raw = cobsDecode(frame);
  if (!raw || raw.length < 7) return null;
  const at = raw.length - 4;
  if (getU32LE(raw, at) !== crc32(raw.subarray(0, at))) return null;
  return { type: raw[0], seq: getU16LE(raw, 1), payload: raw.subarray(3, at) };
}

/**
 * Splits a byte stream into packets. Garbage, cut or corrupted frames are counted and dropped; a frame
 * longer than any valid one is discarded up to the next delimiter.
 */
export class PacketReader {
  private buf: Uint8Array;
  private len = 0;
  private overflow = false;
  dropped = 0;

  constructor(
    private readonly onPacket: (p: Packet) => void,
    maxPayload = MAX_PAYLOAD,
  ) {
    this.buf = new Uint8Array(maxPayload + 7 + Math.ceil((maxPayload + 7) / 254) + 2);
  }

  push(bytes: Uint8Array): void {
    let start = 0;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] !== 0) continue;
      this.append(bytes.subarray(start, i));
      this.end();
      start = i + 1;
    }
    this.append(bytes.subarray(start));
  }

  private append(part: Uint8Array): void {
    if (this.overflow || part.length === 0) return;
    if (this.len + part.length > this.buf.length) {
      this.overflow = true;
      return;
    }
    this.buf.set(part, this.len);
    this.len += part.length;
  }

  private end(): void {
    const overflow = this.overflow;
    const frame = this.len > 0 && !overflow ? this.buf.slice(0, this.len) : null;
    // Reset before the callback: it may push more bytes (a synchronous peer).
    this.len = 0;
    this.overflow = false;
    if (overflow) this.dropped++;
    else if (frame) {
      const p = decodePacket(frame);
      if (p) this.onPacket(p);
      else this.dropped++;
    }
  }

  /** Forgets a partial frame (after a link reset). */
  reset(): void {
    this.len = 0;
    this.overflow = false;
  }
}
