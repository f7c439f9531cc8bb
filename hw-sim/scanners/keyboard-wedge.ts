// A keyboard-wedge scanner: it types the code as a USB boot keyboard (8-byte reports: modifiers,
// reserved, six key usages), one press report and one release report a character. The host's layout
// decides which usage gives which character, so the scanner is set to the same layout: `us`, `fr`
// (AZERTY), or `alt` (Alt + keypad decimal code, layout-independent).
import type { Delivery, Transmission } from './types.ts';
import { ScannerOptionError } from './types.ts';

export type Layout = 'us' | 'fr' | 'alt';
export type WedgeSuffix = 'enter' | 'tab' | 'none';

export interface WedgeOptions {
  layout?: Layout;
  /** Ms from one character's press to the next (default 2). */
  delay?: number;
  suffix?: WedgeSuffix;
}

const SHIFT = 0x02;
const ALT = 0x04;
const ENTER = 0x28;
const TAB = 0x2b;

/** [modifier, usage] for each character a layout can type. */
type KeyMap = Map<string, [number, number]>;

function letters(map: KeyMap, swaps: Record<string, string>): void {
  for (let i = 0; i < 26; i++) {
    const physical = String.fromCharCode(65 + i);
    const ch = swaps[physical] ?? physical;
    map.set(ch, [SHIFT, 0x04 + i]);
    map.set(ch.toLowerCase(), [0, 0x04 + i]);
  }
}

function usMap(): KeyMap {
  const m: KeyMap = new Map();
  letters(m, {});
  for (let d = 1; d <= 9; d++) m.set(String(d), [0, 0x1d + d]);
  m.set('0', [0, 0x27]);
  m.set(' ', [0, 0x2c]);
  m.set('$', [SHIFT, 0x21]);
  m.set('%', [SHIFT, 0x22]);
  m.set('*', [SHIFT, 0x25]);
  m.set('+', [SHIFT, 0x2e]);
  m.set('-', [0, 0x2d]);
  m.set('.', [0, 0x37]);
  m.set('/', [0, 0x38]);
  m.set(':', [SHIFT, 0x33]);
  m.set(']', [0, 0x30]);
  return m;
}

/** French AZERTY as a French host reads usages: digits need Shift, A↔Q and Z↔W swap, M is at ';'. */
function frMap(): KeyMap {
  const m: KeyMap = new Map();
  letters(m, { A: 'Q', Q: 'A', Z: 'W', W: 'Z', M: ',' });
  m.delete(',');
  m.set('M', [SHIFT, 0x33]);
  m.set('m', [0, 0x33]);
  for (let d = 1; d <= 9; d++) m.set(String(d), [SHIFT, 0x1d + d]);
  m.set('0', [SHIFT, 0x27]);
  m.set(' ', [0, 0x2c]);
  m.set('$', [0, 0x30]);
  m.set('%', [SHIFT, 0x34]);
  m.set('*', [0, 0x32]);
  m.set('+', [SHIFT, 0x2e]);
  m.set('-', [0, 0x23]);
  m.set('.', [SHIFT, 0x36]);
  m.set('/', [SHIFT, 0x37]);
  m.set(':', [0, 0x37]);
  return m;
}

export const LAYOUTS: Record<'us' | 'fr', KeyMap> = { us: usMap(), fr: frMap() };

const KEYPAD_DIGIT = (d: number) => (d === 0 ? 0x62 : 0x58 + d);

function report(mod: number, usage: number): Uint8Array {
  const r = new Uint8Array(8);
  r[0] = mod;
  r[2] = usage;
  return r;
}

/** The boot-keyboard reports that type `text` (press, release, …), without timing. */
export function keystrokes(text: string, layout: Layout = 'us'): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const ch of text) {
    if (layout === 'alt') {
      const code = ch.charCodeAt(0);
      if (code > 255) throw new ScannerOptionError(`cannot type '${ch}' with Alt codes`);
      for (const digit of String(code)) {
        out.push(report(ALT, KEYPAD_DIGIT(Number(digit))));
        out.push(report(ALT, 0));
      }
      out.push(report(0, 0));
      continue;
    }
    const key = LAYOUTS[layout].get(ch);
    if (!key) throw new ScannerOptionError(`layout ${layout} cannot type '${ch}'`);
    out.push(report(key[0], key[1]));
    out.push(report(0, 0));
  }
  return out;
}

export function wedgeTransmit(code: string, opts: WedgeOptions = {}): Transmission {
  const layout = opts.layout ?? 'us';
  if (layout !== 'us' && layout !== 'fr' && layout !== 'alt')
    throw new ScannerOptionError(`unknown layout '${layout}'`);
  const delay = opts.delay ?? 2;
  if (!(delay >= 0.5 && delay <= 1000)) throw new ScannerOptionError('delay must be from 0.5 to 1000 ms');
  const deliveries: Delivery[] = [];
  const suffix = opts.suffix ?? 'enter';
  const push = (r: Uint8Array, t: number) => deliveries.push({ input: 'hid-keyboard', t, data: r });
  let t = 0;
  for (const ch of code) {
    // Each character: its reports spread over `delay` (press, then release half-way).
    const reports = keystrokes(ch, layout);
    const step = delay / reports.length;
    reports.forEach((r, i) => push(r, t + i * step));
    t += delay;
  }
  if (suffix !== 'none') {
    push(report(0, suffix === 'enter' ? ENTER : TAB), t);
    push(report(0, 0), t + delay / 2);
    t += delay;
  }
  const last = deliveries.length > 0 ? deliveries[deliveries.length - 1].t : 0;
  return { via: 'hid-keyboard', deliveries, durationMs: last };
}
