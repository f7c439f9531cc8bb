// HID boot-keyboard reports (the "keyboard wedge" scanner mode) → code texts.
// A key press is a usage present in a report and absent from the previous one (rollover-safe).
// Keystrokes are kept raw until Enter/Tab so the `auto` layout can be chosen from the `SPH1:` keys.
import { BASE45_ALPHABET } from '../sph1/base45.ts';
import { DEFAULT_MAX_LENGTH, EventQueue, type InputEvent } from './event.ts';
import { unframe } from './transport.ts';

export type KeyboardLayout = 'us' | 'fr';

export interface KeyboardWedgeOptions {
  layout?: KeyboardLayout | 'auto';
  /** A partial code older than this (ms since its last key) is dropped. Default 1000. */
  interKeyTimeoutMs?: number;
  maxLength?: number;
}

// Characters of usages 0x04…0x38, unshifted then shifted; '\0' = no character.
const TABLES: Record<KeyboardLayout, [string, string]> = {
  us: [
    "abcdefghijklmnopqrstuvwxyz1234567890\0\0\0\0 -=[]\\\\;'`,./",
    'ABCDEFGHIJKLMNOPQRSTUVWXYZ!@#$%^&*()\0\0\0\0 _+{}||:"~<>?',
  ],
  fr: [
    'qbcdefghijkl,noparstuvzxyw&\u00e9"\'(-\u00e8_\u00e7\u00e0\0\0\0\0 )=^$**m\u00f9\u00b2;:!',
    'QBCDEFGHIJKL?NOPARSTUVZXYW1234567890\0\0\0\0 \u00b0+\u00a8\u00a3\u00b5\u00b5M%\0./\u00a7',
  ],
};
// French AltGr characters: usage → character.
const FR_ALTGR: Record<number, string> = {
  0x08: '\u20ac',
  0x1f: '~',
  0x20: '#',
  0x21: '{',
  0x22: '[',
  0x23: '|',
  0x24: '`',
  0x25: '\\',
  0x26: '^',
  0x27: '@',
  0x2d: ']',
  0x2e: '}',
  0x30: '\u00a4',
};
// Keypad 0x54…0x63 with Num Lock on: / * - + Enter 1…9 0 .
const KEYPAD = '/*-+\n1234567890.';

const ENTER = 0x28;
const TAB = 0x2b;
const KP_ENTER = 0x58;
const CAPS_LOCK = 0x39;
const ERROR_ROLLOVER = 0x01;
const CTRL = 0x11;
const SHIFT = 0x22;
const LALT = 0x04;
const RALT = 0x40;
const GUI = 0x88;

// Raw keystroke: usage | flags; an Alt+numpad character is CHAR | its code.
const K_SHIFT = 0x100;
const K_ALTGR = 0x200;
const K_CAPS = 0x400;
const CHAR = 0x10000;

function isTerminator(usage: number): boolean {
  return usage === ENTER || usage === TAB || usage === KP_ENTER;
}

/** The character of one raw keystroke in `layout`, or '' when it types none. */
export function keyChar(layout: KeyboardLayout, k: number): string {
  if (k >= CHAR) return String.fromCharCode(k & 0xff);
  const usage = k & 0xff;
  if (usage >= 0x54 && usage <= 0x63) return KEYPAD[usage - 0x54] === '\n' ? '' : KEYPAD[usage - 0x54];
  if (k & K_ALTGR) return layout === 'fr' ? FR_ALTGR[usage] || '' : '';
  if (usage < 0x04 || usage > 0x38) return '';
  const t = TABLES[layout];
  let shift = (k & K_SHIFT) !== 0;
  // Caps Lock inverts Shift on letters only (the digit row of AZERTY is not locked).
  if (k & K_CAPS && /[a-z]/.test(t[0][usage - 4])) shift = !shift;
  const c = t[shift ? 1 : 0][usage - 4];
  return c === '\0' ? '' : c;
}

function textOf(layout: KeyboardLayout, keys: readonly number[]): string {
  let s = '';
  for (let i = 0; i < keys.length; i++) s += keyChar(layout, keys[i]);
  return s;
}

function base45Count(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (BASE45_ALPHABET.indexOf(s[i]) >= 0) n++;
  return n;
}

export class KeyboardWedgeDecoder {
  private readonly layout: KeyboardLayout | 'auto';
  private readonly timeoutMs: number;
  private readonly maxLength: number;
  private readonly queue = new EventQueue();
  private prev: number[] = [];
  private keys: number[] = [];
  private lastMs = 0;
  private caps = false;
  private discarding = false;
  private altCode = -1;
  /** The layout `auto` chose for the last code (or the fixed layout). */
  detected: KeyboardLayout;

