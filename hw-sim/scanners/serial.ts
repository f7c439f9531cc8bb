// A serial (UART) scanner: 8N1, so a byte takes 10 bit times; the UART hands bytes over in FIFO-sized
// chunks. Optional AIM prefix, a terminator, and line noise (seeded bit flips).
import type { Rng } from '../rng.ts';
import type { Delivery, Transmission } from './types.ts';
import { ScannerOptionError } from './types.ts';
import { latin1 } from './hid-pos.ts';

export const TERMINATORS = { cr: '\r', lf: '\n', crlf: '\r\n', tab: '\t', 'stx-etx': '\x03', none: '' } as const;
export type Terminator = keyof typeof TERMINATORS;

export interface SerialScanOptions {
  baud?: number;
  terminator?: Terminator;
  /** Prefix the AIM identifier `]Q1`. */
  aim?: boolean;
  /** Probability that a byte has one bit flipped on the line (0 … 1). */
  noise?: number;
  /** Bytes the UART delivers at once (default 16). */
  fifo?: number;
}

export const BAUDS = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600];

export function serialBytes(code: string, opts: SerialScanOptions = {}, rng?: Rng): Uint8Array {
  const term = opts.terminator ?? 'cr';
  if (!(term in TERMINATORS)) throw new ScannerOptionError(`unknown terminator '${term}'`);
  const text = (term === 'stx-etx' ? '\x02' : '') + (opts.aim ? ']Q1' : '') + code + TERMINATORS[term];
  const bytes = latin1(text);
  const noise = opts.noise ?? 0;
  if (!(noise >= 0 && noise <= 1)) throw new ScannerOptionError('noise must be from 0 to 1');
  if (noise > 0) {
    if (!rng) throw new ScannerOptionError('noise needs a seeded rng');
    for (let i = 0; i < bytes.length; i++) if (rng.next() < noise) bytes[i] ^= 1 << rng.int(8);
  }
  return bytes;
}

export function serialTransmit(code: string, opts: SerialScanOptions = {}, rng?: Rng): Transmission {
  const baud = opts.baud ?? 9600;
  if (!BAUDS.includes(baud)) throw new ScannerOptionError(`baud must be one of ${BAUDS.join(', ')}`);
  const fifo = opts.fifo ?? 16;
  if (!(Number.isInteger(fifo) && fifo >= 1 && fifo <= 4096))
    throw new ScannerOptionError('fifo must be from 1 to 4096');
  const bytes = serialBytes(code, opts, rng);
  const byteMs = 10_000 / baud;
  const deliveries: Delivery[] = [];
  for (let off = 0; off < bytes.length; off += fifo) {
    const end = Math.min(bytes.length, off + fifo);
    deliveries.push({ input: 'serial', t: end * byteMs, data: bytes.slice(off, end) });
  }
  return { via: 'serial', deliveries, durationMs: bytes.length * byteMs };
}
