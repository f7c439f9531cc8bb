// HID POS scanner reports (usage page 0x8C) → code texts.
// Report: [0] report ID 2, [1] data length, [2..4] AIM identifier, [5..60] data, [61] vendor code ID,
// [63] bit 0: the data continues in the next report. A host that strips the report ID gives 63 bytes.
// Transport around the data (an AIM identifier, CR, LF, Tab at the end) is removed: transport.ts.
import { DEFAULT_MAX_LENGTH, EventQueue, type InputEvent } from './event.ts';
import { unframe } from './transport.ts';

export interface HidPosOptions {
  /** A continued code whose next report does not come within this many ms is dropped. Default 1000. */
  interReportTimeoutMs?: number;
  maxLength?: number;
}

const REPORT_ID = 2;
const DATA_MAX = 56;

export class HidPosDecoder {
  private readonly timeoutMs: number;
  private readonly maxLength: number;
  private readonly queue = new EventQueue();
  private text = '';
  private pending = false;
  private discarding = false;
  private lastMs = 0;
  /** The AIM symbology identifier of the last code (`]Q1` for a QR code). */
  aim = '';

  constructor(options: HidPosOptions = {}) {
    this.timeoutMs = options.interReportTimeoutMs ?? 1000;
    this.maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
  }

  push(report: Uint8Array, nowMs: number): void {
    this.tick(nowMs);
    const o = report.length === 64 ? 0 : report.length === 63 ? -1 : NaN;
    if (o !== o || (o === 0 && report[0] !== REPORT_ID) || report[1 + o] > DATA_MAX) {
      // Mid-code, the rest of that code is discarded (until its last report, or the timeout).
      this.drop('bad-report', this.pending);
      return;
    }
    const n = report[1 + o];
    const first = !this.pending;
    this.pending = (report[63 + o] & 1) === 1;
    this.lastMs = nowMs;
    if (first) this.aim = String.fromCharCode(report[2 + o], report[3 + o], report[4 + o]).replace(/\0/g, '');
    if (!this.discarding) {
      if (this.text.length + n > this.maxLength) {
        this.drop('too-long', this.pending);
      } else {
        for (let i = 0; i < n; i++) this.text += String.fromCharCode(report[5 + o + i]);
      }
    }
    if (!this.pending) {
      if (!this.discarding) {
        // A scanner set to send its AIM identifier with the data puts it there too.
        const [, aim, t] = unframe(this.text);
        this.aim = this.aim || aim;
        if (t) this.queue.push({ type: 'code', text: t });
      }
      this.text = '';
      this.discarding = false;
    }
  }

  /** Drops a continued code whose next report is overdue. */
  tick(nowMs: number): void {
    if (!this.pending || nowMs - this.lastMs <= this.timeoutMs) return;
    if (this.discarding) this.discarding = this.pending = false;
    else this.drop('timeout', false);
  }

  read(): InputEvent | undefined {
    return this.queue.read();
  }

  private drop(reason: 'timeout' | 'too-long' | 'bad-report', discardRest: boolean): void {
    const partial = this.text;
    this.text = '';
    this.discarding = this.pending = discardRest;
    if (partial.length > 0 || reason === 'bad-report') this.queue.push({ type: 'dropped', reason, partial });
  }
}
