// The verdict of one scan: pure, from the SPH1 check result, the ledger, the claim deadline and the
// payout limit; and the rules that hold a win back after it (no trusted time, a doubtful ledger, the
// deadline re-checked at OK, a duplicate refused by the ledger). No I/O here, so every rule is
// unit-tested in Node (test/firmware/logic.test.ts, decide.test.ts).
import type { CheckResult, Reason } from '../src/sph1/check.ts';
import type { TicketId } from '../src/sph1/body.ts';

/** A payment found in the ledger (same shape as the ledger's record). */
export interface PaidRecord {
  prizeEur: number;
  paidAtMs: number;
  deviceId: string;
}

/** From this amount a payment centre asks for an identity document, and no till pays (FDJ). */
export const ID_REQUIRED_FROM_EUR = 5000;

export type Verdict =
  | { kind: 'invalid'; reason: Reason | 'E_EMISSION' }
  | { kind: 'lose'; ticket: TicketId }
  | { kind: 'already-paid'; ticket: TicketId; prizeEur: number; paid: PaidRecord }
  | { kind: 'expired'; ticket: TicketId; prizeEur: number; deadlineMs: number }
  /** Its emission goes on sale at `onSaleMs` (the notice's on_sale, 00:00 Paris): nothing paid before. */
  | { kind: 'early'; ticket: TicketId; prizeEur: number; onSaleMs: number }
  /** Above the retailer's payout limit: the winner goes to a payment centre. */
  | { kind: 'centre'; ticket: TicketId; prizeEur: number; idRequired: boolean }
  /** Payable here: OK records the payment. */
  | { kind: 'win'; ticket: TicketId; prizeEur: number };

export interface DecideInput {
  result: CheckResult;
  /** The ledger's record of this ticket, if it was paid. */
  paid?: PaidRecord;
  nowMs: number;
  /**
   * Last moment (ms, exclusive) a prize of the ticket's emission can be claimed; null: on sale, no
   * deadline yet (payable under the other checks); undefined: emission unknown.
   */
  deadlineMs: number | null | undefined;
  payoutLimitEur: number;
  /** From this prize the winner shows an ID at a payment centre: never paid here, whatever the limit. */
  idThresholdEur?: number;
  /** When the ticket's emission goes on sale (ms), from the notice; undefined: no such date. */
  onSaleMs?: number;
}

export function decide(i: DecideInput): Verdict {
  const r = i.result;
  if (r.status === 'invalid' || !r.ticket) return { kind: 'invalid', reason: r.reason ?? 'E_PREFIX' };
  const ticket = r.ticket;
  if (r.status === 'lose') return { kind: 'lose', ticket };
  // A paid ticket says so even after the deadline: the clerk sees why it is refused.
  if (i.paid) return { kind: 'already-paid', ticket, prizeEur: r.prizeEur, paid: i.paid };
  if (i.deadlineMs === undefined) return { kind: 'invalid', reason: 'E_EMISSION' };
  if (i.deadlineMs !== null && i.nowMs >= i.deadlineMs)
    return { kind: 'expired', ticket, prizeEur: r.prizeEur, deadlineMs: i.deadlineMs };
  // Judged by trusted time only: without it the win is withheld ('clock', below), not called early.
  if (i.onSaleMs !== undefined && i.nowMs >= PLAUSIBLE_FROM && i.nowMs < i.onSaleMs)
    return { kind: 'early', ticket, prizeEur: r.prizeEur, onSaleMs: i.onSaleMs };
  const idRequired = r.prizeEur >= (i.idThresholdEur ?? ID_REQUIRED_FROM_EUR);
  if (idRequired || r.prizeEur > i.payoutLimitEur) return { kind: 'centre', ticket, prizeEur: r.prizeEur, idRequired };
  return { kind: 'win', ticket, prizeEur: r.prizeEur };
}

/**
 * Plausible times: 2024-01-01 ≤ t < 2100-01-01 UTC. An RTC outside is never believed, nothing is
 * compacted at a trusted time outside, and trusted time before them is no time: nothing is paid.
 */
export const PLAUSIBLE_FROM = 1704067200000;
export const plausible = (ms: number) => ms >= PLAUSIBLE_FROM && ms < 4102444800000;

/**
 * Why a win decided at trusted time `nowMs` is not payable now: 'clock' without trusted time (a fresh
 * device whose RTC is unset or was refused: no deadline can be judged, docs/ledger.md "Trusted time"),
 * 'ledger' when both ledger copies are damaged (a payment may have lost both, which ticket's cannot be
 * told); '' when it is.
 */
export function withheld(nowMs: number, ledgerDoubtful: boolean): '' | 'clock' | 'ledger' {
  return nowMs < PLAUSIBLE_FROM ? 'clock' : ledgerDoubtful ? 'ledger' : '';
}

/** OK on win `v` at trusted time `nowMs`: the claim period may have ended since the scan (payWaitMs). */
export function atOk(
  v: Extract<Verdict, { kind: 'win' }>,
  nowMs: number,
  deadlineMs: number | null,
): Extract<Verdict, { kind: 'win' | 'expired' }> {
  return deadlineMs !== null && nowMs >= deadlineMs
    ? { kind: 'expired', ticket: v.ticket, prizeEur: v.prizeEur, deadlineMs }
    : v;
}

/**
 * The ledger refused to record win `v` (its error `code`): a ticket it already holds (`paid`, found
 * after DUPLICATE) is shown as paid, never paid twice; otherwise the screen's reason.
 */
export function recordRefused(
  v: Extract<Verdict, { kind: 'win' }>,
  code: string | undefined,
  paid: PaidRecord | undefined,
): Extract<Verdict, { kind: 'already-paid' }> | 'ledgerFull' | 'recordFailed' {
  if (code === 'DUPLICATE' && paid) return { kind: 'already-paid', ticket: v.ticket, prizeEur: v.prizeEur, paid };
  return code === 'FULL' ? 'ledgerFull' : 'recordFailed';
}
