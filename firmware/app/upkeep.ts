// The ledger's upkeep at boot: a payment one log lost copied back from the other, and payments past
// their claim deadline compacted away when free sectors run low.
import { ended } from '../deadline.ts';
import { plausible } from '../decide.ts';
import { ticketLine } from '../screens.ts';
import { Clock } from './clock.ts';
import { logMs } from './base.ts';
import { LOG_LEDGER_CLOCK, LOG_LEDGER_COMPACTED, LOG_LEDGER_REPAIRED } from '../../src/messages/log-codes.ts';

export abstract class Upkeep extends Clock {
  /** A payment whose copy in one log was damaged or lost is copied back from the other. */
  protected repairLedger(): void {
    if (this.ledger.agree) return;
    const keep = this.keepAt(this.trustedNow());
    const copied = this.ledger.repair(keep, () => this.watchdog.kick());
    this.say(LOG_LEDGER_REPAIRED, this.ledger.damage, copied.map(ticketLine).join(' '));
  }

  /** Payments still claimable at `now` (trusted time). */
  private keepAt(now: number) {
    return (p: { emission: number }) => {
      const dl = this.deadlines.get(p.emission);
      return dl === undefined || !ended(dl, now);
    };
  }

  /**
   * Drops payments whose emission's claim deadline has passed (no copy of those tickets can be paid
   * any more), when free sectors run low: it reads the whole ledger, so not at every boot.
   */
  protected compactExpired(): void {
    // (damage in both logs stays on flash: it is what keeps payments refused)
    if (this.ledger.doubtful) return;
    if (this.ledger.stats().freeSectors >= this.config.compactFreeSectors && this.ledger.damage === 0) return;
    let now = this.trustedNow();
    // (the mark stored at boot, a moment ago, serves: a minute less drops nothing more)
    if (now - this.markStored < 60000) now = this.markStored;
    // A clock far in the future would drop payments still needed: never compact on an implausible clock.
    if (!plausible(now)) {
      this.say(LOG_LEDGER_CLOCK, logMs(now));
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
    this.say(LOG_LEDGER_COMPACTED, dropped);
  }
}
