// The device application: boot, scan → verdict, pay, and back to ready. Talks to the world only
// through the HAL Device it is given. Every entry point (input callbacks, the tick) is guarded: an
// exception is logged, shown, and the app returns to ready. Its jobs live in firmware/app/ (trusted
// time, ledger upkeep, screens, registry link, inputs), one layer each below App.
import type { Flash, Timers } from '../src/hal.ts';
import { checkCode } from '../src/sph1/check.ts';
import { deviceVerify, prepareVerify } from './verify.ts';
import { provisionedKeys } from './trust.ts';
import { fromHex } from '../src/hex.ts';
import type { KeyRing } from '../src/sph1/keys.ts';
import { TEST_PUBLIC_KEY_HEX } from '../src/sph1/keys.ts';
import { LedgerError, MirroredLedger, markView, restoreMark } from '../src/ledger/index.ts';
import { Journal } from '../src/journal.ts';
import { loadConfig, keyRingOf } from '../src/config.ts';
import { decide, recordRefused, withheld, type Verdict } from './decide.ts';
import { TEXT, bootScreen, errorScreen, paidScreen, payLaterScreen, ticketLine } from './screens.ts';
import { dropPrint, paymentReceipt } from './print.ts';
import { PRODUCTION, VERSION } from './build-info.ts';
import { Inputs } from './app/inputs.ts';
import { TICK_MS, WATCHDOG_MS, DAY_MS, logMs, messageOf } from './app/base.ts';
import {
  LOG_BOOT,
  LOG_CLOCK_NOT_BELIEVED,
  LOG_DAMAGED_NOT_PAYABLE,
  LOG_ERROR_AFTER_PAYMENT,
  LOG_IMAGE_CONFIRMED,
  LOG_JOURNAL,
  LOG_NO_TIME_NOT_PAYABLE,
  LOG_PAID,
  LOG_PAID_OFFLINE,
  LOG_PAYMENT_FAILED,
  LOG_READY,
} from '../src/messages/log-codes.ts';

export { TICK_MS, WATCHDOG_MS } from './app/base.ts';

// Boot self-test: the test key's signature of "SAPHIR-SELFTEST-V1" (checks the Ed25519 path works).
const SELFTEST_MSG = 'SAPHIR-SELFTEST-V1';
const SELFTEST_SIG =
  'c3cbc1211c18cde1daa109914318f56c5f9923987eb30cc71b69830ee5abd8c11a4c5d5515b34ec60bca6c1a93eb7dbe4a8500c53bac3512833337a5a1da7b04';

export class App extends Inputs {
  private timers!: Timers;
  private keys!: KeyRing;

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
    else dropPrint();
    const loaded = loadConfig(new d.Flash({ partition: 'config' }), PRODUCTION);
    this.config = loaded.config;
    this.display.show(bootScreen(this.lang, d.identity.imageHash));
    this.led.set('off');
    this.say(LOG_BOOT, VERSION, PRODUCTION ? '' : ' (dev)', d.identity.imageHash.slice(0, 16), loaded.source);
    this.keys = provisionedKeys(d.identity) ?? keyRingOf(this.config, PRODUCTION);
    this.openNotice();
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
      this.say(LOG_JOURNAL, messageOf(e)); // a device without one pays as before
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
      if (now !== this.rtc.now()) this.say(LOG_CLOCK_NOT_BELIEVED, logMs(this.rtc.now()), logMs(now));
      // Keep the mark on flash within a day of trusted time, so a reboot loses little of it.
      if (now - this.markStored > DAY_MS && this.clockOk(now)) this.storeMark(now);
      this.repairLedger();
      this.watchdog.kick();
      this.compactExpired();
    } catch (e) {
      this.halt(`ledger: ${messageOf(e)}`);
      return;
    }
    // Tables first: the self-test then checks the test key's kept table (a developer device) instead of
    // building one more (~5 ms of a QuickJS boot's ~30).
    prepareVerify(this.keys.values());
    if (!deviceVerify(fromHex(SELFTEST_SIG), ascii(SELFTEST_MSG), fromHex(TEST_PUBLIC_KEY_HEX))) {
      this.halt('self-test: Ed25519');
      return;
    }
    this.openRegistry();
    this.openInputs();
    this.say(LOG_READY, this.ledger.count, this.keys.size, this.config.payoutLimitEur);
    if (d.identity.pendingConfirm) {
      d.identity.confirm();
      this.say(LOG_IMAGE_CONFIRMED);
    }
    this.signal('boot');
    this.ready();
  }

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
      onSaleMs: result.ticket ? this.sales.get(result.ticket.emission) : undefined,
    });
    // No trusted time, or both ledger copies damaged: a win is not payable now (decide.ts).
    const no = verdict.kind === 'win' ? withheld(nowMs, this.ledger.doubtful) : '';
    if (verdict.kind === 'win' && no) {
      this.say(no === 'clock' ? LOG_NO_TIME_NOT_PAYABLE : LOG_DAMAGED_NOT_PAYABLE, ticketLine(verdict.ticket));
      const t = TEXT[this.lang];
      this.shown(
        payLaterScreen(verdict.prizeEur, this.lang, no === 'clock' ? t.clockUnset : t.ledgerDamaged),
        'refused',
      );
      return this.note('not-payable', verdict, nowMs);
    }
    this.showVerdict(verdict, nowMs);
  }

  /** Records the payment; PAYÉ only once `record` returned (the record is then on flash). */
  pay(v: Extract<Verdict, { kind: 'win' }>, offline = false, registryRef = ''): void {
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
      this.say(LOG_PAYMENT_FAILED, ticketLine(t), messageOf(e));
      return this.shown(errorScreen(this.lang, TEXT[this.lang][r]), 'error');
    }
    this.stats.payments++;
    this.say(offline ? LOG_PAID_OFFLINE : LOG_PAID, ticketLine(t), v.prizeEur);
    // After the record: paper out or a jam never undoes a payment; the screen says so (reprint: 0, OK).
    const printed = this.print(() => paymentReceipt(this.facts(v, paidAtMs), registryRef, offline));
    // The payment is on flash: a display, beeper or LED failing now must not put ERREUR over PAYÉ (the
    // clerk would not pay a ticket the ledger holds as paid). Logged, and the screen and signal tried again.
    for (let tries = 2; tries--;) {
      try {
        this.shown(paidScreen(v.prizeEur, this.lang, offline, !printed), 'paid');
        break;
      } catch (e) {
        this.stats.errors++;
        this.say(LOG_ERROR_AFTER_PAYMENT, messageOf(e));
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
      return this.link!.timeout(s.verdict, s.code);
    }
    if (
      (s.kind === 'shown' || s.kind === 'await-pay' || s.kind === 'confirm' || s.kind === 'close-z') &&
      now >= s.until
    )
      this.ready();
    else if (s.kind === 'ready' && !this.clockPending()) this.keepMark(this.trustedNow());
    if (this.link) this.link.tick(now);
  }
}

function ascii(s: string): Uint8Array {
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i) & 0x7f;
  return b;
}
