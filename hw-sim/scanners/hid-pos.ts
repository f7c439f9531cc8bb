// A HID POS scanner (usage page 0x8C): 64-byte input reports. Byte 0 report id 2, byte 1 the count of
// data bytes in this report, bytes 2–4 the AIM symbology identifier (`]Q1` for QR), data in bytes 5–60,
// byte 63 bit 0 set when more reports of the same scan follow.
import type { Delivery, Transmission } from './types.ts';
import { ScannerOptionError } from './types.ts';

export const POS_REPORT_LENGTH = 64;
export const POS_REPORT_ID = 2;
export const POS_DATA_OFFSET = 5;
export const POS_DATA_MAX = 56;

export interface PosOptions {
  /** Ms between reports: the USB polling interval (default 1). */
  interval?: number;
  /** AIM symbology identifier, three characters (default `]Q1`). */
  aim?: string;
}

export function posReports(data: Uint8Array, aim = ']Q1'): Uint8Array[] {
  if (aim.length !== 3) throw new ScannerOptionError('aim must be three characters');
  const out: Uint8Array[] = [];
  for (let off = 0; off < data.length || out.length === 0; off += POS_DATA_MAX) {
    const chunk = data.subarray(off, off + POS_DATA_MAX);
    const r = new Uint8Array(POS_REPORT_LENGTH);
    r[0] = POS_REPORT_ID;
    r[1] = chunk.length;
    for (let i = 0; i < 3; i++) r[2 + i] = aim.charCodeAt(i) & 0xff;
    r.set(chunk, POS_DATA_OFFSET);
    if (off + POS_DATA_MAX < data.length) r[63] = 1;
    out.push(r);
  }
  return out;
}

export function posTransmit(code: string, opts: PosOptions = {}): Transmission {
  const interval = opts.interval ?? 1;
  if (!(interval >= 0.125 && interval <= 255)) throw new ScannerOptionError('interval must be from 0.125 to 255 ms');
  const bytes = latin1(code);
  const deliveries: Delivery[] = posReports(bytes, opts.aim).map((data, i) => ({
    input: 'hid-pos',
    t: i * interval,
    data,
  }));
  return { via: 'hid-pos', deliveries, durationMs: deliveries[deliveries.length - 1].t };
}

export function latin1(s: string): Uint8Array {
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i) & 0xff;
  return b;
}
