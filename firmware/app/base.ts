// What every part of the application shares (firmware/app.ts and its jobs in firmware/app/): the
// device's peripherals, the configuration, the ledger, the state, the guard around every entry point.
// The jobs are layered classes, each in its own module: base → clock → upkeep → screens → registry →
// inputs → App (firmware/app.ts); a job calls a later one through an abstract declaration.
import type { Beeper, Device, Led, Log, MonotonicClock, RealTimeClock, TextDisplay, Watchdog } from '../../src/hal.ts';
import type { MirroredLedger } from '../../src/ledger/index.ts';
import type { Config } from '../../src/config.ts';
import type { Verdict } from '../decide.ts';
import type { Deadline } from '../deadline.ts';
import { BEEPS, LEDS, type Signal } from '../../src/signals.ts';
import { errorScreen } from '../screens.ts';
import { LOG_ERROR, LOG_SEP } from '../../src/messages/log-codes.ts';

/** The idle loop period: watchdog kick, decoder timeouts, screen timeouts. */
export const TICK_MS = 100;
export const WATCHDOG_MS = 5000;
export const DAY_MS = 86400000;
/** A time in the log, in whole ms: a clock may read a fraction, whose last digit engines print differently (XS). */
export const logMs = (ms: number) => Math.floor(ms);

export type State =
  | { kind: 'boot' }
  | { kind: 'ready' }
  | { kind: 'shown'; until: number }
  | { kind: 'await-pay'; verdict: Extract<Verdict, { kind: 'win' }>; code: string; until: number }
  /** OK pressed on a win from `confirmFromEur`: a second OK confirms the cash is counted. */
  | { kind: 'confirm'; verdict: Extract<Verdict, { kind: 'win' }>; code: string; until: number }
  /** OK pressed with a registry configured: waiting for its answer before paying. */
  | { kind: 'claiming'; verdict: Extract<Verdict, { kind: 'win' }>; code: string; until: number }
  /** The RTC reads far ahead of the trusted time: OK believes it, C does not. */
  | { kind: 'clock'; rtcMs: number }
  /** 2 then OK on the ready screen: OK again closes the period with a Z report. */
  | { kind: 'close-z'; until: number }
  /** Boot failed: the app shows why and does nothing else (the image is not confirmed). */
  | { kind: 'halted' };

export abstract class AppBase {
  state: State = { kind: 'boot' };
  config!: Config;
  display!: TextDisplay;
  protected beeper!: Beeper;
  protected led!: Led;
  protected log!: Log;
  protected rtc!: RealTimeClock;
  mono!: MonotonicClock;
  protected watchdog!: Watchdog;
  ledger!: MirroredLedger;
  /** Emission → end of its claim period; null: on sale, no deadline yet (firmware/deadline.ts). */
  protected deadlines = new Map<number, Deadline>();
  /** Emission → when it goes on sale (ms), from the notice: none of its tickets is paid before. */
  protected sales = new Map<number, number>();
  deviceId = '';
  /** Counts for diagnostics. */
  readonly stats = { scans: 0, payments: 0, errors: 0 };

  // Public members: the registry link (compiled apart, firmware/registry/link.ts) uses them (`LinkHost`).
  constructor(readonly dev: Device) {}

  /** The ready screen, or the clock question (screens). */
  abstract ready(): void;

  get lang() {
    return this.config ? this.config.lang : 'fr';
  }

  protected signal(s: Signal): void {
    this.beeper.play(BEEPS[s]);
    this.led.set(LEDS[s]);
  }

  /**
   * A log line as its code and arguments (src/messages/log-codes.ts): the host that reads the log puts it
   * in words (src/messages/log.ts), so the firmware carries no log text.
   */
  say(code: number, ...args: unknown[]): void {
    this.log.write(LOG_SEP + [code, ...args].map(String).join(LOG_SEP));
  }

  /** Runs `f`; an exception is logged, shown, and the app goes back to ready after the verdict time. */
  guard(f: () => void): void {
    try {
      f();
    } catch (e) {
      this.stats.errors++;
      try {
        this.say(LOG_ERROR, messageOf(e));
        if (this.display) {
          this.display.show(errorScreen(this.lang, messageOf(e)));
          this.signal('error');
        }
        if (this.state.kind !== 'halted' && this.state.kind !== 'boot' && this.mono) {
          this.state = { kind: 'shown', until: this.mono.now() + (this.config ? this.config.verdictMs : 5000) };
        } else if (this.state.kind === 'boot') this.state = { kind: 'halted' };
      } catch {
        // The display or log itself failed: nothing more to do here; the watchdog stays fed by tick.
      }
    }
  }
}

export function messageOf(e: unknown): string {
  return e && typeof e === 'object' && 'message' in e ? String((e as Error).message) : String(e);
}
