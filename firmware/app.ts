// The device application: boot, scan → verdict, pay, and back to ready. Talks to the world only
// through the HAL Device it is given. Every entry point (input callbacks, the tick) is guarded: an
// exception is logged, shown, and the app returns to ready.
import type {
  Beeper,
  Device,
  DeviceKey,
  Flash,
  Input,
  Key,
  Led,
  Log,
  MonotonicClock,
  Network,
  NetworkResponse,
  Printer,
  RealTimeClock,
  TextDisplay,
  Timers,
  Watchdog,
} from '../src/hal.ts';
import { checkCode } from '../src/sph1/check.ts';
import { deviceVerify, prepareVerify } from './verify.ts';
import { provisionedKeys } from './trust.ts';
import { fromHex, toHex } from '../src/hex.ts';
import { utf8Encode } from '../src/utf8.ts';
import { Outbox, type OutboxEntry } from '../src/registry/outbox.ts';
import {
  answerText,
  signedBytes,
  type PaymentResult,
  type RegistryRequest,
  type TicketRef,
} from '../src/registry/protocol.ts';
import type { KeyRing } from '../src/sph1/keys.ts';
import type { TicketId } from '../src/sph1/body.ts';
import { TEST_PUBLIC_KEY_HEX } from '../src/sph1/keys.ts';
import { SerialDecoder } from '../src/input/serial.ts';
import { KeyboardWedgeDecoder } from '../src/input/keyboard.ts';
import { HidPosDecoder } from '../src/input/hid-pos.ts';
import type { InputEvent } from '../src/input/event.ts';
import {
  LedgerError,
  MARK_KEYPAD,
  MARK_Z,
  MirroredLedger,
  markView,
  restoreMark,
  writeMark,
} from '../src/ledger/index.ts';
import { Journal, type JournalKind } from '../src/journal.ts';
import { REASONS } from '../src/sph1/check.ts';
import { parisDate, parisMidnightUtc } from '../src/claim.ts';
import { loadConfig, keyRingOf, type Config } from '../src/config.ts';
import { atOk, decide, plausible, recordRefused, withheld, type Verdict } from './decide.ts';
import { deadlines } from './deadline.ts';
import { BEEPS, LEDS, type Signal } from '../src/signals.ts';
import {
  TEXT,
  bootScreen,
  cancelledScreen,
  checkingScreen,
  clockScreen,
  closeZScreen,
  reportScreen,
  confirmCashScreen,
  errorScreen,
  paidScreen,
  payLaterScreen,
  readyScreen,
  ticketLine,
  verdictScreen,
} from './screens.ts';
import { newFrameDecoder, type FrameDecoder } from './camera.ts';
import { escpos, type ReceiptLine } from '../src/print/escpos.ts';
import { claimSlip, duplicate, paymentReceipt } from './receipt.ts';
import { counterReport } from './counter.ts';
import { PRODUCTION, VERSION } from './build-info.ts';

/** The idle loop period: watchdog kick, decoder timeouts, screen timeouts. */
export const TICK_MS = 100;
export const WATCHDOG_MS = 5000;
/** A time in the log, in whole ms: a clock may read a fraction, whose last digit engines print differently (XS). */
const logMs = (ms: number) => Math.floor(ms);
/** Offline payments pushed in one sync request. */
const SYNC_BATCH = 20;
/** The same code seen again by the camera within this time is the same ticket still in view. */
const CAMERA_REPEAT_MS = 3000;
const DAY_MS = 86400000;

// Boot self-test: the test key's signature of "SAPHIR-SELFTEST-V1" (checks the Ed25519 path works).
const SELFTEST_MSG = 'SAPHIR-SELFTEST-V1';
const SELFTEST_SIG =
  'c3cbc1211c18cde1daa109914318f56c5f9923987eb30cc71b69830ee5abd8c11a4c5d5515b34ec60bca6c1a93eb7dbe4a8500c53bac3512833337a5a1da7b04';

type State =
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

interface Decoder {
  tick(now: number): void;
  read(): InputEvent | undefined;
}

