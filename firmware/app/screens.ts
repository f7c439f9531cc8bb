// What the clerk sees and gets on paper: verdict screens and their signals, the ready screen, the
// receipts and reports (the counter), and the check journal of every verdict shown.
import type { Flash, Printer } from '../../src/hal.ts';
import type { Link } from '../registry/link.ts';
import type { TicketId } from '../../src/sph1/body.ts';
import { MARK_Z, writeMark } from '../../src/ledger/index.ts';
import type { Journal, JournalKind } from '../../src/journal.ts';
import { REASONS } from '../../src/sph1/check.ts';
import { parisDate, parisMidnightUtc } from '../../src/claim.ts';
import type { Verdict } from '../decide.ts';
import type { Signal } from '../../src/signals.ts';
import { TEXT, reportScreen, errorScreen, readyScreen, verdictScreen } from '../screens.ts';
import type { ReceiptLine } from '../../src/print/escpos.ts';
import { claimSlip, duplicate, escpos } from '../print.ts';
import { counterReport } from '../reports.ts';
import { Upkeep } from './upkeep.ts';
import { messageOf } from './base.ts';
import { LOG_HALTED, LOG_JOURNAL, LOG_PRINTER, LOG_REPORT } from '../../src/messages/log-codes.ts';

export abstract class Screens extends Upkeep {
  protected lastCode = '';
  /** The receipt printer, when the device has one; the last receipt printed (reprint: 0 then OK). */
  protected printer: Printer | null = null;
  protected lastReceipt: ReceiptLine[] | null = null;
  /** Digits typed on the ready screen: a menu entry run by OK (0: reprint the last receipt). */
  protected menu = '';
  /** The check journal (every verdict shown) and the time the last Z report closed the period. */
  protected journal: Journal | null = null;
  protected journalFlash!: Flash;
  protected lastZ = 0;

  /** The registry link (its outbox's count is on the ready screen). */
  abstract link: Link | null;

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
      !this.print(() => claimSlip(this.facts(v, nowMs), this.deadlines.get(v.ticket.emission) ?? null, v.idRequired))
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
  shown(screen: string[], s: Signal, ms = this.config.verdictMs): void {
    this.state = { kind: 'shown', until: this.mono.now() + ms };
    this.display.show(screen);
    this.signal(s);
  }

  ready(): void {
    this.menu = '';
    if (this.clockPending()) return;
    this.state = { kind: 'ready' };
    this.display.show(readyScreen(this.lang, this.link ? this.link.outbox.pending.length : 0));
    this.led.set('off');
  }

  protected halt(why: string): void {
    this.say(LOG_HALTED, why);
    this.state = { kind: 'halted' };
    this.display.show(errorScreen(this.lang, why));
    this.signal('error');
  }

  /**
   * The X report (1, OK) or the Z report (2, OK, OK): payments since the last Z from the ledger, the rest
   * from the journal; a Z first stores its time (both mark sectors), so a cut never leaves a half close.
   */
  protected report(z: boolean): void {
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
    this.say(LOG_REPORT, z ? 'Z' : 'X', r.payments, r.totalEur, r.unpaidWins);
    const printed = this.print(() => lines);
    this.shown(reportScreen(r, z, this.lang, printed), 'key');
  }

  /** Appends what a scan ended on to the check journal; a journal that fails never stops a verdict. */
  note(
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
      this.say(LOG_JOURNAL, messageOf(e));
    }
  }

  /** The facts every receipt carries. */
  protected facts(v: { ticket: TicketId; prizeEur: number }, atMs: number) {
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
   * Prints the receipt `make` makes (`null`: the last one again); made only on a device with a printer
   * (the printing part is compiled then, firmware/print.ts). True when printed, or when the device has no
   * printer; false when the printer failed (paper out, a fault): logged, and the payment stands.
   */
  protected print(make: (() => ReceiptLine[]) | null): boolean {
    if (!this.printer) return true;
    try {
      const lines = make && make();
      if (lines) this.lastReceipt = lines;
      this.printer.write(escpos(lines || duplicate(this.lastReceipt!, this.lang)));
      return true;
    } catch (e) {
      this.stats.errors++;
      this.say(LOG_PRINTER, messageOf(e));
      return false;
    }
  }
}
