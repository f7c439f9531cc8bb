// Which payments compaction keeps: a payment stays while its emission's prizes can still be claimed
// (after the deadline no copy of the ticket can be paid, so the record is no longer needed).
import { isClaimable } from '../claim.ts';
import type { Payment } from './format.ts';

/**
 * A `keep` for `Ledger.compact`: true while the payment's emission is claimable at `nowMs`. An
 * emission without a known (valid) closing date is kept: forgetting a payment is the unsafe side.
 */
export function keepWhileClaimable(
  closingDates: Readonly<Record<number, string>> | ((emission: number) => string | undefined),
  nowMs: number,
): (p: Payment) => boolean {
  const closingOf = typeof closingDates === 'function' ? closingDates : (e: number) => closingDates[e];
  return (p) => {
    const closing = closingOf(p.emission);
    if (closing === undefined) return true;
    try {
      return isClaimable(closing, nowMs);
    } catch {
      return true;
    }
  };
}