export class App {
  state: State = { kind: 'boot' };
  config!: Config;
  private display!: TextDisplay;
  private beeper!: Beeper;
  private led!: Led;
  private log!: Log;
  private rtc!: RealTimeClock;
  private mono!: MonotonicClock;
  private timers!: Timers;
  private watchdog!: Watchdog;
  private ledger!: MirroredLedger;
  private marks!: Flash;
  /** Trusted time (docs/ledger.md): the mark, the monotonic clock reading then, the mark on flash. */
  private mark = 0;
  private markMono = 0;
  private markStored = 0;
  /** An RTC reading far ahead that the clerk refused (C): not asked again until a reboot. */
  private clockRefused = false;
  private keys!: KeyRing;
  private deadlines = new Map<number, number>();
  private decoders: Decoder[] = [];
  private frameDecoder: FrameDecoder | null = null;
  private lastCamera = { text: '', at: -1e12 };
  private deviceId = '';
  /** The fleet registry (docs/registry.md): null when none is configured or the device has no network. */
  private net: Network | null = null;
  private deviceKey: DeviceKey | null = null;
  private outbox: Outbox | null = null;
  /** The request out: its tickets (a claim's one, a sync's outbox entries) and nonce check the answer. */
  private inflight: { id: number; nonce: string; kind: 'claim' | 'sync'; entries: OutboxEntry[] | TicketRef[] } | null =
    null;
  private nextSyncAt = 0;
  private nonceCount = 0;
  /** This boot's nonce prefix, above every earlier boot's (on flash as the time mark before first use). */
  private nonceBase = 0;
  /** The registry's public key (OTP): every answer must carry its signature. */
  private rKey!: Uint8Array;
  private lastCode = '';
  /** The receipt printer, when the device has one; the last receipt printed (reprint: 0 then OK). */
  private printer: Printer | null = null;
  private lastReceipt: ReceiptLine[] | null = null;
  /** Digits typed on the ready screen: a menu entry run by OK (0: reprint the last receipt). */
  private menu = '';
  /** The check journal (every verdict shown) and the time the last Z report closed the period. */
  private journal: Journal | null = null;
  private journalFlash!: Flash;
  private lastZ = 0;
  /** The nonce of the last registry request: a granted claim's reference on the receipt. */
  private lastNonce = '';
  /** Counts for diagnostics. */
  readonly stats = { scans: 0, payments: 0, errors: 0 };

  constructor(private readonly dev: Device) {}

  private get lang() {
    return this.config ? this.config.lang : 'fr';
  }

  start(): void {
    const d = this.dev;
    this.log = new d.Log({});
    this.guard(() => this.boot());
  }

  private boot(): void {
    const d = this.dev;
    this.display = new d.TextDisplay({});
    this.beeper = new d.Beeper({});
    this.led = new d.Led({});
    this.rtc = new d.RealTimeClock({});
    this.mono = new d.MonotonicClock({});
    this.timers = new d.Timers({});
    this.watchdog = new d.Watchdog({ timeoutMs: WATCHDOG_MS });
    if (d.Printer) this.printer = new d.Printer({});
    const loaded = loadConfig(new d.Flash({ partition: 'config' }), PRODUCTION);
    this.config = loaded.config;
    this.display.show(bootScreen(this.lang, d.identity.imageHash));
    this.led.set('off');
    this.log.write(
      `boot ${VERSION}${PRODUCTION ? '' : ' (dev)'} image ${d.identity.imageHash.slice(0, 16)} config ${loaded.source}`,
    );
    this.keys = provisionedKeys(d.identity) ?? keyRingOf(this.config, PRODUCTION);
    this.deadlines = deadlines(this.config.emissions);
    // Payments hold at most 16 printable ASCII characters of it.
    this.deviceId = (this.config.deviceId || String(d.identity.deviceId)).replace(/[^\x20-\x7e]/g, '?').slice(0, 16);
    // Wake-ups come from here on, so a hang anywhere below is caught by the watchdog.
    this.timers.set(() => this.guard(() => this.tick()), TICK_MS, TICK_MS);
    this.watchdog.kick();
    // A configuration torn, damaged or refused is not replaced by the defaults (no registry, demo limits).
    if (loaded.invalid) return this.halt(TEXT[this.lang].configInvalid);

    // Before trusted time: a Z report's time is a time used before.
    try {
      this.journalFlash = new d.Flash({ partition: 'journal' });
      this.lastZ = restoreMark(this.journalFlash);
      this.journal = new Journal(this.journalFlash);
    } catch (e) {
      this.log.write(`journal: ${messageOf(e)}`); // a device without one pays as before
    }
    const flash: Flash = new d.Flash({ partition: 'ledger' });
    try {
      this.ledger = MirroredLedger.open(flash, { deviceId: this.deviceId });
      this.watchdog.kick(); // opening a full ledger takes ~1 s of QuickJS, a repair ~2 s more
      this.marks = markView(flash);
      this.markStored = restoreMark(this.marks);
      this.mark = Math.max(this.markStored, this.ledger.latestPaidAtMs, this.lastZ);
      this.markMono = this.mono.now();
      const now = this.trustedNow();
      if (now !== this.rtc.now())
        this.log.write(`clock: RTC ${logMs(this.rtc.now())} not believed, trusted ${logMs(now)}`);
      // Keep the mark on flash within a day of trusted time, so a reboot loses little of it.
      if (now - this.markStored > DAY_MS && this.clockOk(now)) this.storeMark(now);
      this.repairLedger();
      this.watchdog.kick();
      this.compactExpired();
    } catch (e) {
      this.halt(`ledger: ${messageOf(e)}`);
      return;
    }
    if (!deviceVerify(fromHex(SELFTEST_SIG), ascii(SELFTEST_MSG), fromHex(TEST_PUBLIC_KEY_HEX))) {
      this.halt('self-test: Ed25519');
      return;
    }
    prepareVerify(this.keys.values());
    this.openRegistry();
    this.openInputs();
    this.log.write(
      `ready: ${this.ledger.count} payments held, ${this.keys.size} keys, limit ${this.config.payoutLimitEur} EUR`,
    );
    if (d.identity.pendingConfirm) {
      d.identity.confirm();
      this.log.write('image confirmed');
    }
    this.signal('boot');
    this.ready();
  }

