// Trusted time (docs/ledger.md, "Trusted time"): the mark, the RTC believed or not, the mark kept on
// flash, and the clerk asked when the RTC reads far ahead.
import type { Flash, Key } from '../../src/hal.ts';
import { MARK_KEYPAD, writeMark } from '../../src/ledger/index.ts';
import { plausible } from '../decide.ts';
import { BEEPS } from '../../src/signals.ts';
import { clockScreen } from '../screens.ts';
import { AppBase, DAY_MS, logMs } from './base.ts';
import { LOG_CLOCK_AHEAD, LOG_CLOCK_CONFIRMED, LOG_CLOCK_REFUSED } from '../../src/messages/log-codes.ts';

export abstract class Clock extends AppBase {
  protected marks!: Flash;
  /** Trusted time (docs/ledger.md): the mark, the monotonic clock reading then, the mark on flash. */
  protected mark = 0;
  protected markMono = 0;
  markStored = 0;
  /** An RTC reading far ahead that the clerk refused (C): not asked again until a reboot. */
  private clockRefused = false;

  /** Expired payments dropped (upkeep), after the clerk confirmed a clock. */
  protected abstract compactExpired(): void;

  /**
   * The time every decision uses: the RTC when it reads between the mark and the mark plus
   * `clockJumpDays`, else the mark plus the monotonic time since. Never earlier than a time used before.
   */
  trustedNow(): number {
    const base = this.mark + (this.mono.now() - this.markMono);
    const rtc = this.rtc.now();
    if (!(rtc >= base) || !this.clockOk(rtc)) return base;
    this.mark = rtc;
    this.markMono = this.mono.now();
    return rtc;
  }

  /** Whether an RTC reading not behind the mark may be believed (plausible, not a far jump). */
  protected clockOk(rtc: number): boolean {
    if (!plausible(rtc)) return false;
    // No mark yet (a fresh partition): measured from the latest claim deadline configured instead.
    let from = this.mark;
    if (from === 0) this.deadlines.forEach((d) => (from = Math.max(from, d || 0)));
    return from === 0 || rtc - from < this.config.clockJumpDays * DAY_MS;
  }

  /** Puts trusted time `ms` on flash (both mark sectors) if it is later than the mark there. */
  storeMark(ms: number, source?: number): void {
    if (ms <= this.markStored) return;
    writeMark(this.marks, ms, source);
    this.markStored = ms;
  }

  /**
   * Trusted time a day past the mark on flash goes there (a write a day at most): a reboot with the
   * clock set back must not bring back the time before it (a ticket expired since would be payable).
   */
  protected keepMark(now: number): void {
    if (now - this.markStored > DAY_MS) this.storeMark(now);
  }

  /** At boot or in the ready state: an RTC far ahead of trusted time asks the clerk. */
  protected clockPending(): boolean {
    const rtc = this.rtc.now();
    if (this.clockRefused || !plausible(rtc) || this.clockOk(rtc) || rtc < this.trustedNow()) return false;
    this.say(LOG_CLOCK_AHEAD, logMs(rtc), logMs(this.trustedNow()));
    this.display.show(clockScreen(this.lang, rtc));
    this.signal('refused');
    this.state = { kind: 'clock', rtcMs: rtc };
    return true;
  }

  /** OK: the RTC reading becomes the mark, on flash first; C: not believed until a reboot. */
  protected answerClock(k: Key, rtcMs: number): void {
    if (k === 'OK') {
      this.storeMark(rtcMs, MARK_KEYPAD);
      this.mark = rtcMs;
      this.markMono = this.mono.now();
      this.say(LOG_CLOCK_CONFIRMED, logMs(rtcMs));
      this.compactExpired();
    } else if (k === 'C') {
      this.clockRefused = true;
      this.say(LOG_CLOCK_REFUSED);
    } else return this.beeper.play(BEEPS.key);
    this.beeper.play(BEEPS.key);
    this.ready();
  }
}
