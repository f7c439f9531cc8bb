// What a scanner model produces: timed deliveries to one of the device's inputs.
import type { Frame } from '../../src/hal.ts';

export type Delivery =
  | { input: 'hid-keyboard'; t: number; data: Uint8Array }
  | { input: 'hid-pos'; t: number; data: Uint8Array }
  | { input: 'serial'; t: number; data: Uint8Array }
  | { input: 'camera'; t: number; frame: Frame };

/** One scan as sent by a scanner: deliveries at `t` ms after the trigger, in order. */
export interface Transmission {
  via: ScannerKind;
  deliveries: Delivery[];
  /** When the last delivery lands, ms after the trigger. */
  durationMs: number;
}

export const SCANNER_KINDS = ['hid-keyboard', 'hid-pos', 'serial', 'camera'] as const;
export type ScannerKind = (typeof SCANNER_KINDS)[number];

export class ScannerOptionError extends Error {}