  // --- trusted time -----------------------------------------------------------------------------

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
  private clockOk(rtc: number): boolean {
    if (!plausible(rtc)) return false;
    // No mark yet (a fresh partition): measured from the latest claim deadline configured instead.
    let from = this.mark;
    if (from === 0) this.deadlines.forEach((d) => (from = Math.max(from, d)));
    return from === 0 || rtc - from < this.config.clockJumpDays * DAY_MS;
  }

  /** Puts trusted time `ms` on flash (both mark sectors) if it is later than the mark there. */
  private storeMark(ms: number, source?: number): void {
    if (ms <= this.markStored) return;
    writeMark(this.marks, ms, source);
    this.markStored = ms;
  }

  /**
   * Trusted time a day past the mark on flash goes there (a write a day at most): a reboot with the
   * clock set back must not bring back the time before it (a ticket expired since would be payable).
   */
  private keepMark(now: number): void {
    if (now - this.markStored > DAY_MS) this.storeMark(now);
  }

  /** At boot or in the ready state: an RTC far ahead of trusted time asks the clerk. */
  private clockPending(): boolean {
    const rtc = this.rtc.now();
    if (this.clockRefused || !plausible(rtc) || this.clockOk(rtc) || rtc < this.trustedNow()) return false;
    this.log.write(`clock: ${logMs(rtc)} far ahead of ${logMs(this.trustedNow())}, asked`);
    this.display.show(clockScreen(this.lang, rtc));
    this.signal('refused');
    this.state = { kind: 'clock', rtcMs: rtc };
    return true;
  }

  /** OK: the RTC reading becomes the mark, on flash first; C: not believed until a reboot. */
  private answerClock(k: Key, rtcMs: number): void {
    if (k === 'OK') {
      this.storeMark(rtcMs, MARK_KEYPAD);
      this.mark = rtcMs;
      this.markMono = this.mono.now();
      this.log.write(`clock: ${logMs(rtcMs)} confirmed`);
      this.compactExpired();
    } else if (k === 'C') {
      this.clockRefused = true;
      this.log.write('clock: refused');
    } else return this.beeper.play(BEEPS.key);
    this.beeper.play(BEEPS.key);
    this.ready();
  }

  /** A payment whose copy in one log was damaged or lost is copied back from the other. */
  private repairLedger(): void {
    if (this.ledger.agree) return;
    const keep = this.keepAt(this.trustedNow());
    const copied = this.ledger.repair(keep, () => this.watchdog.kick());
    this.log.write(`ledger: ${this.ledger.damage} damaged, repaired ${copied.map(ticketLine).join(' ')}`);
  }

  /** Payments still claimable at `now` (trusted time). */
  private keepAt(now: number) {
    return (p: { emission: number }) => {
      const dl = this.deadlines.get(p.emission);
      return dl === undefined || now < dl;
    };
  }

  /**
   * Drops payments whose emission's claim deadline has passed (no copy of those tickets can be paid
   * any more), when free sectors run low: it reads the whole ledger, so not at every boot.
   */
  private compactExpired(): void {
    // (damage in both logs stays on flash: it is what keeps payments refused)
    if (this.ledger.doubtful) return;
    if (this.ledger.stats().freeSectors >= this.config.compactFreeSectors && this.ledger.damage === 0) return;
    let now = this.trustedNow();
    // (the mark stored at boot, a moment ago, serves: a minute less drops nothing more)
    if (now - this.markStored < 60000) now = this.markStored;
    // A clock far in the future would drop payments still needed: never compact on an implausible clock.
    if (!plausible(now)) {
      this.log.write(`ledger: clock implausible (${logMs(now)}), no compaction`);
      return;
    }
    const keep = this.keepAt(now);
    // some() reads a sector at a time (entries() would hold every payment in the heap at once).
    if (this.ledger.damage === 0 && !this.ledger.some((p) => !keep(p))) return;
    // The time that drops them goes on flash first: no later clock can make them claimable again.
    this.storeMark(now);
    // One sector a step, the watchdog fed between steps: a large compaction takes seconds of chip time.
    let dropped = 0;
    for (let r = { dropped: 0, done: false }; !r.done;) {
      r = this.ledger.compactStep(keep);
      dropped += r.dropped;
      this.watchdog.kick();
    }
    this.log.write(`ledger: compacted, ${dropped} expired payments dropped`);
  }

