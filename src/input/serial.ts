// Serial scanner byte stream → code texts.
// A code ends with CR, LF, CRLF, Tab or ETX; STX starts one. Other control bytes (STX too), DEL and
// bytes ≥ 0x80 are line noise: between codes they are skipped, inside a code they drop it and reading
// restarts after them. An AIM identifier (`]` + 2 characters, transport.ts) and the configured prefix/suffix
// are stripped.
import { DEFAULT_MAX_LENGTH, EventQueue, type DropReason, type InputEvent } from './event.ts';
import { unframe } from './transport.ts';

export interface SerialDecoderOptions {
  /** Stripped from the start of a code when present. */
  prefix?: string;
  /** Stripped from the end of a code when present. */
  suffix?: string;
  /** Strip a leading AIM symbology identifier. Default true. */
  aim?: boolean;
  maxLength?: number;
  /** A partial code older than this (ms since its last byte) is dropped. Default 500. */
  interByteTimeoutMs?: number;
  /** Queue ACK (0x06) after each code and NAK (0x15) after each dropped one, for `reply()`. */
  ack?: boolean;
}

export const ACK = 0x06;
export const NAK = 0x15;
const ETX = 0x03;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

export class SerialDecoder {
  private readonly prefix: string;
  private readonly suffix: string;
  private readonly aimStrip: boolean;
  private readonly maxLength: number;
  private readonly timeoutMs: number;
  private readonly ackOn: boolean;
  private readonly queue = new EventQueue();
  private text = '';
  private discarding = false;
  private lastMs = 0;
  private replies: number[] = [];
  /** The AIM identifier stripped from the last code, or ''. */
  aim = '';

  constructor(options: SerialDecoderOptions = {}) {
    this.prefix = options.prefix || '';
    this.suffix = options.suffix || '';
    this.aimStrip = options.aim !== false;
    this.maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
    this.timeoutMs = options.interByteTimeoutMs ?? 500;
    this.ackOn = options.ack === true;
  }

  push(bytes: Uint8Array, nowMs: number): void {
    this.tick(nowMs);
    if (bytes.length > 0) this.lastMs = nowMs;
    let run = '';
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      if (b >= 0x20 && b < 0x7f) {
        // Printable: batch them (a string per byte is slow in a JIT-less engine).
        run += String.fromCharCode(b);
        continue;
      }
      if (run) this.append(run);
      run = '';
      if (b === CR || b === LF || b === TAB || b === ETX) this.end();
      else if (this.text.length > 0) this.drop('noise', false);
      else this.discarding = false;
    }
    if (run) this.append(run);
  }

  /** Drops a partial code whose last byte is older than the inter-byte timeout. */
  tick(nowMs: number): void {
    if (nowMs - this.lastMs <= this.timeoutMs) return;
    if (this.text.length > 0) this.drop('timeout', false);
    this.discarding = false;
  }

  read(): InputEvent | undefined {
    return this.queue.read();
  }

  /** Bytes to send back to the scanner (ACK/NAK), or undefined. */
  reply(): Uint8Array | undefined {
    if (this.replies.length === 0) return undefined;
    const r = new Uint8Array(this.replies);
    this.replies = [];
    return r;
  }

  private append(run: string): void {
    if (this.discarding) return;
    if (this.text.length + run.length > this.maxLength) {
      this.text += run.slice(0, this.maxLength - this.text.length);
      this.drop('too-long', true);
      return;
    }
    this.text += run;
  }

  private end(): void {
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    if (this.text.length === 0) return;
    let t = this.text;
    this.text = '';
    t = this.strip(t);
    this.aim = '';
    if (this.aimStrip) {
      [, this.aim, t] = unframe(t);
      if (this.aim) t = this.strip(t);
    }
    if (this.suffix && t.endsWith(this.suffix)) {
      t = t.slice(0, t.length - this.suffix.length);
    }
    if (t.length === 0) return;
    this.queue.push({ type: 'code', text: t });
    if (this.ackOn && this.replies.length < 64) this.replies.push(ACK);
  }

  private strip(t: string): string {
    return this.prefix && t.startsWith(this.prefix) ? t.slice(this.prefix.length) : t;
  }

  private drop(reason: DropReason, discardRest: boolean): void {
    this.queue.push({ type: 'dropped', reason, partial: this.text });
    this.text = '';
    this.discarding = discardRest;
    if (this.ackOn && this.replies.length < 64) this.replies.push(NAK);
  }
}