  constructor(options: KeyboardWedgeOptions = {}) {
    this.layout = options.layout || 'auto';
    this.timeoutMs = options.interKeyTimeoutMs ?? 1000;
    this.maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
    this.detected = this.layout === 'fr' ? 'fr' : 'us';
  }

  /**
   * One input report: modifier byte, reserved byte, up to 6 key usages (8 bytes on a boot keyboard).
   * A 9-byte report is taken as one with its report ID in front (composite devices, hidraw).
   */
  push(report: Uint8Array, nowMs: number): void {
    this.tick(nowMs);
    if (report.length === 9) report = report.subarray(1);
    if (report.length < 3 || report.length > 64) return this.drop('bad-report');
    const mods = report[0];
    const now: number[] = [];
    for (let i = 2; i < report.length; i++) {
      const u = report[i];
      if (u === ERROR_ROLLOVER) {
        // Phantom state: the keyboard lost keys; the previous state stays the reference.
        return this.drop('bad-report');
      }
      if (u > ERROR_ROLLOVER && u !== 0x02 && u !== 0x03 && now.indexOf(u) < 0) now.push(u);
    }
    const alt = this.altHeld(mods);
    if (this.altCode >= 0 && !alt) {
      const c = this.altCode & 0xff;
      this.altCode = -1;
      if (c === 9 || c === 10 || c === 13) this.terminate();
      else if (c !== 0) this.key(CHAR | c, nowMs);
    }
    for (const u of now) {
      if (this.prev.indexOf(u) >= 0) continue;
      // any press (Alt+numpad digits too) keeps a partial code alive
      if (this.keys.length > 0 || this.discarding) this.lastMs = nowMs;
      if (u === CAPS_LOCK) {
        this.caps = !this.caps;
      } else if (alt && u >= 0x59 && u <= 0x62) {
        const digit = u === 0x62 ? 0 : u - 0x58;
        this.altCode = Math.min(0xffff, (this.altCode < 0 ? 0 : this.altCode * 10) + digit);
      } else if (isTerminator(u)) {
        if (!alt && !(mods & (CTRL | GUI))) this.terminate();
      } else if (!alt && !(mods & GUI) && (!(mods & CTRL) || this.altGr(mods))) {
        let k = u;
        if (mods & SHIFT) k |= K_SHIFT;
        if (this.altGr(mods)) k |= K_ALTGR;
        if (this.caps) k |= K_CAPS;
        this.key(k, nowMs);
      }
    }
    this.prev = now;
  }

  /** Drops a partial code whose last key is older than the inter-key timeout. */
  tick(nowMs: number): void {
    if (nowMs - this.lastMs <= this.timeoutMs) return;
    if (this.keys.length > 0) this.drop('timeout');
    this.discarding = false;
  }

  read(): InputEvent | undefined {
    return this.queue.read();
  }

  /** Alt for Alt+numpad: left Alt, or right Alt where it is not AltGr (us). */
  private altHeld(mods: number): boolean {
    if (this.altGr(mods)) return false;
    return (mods & LALT) !== 0 || (this.layout === 'us' && (mods & RALT) !== 0);
  }

  private altGr(mods: number): boolean {
    if (this.layout === 'us') return false;
    // AltGr is right Alt; Windows also sends it as Ctrl+Alt.
    return (mods & RALT) !== 0 || ((mods & LALT) !== 0 && (mods & CTRL) !== 0);
  }

  private key(k: number, nowMs: number): void {
    this.lastMs = nowMs;
    if (this.discarding) return;
    if (this.keys.length >= this.maxLength) {
      this.drop('too-long');
      this.discarding = true;
      return;
    }
    this.keys.push(k);
  }

  private pickLayout(): KeyboardLayout {
    if (this.layout !== 'auto') return this.layout;
    const head = this.keys.slice(0, 5);
    const us = textOf('us', head);
    const fr = textOf('fr', head);
    if (us === 'SPH1:' && fr !== 'SPH1:') return 'us';
    if (fr === 'SPH1:' && us !== 'SPH1:') return 'fr';
    if (us !== 'SPH1:') {
      const a = base45Count(textOf('us', this.keys));
      const b = base45Count(textOf('fr', this.keys));
      if (a !== b) return a > b ? 'us' : 'fr';
    }
    return this.detected;
  }

  private terminate(): void {
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    if (this.keys.length === 0) return;
    this.detected = this.pickLayout();
    const text = unframe(textOf(this.detected, this.keys))[2];
    this.keys = [];
    if (text.length > 0) this.queue.push({ type: 'code', text });
  }

  private drop(reason: 'timeout' | 'too-long' | 'bad-report'): void {
    const partial = textOf(this.pickLayout(), this.keys);
    this.keys = [];
    this.altCode = -1;
    if (partial.length > 0 || reason === 'bad-report') this.queue.push({ type: 'dropped', reason, partial });
  }
}