  /** The registry link, when configured and the device has a network and a key. */
  private openRegistry(): void {
    const d = this.dev;
    if (!this.config.registryUrl) return;
    const rk = d.identity.registryKey;
    if (!d.Network || !d.DeviceKey || !rk) {
      this.log.write('registry: no network or key: payments stay local');
      return;
    }
    this.rKey = fromHex(rk);
    try {
      this.outbox = Outbox.open(new d.Flash({ partition: 'outbox' }));
    } catch (e) {
      this.log.write(`registry: no outbox (${messageOf(e)}): payments stay local`);
      return;
    }
    this.deviceKey = new d.DeviceKey({});
    // Its first 16 hex digits (the host, `saphir sim`, says when it is the published development key).
    this.log.write(`registry: device key ${toHex(this.deviceKey.publicKey).slice(0, 16)}…`);
    const net: Network = new d.Network({
      url: this.config.registryUrl,
      onReadable: () =>
        this.guard(() => {
          for (let r = net.read(); r; r = net.read()) this.onAnswer(r);
        }),
    });
    this.net = net;
    this.log.write(`registry: ${this.config.registryUrl}, ${this.outbox.pending.length} to send`);
  }

  private openInputs(): void {
    const d = this.dev;
    const on = (name: string) => this.config.inputs.indexOf(name as never) >= 0;
    // A byte or report input feeds its decoder; whole codes go on to the scan path.
    const feed = (
      dec: Decoder & { push(b: Uint8Array, now: number): void },
      open: (onReadable: () => void) => Input<Uint8Array>,
    ) => {
      const input = open(() =>
        this.guard(() => {
          for (let b = input.read(); b; b = input.read()) dec.push(b, this.mono.now());
          this.drain(dec);
        }),
      );
      this.decoders.push(dec);
    };
    if (on('serial')) feed(new SerialDecoder(), (onReadable) => new d.Serial({ baud: 115200, onReadable }));
    if (on('keyboard'))
      feed(new KeyboardWedgeDecoder(), (onReadable) => new d.HIDInput({ mode: 'keyboard', onReadable }));
    if (on('pos')) feed(new HidPosDecoder(), (onReadable) => new d.HIDInput({ mode: 'pos', onReadable }));
    if (on('camera') && newFrameDecoder) {
      const make = newFrameDecoder;
      const cam = new d.Camera({
        onReadable: () =>
          this.guard(() => {
            const f = cam.read();
            if (!f) return;
            // Made on the first frame: in the full build this compiles the camera path (build.mjs).
            const fd = this.frameDecoder || (this.frameDecoder = make());
            const text = fd.decode(f);
            if (text === null) return;
            const now = this.mono.now();
            if (text === this.lastCamera.text && now - this.lastCamera.at < CAMERA_REPEAT_MS) {
              this.lastCamera.at = now;
              return;
            }
            this.lastCamera = { text, at: now };
            this.onCode(text);
          }),
      });
    }
    const keypad = new d.Keypad({
      onReadable: () =>
        this.guard(() => {
          for (let k = keypad.read(); k !== undefined; k = keypad.read()) this.onKey(k);
        }),
    });
  }

  private drain(dec: Decoder): void {
    for (let e = dec.read(); e; e = dec.read()) {
      if (e.type === 'code') this.onCode(e.text);
      else this.onDropped();
    }
  }

  // --- events ---------------------------------------------------------------------------------------

  /** A complete code text from any scanner. */
  onCode(text: string): void {
    if (this.state.kind === 'halted' || this.state.kind === 'boot' || this.state.kind === 'clock') return;
    this.stats.scans++;
    this.lastCode = text;
    const result = checkCode(text, { keys: this.keys, verify: deviceVerify });
    const paid = result.status === 'win' && result.ticket ? this.ledger.find(result.ticket) : undefined;
    const nowMs = this.trustedNow();
    const verdict = decide({
      result,
      paid,
      nowMs,
      deadlineMs: result.ticket ? this.deadlines.get(result.ticket.emission) : undefined,
      payoutLimitEur: this.config.payoutLimitEur,
      idThresholdEur: this.config.idThresholdEur,
    });
    // No trusted time, or both ledger copies damaged: a win is not payable now (decide.ts).
    const no = verdict.kind === 'win' ? withheld(nowMs, this.ledger.doubtful) : '';
    if (verdict.kind === 'win' && no) {
      this.log.write(
        `${no === 'clock' ? 'clock: no trusted time' : 'ledger: damaged'}, ${ticketLine(verdict.ticket)} not payable`,
      );
      const t = TEXT[this.lang];
      this.shown(
        payLaterScreen(verdict.prizeEur, this.lang, no === 'clock' ? t.clockUnset : t.ledgerDamaged),
        'refused',
      );
      return this.note('not-payable', verdict, nowMs);
    }
    this.showVerdict(verdict, nowMs);
  }

  /** Shows a verdict decided at trusted time `nowMs`. */
  showVerdict(v: Verdict, nowMs = this.trustedNow()): void {
    // Expired at a time not yet on flash: store it, so no reboot and clock can make it payable.
    if (v.kind === 'expired' && this.markStored < v.deadlineMs) this.storeMark(nowMs);
    else this.keepMark(nowMs);
    const won = v.kind === 'win' || v.kind === 'centre';
    const big = won && this.config.bigWinFromEur > 0 && v.prizeEur >= this.config.bigWinFromEur;
    const screen = verdictScreen(v, this.lang, big);
    // A win only a payment centre pays: the player leaves with a slip saying where and until when.
    if (
      v.kind === 'centre' &&
      !this.print(claimSlip(this.facts(v, nowMs), this.deadlines.get(v.ticket.emission)!, v.idRequired))
    )
      screen[2] = TEXT[this.lang].noReceipt;
    this.shown(screen, big ? 'bigwin' : won ? 'win' : v.kind === 'lose' ? 'lose' : 'refused');
    if (v.kind === 'win')
      this.state = {
        kind: 'await-pay',
        verdict: v,
        code: this.lastCode,
        until: this.mono.now() + this.config.payWaitMs,
      };
    // The trace after the screen: a verdict never waits for its journal record.
    this.note(v.kind, v, nowMs);
  }

  /** Shows `screen` with the beep and LED of `s`; back to ready after `ms`. */
  private shown(screen: string[], s: Signal, ms = this.config.verdictMs): void {
    this.state = { kind: 'shown', until: this.mono.now() + ms };
    this.display.show(screen);
    this.signal(s);
  }

  /** A scan that ended badly (timeout mid-code, noise, too long): refused, nothing touched. */
  private onDropped(): void {
    if (this.state.kind === 'halted' || this.state.kind === 'boot' || this.state.kind === 'clock') return;
    const w = TEXT[this.lang];
    this.shown([w.invalid, this.lang === 'fr' ? 'lecture incomplète' : 'incomplete scan', '', w.invalid], 'refused');
  }

  onKey(k: Key): void {
    const s = this.state;
    if (s.kind === 'halted' || s.kind === 'boot') return;
    if (s.kind === 'clock') return this.answerClock(k, s.rtcMs);
    if (s.kind === 'close-z') {
      this.beeper.play(BEEPS.key);
      return k === 'OK' ? this.report(true) : k === 'C' ? this.ready() : undefined;
    }
    if (s.kind === 'await-pay' || s.kind === 'confirm') {
      if (k === 'OK') {
        // The verdict is from the scan: a claim period that ended since (payWaitMs) ends it here.
        const now = this.trustedNow();
        const v = atOk(s.verdict, now, this.deadlines.get(s.verdict.ticket.emission)!);
        if (v.kind !== 'win') {
          this.log.write(`${ticketLine(v.ticket)}: expired before OK`);
          return this.showVerdict(v, now);
        }
        if (
          s.kind === 'await-pay' &&
          this.config.confirmFromEur > 0 &&
          s.verdict.prizeEur >= this.config.confirmFromEur
        ) {
          this.beeper.play(BEEPS.key);
          this.display.show(confirmCashScreen(s.verdict.prizeEur, this.lang));
          this.state = { ...s, kind: 'confirm' };
          return;
        }
        return this.net ? this.claim(s.verdict, s.code) : this.pay(s.verdict);
      }
      if (k === 'C') return this.shown(cancelledScreen(this.lang), 'key', 1500);
      this.beeper.play(BEEPS.key);
      return;
    }
    this.beeper.play(BEEPS.key);
    if (s.kind === 'ready') return this.onMenuKey(k);
    // While the registry is asked, keys wait: the answer decides.
    if ((k === 'OK' || k === 'C') && s.kind === 'shown') this.ready();
  }

  /** The ready screen's menu: digits, then OK runs the entry (0: reprint the last receipt); C clears. */
  private onMenuKey(k: Key): void {
    if (k === 'C') this.menu = '';
    else if (k !== 'OK') this.menu = (this.menu + k).slice(-4);
    else {
      const entry = this.menu;
      this.menu = '';
      if (entry === '1') return this.report(false);
      if (entry === '2') {
        this.display.show(closeZScreen(this.lang));
        this.state = { kind: 'close-z', until: this.mono.now() + this.config.payWaitMs };
        return;
      }
      if (entry === '0' && this.lastReceipt && this.printer) {
        const w = TEXT[this.lang];
        const ok = this.print(null);
        this.log.write(`receipt: reprint ${ok ? 'done' : 'failed'}`);
        return this.shown([ok ? w.recorded : w.noReceipt], ok ? 'key' : 'refused', 1500);
      }
    }
  }

  /**
   * The X report (1, OK) or the Z report (2, OK, OK): payments since the last Z from the ledger, the rest
   * from the journal; a Z first stores its time (both mark sectors), so a cut never leaves a half close.
   */
  private report(z: boolean): void {
    const now = Math.floor(this.trustedNow());
    const { report: r, lines } = counterReport({
      z,
      lang: this.lang,
      shop: this.config.shop,
      deviceId: this.deviceId,
      fromMs: this.lastZ,
      toMs: now,
      dayStartMs: parisMidnightUtc(parisDate(now)),
      payments: (f) => {
        this.ledger.some((p) => {
          f(p);
          return false;
        });
      },
      journal: (f) => this.journal && this.journal.forEach(f),
      paid: (e) => !!this.ledger.find(e),
    });
    if (z) {
      writeMark(this.journalFlash, now, MARK_Z);
      this.lastZ = now;
    }
    this.log.write(`report ${z ? 'Z' : 'X'}: ${r.payments} payments ${r.totalEur} EUR, ${r.unpaidWins} not paid`);
    const printed = this.print(lines);
    this.shown(reportScreen(r, z, this.lang, printed), 'key');
  }

  /** Appends what a scan ended on to the check journal; a journal that fails never stops a verdict. */
  private note(
    kind: JournalKind | 'already-paid' | 'invalid',
    v: Verdict | { ticket?: TicketId; prizeEur?: number },
    atMs: number,
  ): void {
    if (!this.journal) return;
    const t = 'ticket' in v && v.ticket ? v.ticket : { emission: 0, block: 0, number: 0 };
    try {
      this.journal.append({
        kind,
        reason: 'reason' in v ? REASONS.indexOf(v.reason as never) & 255 : 0,
        emission: t.emission,
        block: t.block,
        number: t.number,
        prizeEur: 'prizeEur' in v && v.prizeEur ? v.prizeEur : 0,
        atMs,
      });
    } catch (e) {
      this.log.write(`journal: ${messageOf(e)}`);
    }
  }

  /** The facts every receipt carries. */
  private facts(v: { ticket: TicketId; prizeEur: number }, atMs: number) {
    return {
      lang: this.lang,
      shop: this.config.shop,
      deviceId: this.deviceId,
      ticket: v.ticket,
      prizeEur: v.prizeEur,
      atMs,
    };
  }

  /**
   * Prints a receipt (`null`: the last one again). True when printed, or when the device has no printer;
   * false when the printer failed (paper out, a fault): logged, and the payment stands.
   */
  private print(lines: ReceiptLine[] | null): boolean {
    if (!this.printer) return true;
    try {
      if (lines) this.lastReceipt = lines;
      this.printer.write(escpos(lines || duplicate(this.lastReceipt!, this.lang)));
      return true;
    } catch (e) {
      this.stats.errors++;
      this.log.write(`printer: ${messageOf(e)}`);
      return false;
    }
  }

  // --- the fleet registry ------------------------------------------------------------------------

  private request(
    kind: 'claim' | 'sync',
    payments: { code: string; paid_at: number }[],
  ): { id: number; nonce: string } {
    // Trusted time, not the RTC (a clock set back must not make every request stale).
    const now = Math.floor(this.trustedNow());
    if (!this.nonceBase) {
      // Above every nonce of an earlier boot, and on flash before it is used: a power cut replays none.
      this.nonceBase = Math.max(now, this.markStored + 1);
      this.storeMark(this.nonceBase);
    }
    const nonce = `${this.nonceBase}-${++this.nonceCount}`;
    this.lastNonce = nonce;
    const req: RegistryRequest = { kind, device_id: this.deviceId, nonce, sent_at: now, payments };
    const body = JSON.stringify({ ...req, signature: toHex(this.deviceKey!.sign(signedBytes(req))) });
    return { id: this.net!.request(`/v1/${kind}`, body, this.config.registryTimeoutMs), nonce };
  }

  /** OK on a payable win with a registry: ask it first; its answer (or its silence) decides. */
  private claim(v: Extract<Verdict, { kind: 'win' }>, code: string): void {
    const r = this.request('claim', [{ code, paid_at: Math.floor(this.trustedNow()) }]);
    this.inflight = { ...r, kind: 'claim', entries: [v.ticket] };
    this.display.show(checkingScreen(v.prizeEur, this.lang));
    this.state = { kind: 'claiming', verdict: v, code, until: this.mono.now() + this.config.registryTimeoutMs + 1000 };
  }

  /** Whether `j` is the registry's signed answer to request `f`, a result a ticket in `f`'s order. */
  private authentic(j: { results: PaymentResult[]; signature?: unknown }, f: { nonce: string; entries: TicketRef[] }) {
    try {
      const rs = j.results;
      if (rs.some((x, i) => x.result !== 'invalid' && ticketLine(x.ticket) !== ticketLine(f.entries[i]))) return false;
      const text = utf8Encode(answerText({ device_id: this.deviceId, nonce: f.nonce }, rs));
      return deviceVerify(fromHex(j.signature as string), text, this.rKey);
    } catch {
      return false;
    }
  }

  private onAnswer(r: NetworkResponse): void {
    const f = this.inflight;
    if (!f || r.id !== f.id) return; // an answer to a request given up on
    this.inflight = null;
    const s = this.state;
    let results: PaymentResult[] | null = null;
    let error = '';
    if (r.status === 200) {
      let j: { results?: PaymentResult[] } | null = null;
      try {
        j = JSON.parse(r.body);
      } catch {
        // not JSON: handled as no answer below
      }
      if (j && Array.isArray(j.results)) {
        if (this.authentic(j as { results: PaymentResult[] }, f)) results = j.results;
        else error = 'forged';
      }
    } else if (r.status >= 400 && r.status < 500) {
      try {
        error = String((JSON.parse(r.body) as { error?: string }).error || r.status);
      } catch {
        error = String(r.status);
      }
    }
    if (f.kind === 'sync')
      return this.onSynced(f.entries as OutboxEntry[], results, error || (results ? '' : `status ${r.status}`));
    if (s.kind !== 'claiming') return;
    const got = results && results.length === 1 ? results[0] : null;
    if (got && got.result === 'granted') {
      // Two-phase: the outbox entry is the confirmation, pushed by the next sync (retried until heard).
      // A full outbox throws here: not paid, since the registry could never hear it was.
      this.queue(s.verdict, s.code);
      this.nextSyncAt = 0;
      return this.pay(s.verdict, false, this.lastNonce);
    }
    if (got && got.result === 'already_paid') {
      this.log.write(`registry: ${ticketLine(s.verdict.ticket)} already paid by ${got.by.device_id}`);
      return this.showVerdict({
        kind: 'already-paid',
        ticket: s.verdict.ticket,
        prizeEur: s.verdict.prizeEur,
        paid: {
          prizeEur: s.verdict.prizeEur,
          paidAtMs: got.by.paid_at,
          deviceId: String(got.by.device_id).slice(0, 16),
        },
      });
    }
    if (got || error) {
      // The registry heard us and said no (the ticket, or this device), or an answer it did not sign
      // came: never paid offline then (whoever forged it would choose that).
      const why = got && got.result === 'invalid' ? got.reason : error;
      this.log.write(`registry refused the claim: ${why}`);
      return this.shown(errorScreen(this.lang, TEXT[this.lang][error === 'forged' ? error : 'refused']), 'refused');
    }
    this.offline(s.verdict, s.code, `status ${r.status}`);
  }

  /** Onto the outbox, before the ledger: a cut between the two leaves an entry the sync drops. */
  private queue(v: Extract<Verdict, { kind: 'win' }>, code: string): void {
    const t = v.ticket;
    this.outbox!.add({
      emission: t.emission,
      block: t.block,
      number: t.number,
      paidAtMs: Math.floor(this.trustedNow()),
      code,
    });
  }

  /** No answer from the registry: pay offline up to the offline limit, else not now. */
  private offline(v: Extract<Verdict, { kind: 'win' }>, code: string, why: string): void {
    this.log.write(`registry: no answer (${why})`);
    if (v.prizeEur <= this.config.offlineLimitEur) {
      try {
        this.queue(v, code);
        return this.pay(v, true);
      } catch (e) {
        this.log.write(`outbox: ${messageOf(e)}`);
      }
    }
    this.shown(payLaterScreen(v.prizeEur, this.lang), 'refused');
    this.note('not-payable', v, this.trustedNow());
  }

  /** Pushes offline payments while some wait, the device is idle and nothing else is asked. */
  private sync(now: number): void {
    const box = this.outbox;
    const k = this.state.kind;
    if (!box || !this.net || this.inflight || (k !== 'ready' && k !== 'shown') || now < this.nextSyncAt) return;
    const batch: OutboxEntry[] = [];
    const unpaid: OutboxEntry[] = [];
    for (const e of box.pending) {
      if (batch.length >= SYNC_BATCH) break;
      (this.ledger.find(e) ? batch : unpaid).push(e);
    }
    if (unpaid.length) {
      this.log.write(`outbox: ${unpaid.length} entries without a payment dropped`);
      box.markSynced(unpaid);
      this.ready(); // the count on the screen
    }
    if (!batch.length) return;
    this.nextSyncAt = now + this.config.syncIntervalMs;
    const r = this.request(
      'sync',
      batch.map((e) => ({ code: e.code, paid_at: e.paidAtMs })),
    );
    this.inflight = { ...r, kind: 'sync', entries: batch };
  }

  private onSynced(entries: OutboxEntry[], results: PaymentResult[] | null, error: string): void {
    if (!results || results.length !== entries.length) {
      this.log.write(`sync: not sent (${error}), ${this.outbox!.pending.length} waiting`);
      return;
    }
    results.forEach((r, i) => {
      const t = entries[i];
      if (r.result === 'conflict') this.log.write(`sync: ${ticketLine(t)} CONFLICT, also paid by ${r.by.device_id}`);
      else if (r.result === 'invalid') this.log.write(`sync: ${ticketLine(t)} refused: ${r.reason}`);
    });
    this.outbox!.markSynced(entries);
    const left = this.outbox!.pending.length;
    this.log.write(`sync: ${entries.length} sent, ${left} waiting`);
    if (left > 0) this.nextSyncAt = 0; // go on at the next tick
    if (this.state.kind === 'ready') this.ready();
  }

  /** Records the payment; PAYÉ only once `record` returned (the record is then on flash). */
  private pay(v: Extract<Verdict, { kind: 'win' }>, offline = false, registryRef = ''): void {
    const t = v.ticket;
    const paidAtMs = Math.floor(this.trustedNow());
    try {
      this.ledger.record({
        emission: t.emission,
        block: t.block,
        number: t.number,
        prizeEur: v.prizeEur,
        paidAtMs,
        deviceId: this.deviceId,
      });
    } catch (e) {
      // A ticket the ledger already holds is shown paid (decide.ts), never paid twice.
      const code = e instanceof LedgerError ? e.code : undefined;
      const r = recordRefused(v, code, code === 'DUPLICATE' ? this.ledger.find(t) : undefined);
      if (typeof r !== 'string') return this.showVerdict(r);
      this.log.write(`payment of ${ticketLine(t)} failed: ${messageOf(e)}`);
      return this.shown(errorScreen(this.lang, TEXT[this.lang][r]), 'error');
    }
    this.stats.payments++;
    this.log.write(`paid ${ticketLine(t)} ${v.prizeEur} EUR${offline ? ' offline' : ''}`);
    // After the record: paper out or a jam never undoes a payment; the screen says so (reprint: 0, OK).
    const printed = this.print(paymentReceipt(this.facts(v, paidAtMs), registryRef, offline));
    // The payment is on flash: a display, beeper or LED failing now must not put ERREUR over PAYÉ (the
    // clerk would not pay a ticket the ledger holds as paid). Logged, and the screen and signal tried again.
    for (let tries = 2; tries--;) {
      try {
        this.shown(paidScreen(v.prizeEur, this.lang, offline, !printed), 'paid');
        break;
      } catch (e) {
        this.stats.errors++;
        this.log.write(`error after payment: ${messageOf(e)}`);
      }
    }
    this.note('paid', v, paidAtMs);
  }

  private tick(): void {
    this.watchdog.kick();
    const now = this.mono.now();
    for (const d of this.decoders) {
      d.tick(now);
      this.drain(d);
    }
    const s = this.state;
    if (s.kind === 'claiming' && now >= s.until) {
      // The network never answered (it must, with status 0): give up on it and decide offline.
      this.inflight = null;
      return this.offline(s.verdict, s.code, 'timeout');
    }
    if (
      (s.kind === 'shown' || s.kind === 'await-pay' || s.kind === 'confirm' || s.kind === 'close-z') &&
      now >= s.until
    )
      this.ready();
    else if (s.kind === 'ready' && !this.clockPending()) this.keepMark(this.trustedNow());
    this.sync(now);
  }

  private ready(): void {
    this.menu = '';
    if (this.clockPending()) return;
    this.state = { kind: 'ready' };
    this.display.show(readyScreen(this.lang, this.outbox ? this.outbox.pending.length : 0));
    this.led.set('off');
  }

  private halt(why: string): void {
    this.log.write(`halted: ${why}`);
    this.state = { kind: 'halted' };
    this.display.show(errorScreen(this.lang, why));
    this.signal('error');
  }

  private signal(s: Signal): void {
    this.beeper.play(BEEPS[s]);
    this.led.set(LEDS[s]);
  }

  /** Runs `f`; an exception is logged, shown, and the app goes back to ready after the verdict time. */
  private guard(f: () => void): void {
    try {
      f();
    } catch (e) {
      this.stats.errors++;
      try {
        this.log.write(`error: ${messageOf(e)}`);
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

function messageOf(e: unknown): string {
  return e && typeof e === 'object' && 'message' in e ? String((e as Error).message) : String(e);
}

function ascii(s: string): Uint8Array {
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i) & 0x7f;
  return b;
}
