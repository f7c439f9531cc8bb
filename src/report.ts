// The shift (X) and end-of-day (Z) report: payments of the period from the ledger, what else the device
// showed from the check journal (docs/firmware.md, "At the counter"). Portable: the device uses it, and
// a host can say the same figures from the same records.
import type { JournalEntry, JournalKind } from './journal.ts';
import { REASONS } from './sph1/check.ts';

export interface ReportPayment {
  emission: number;
  block: number;
  number: number;
  prizeEur: number;
  paidAtMs: number;
}

export interface Report {
  /** The period: after the second of the last Z (0: since the first use), to now. */
  fromMs: number;
  toMs: number;
  payments: number;
  totalEur: number;
  /** Of those, paid from `dayStartMs` (Paris midnight of `toMs`). */
  today: number;
  todayEur: number;
  firstPaidMs: number;
  lastPaidMs: number;
  /** Wins shown payable here in the period and not paid (the clerk pressed C, or walked away). */
  unpaidWins: number;
  unpaidEur: number;
  /** Wins sent to a payment centre in the period. */
  centre: number;
  /** Refusals in the period: DÉJÀ PAYÉ, EXPIRÉ, NON PAYABLE, and NON VALIDE by SPH1 reason. */
  refused: Partial<Record<Exclude<JournalKind, 'lose' | 'win' | 'paid' | 'centre'> | string, number>>;
  /** Scans in the period (every journal entry). */
  scans: number;
}

export const ticketKey = (t: { emission: number; block: number; number: number }) =>
  `${t.emission}-${t.block}-${t.number}`;

/**
 * The report of [fromMs, toMs]: `payments` and `journal` are visited once each; a win of the journal is
 * unpaid when no payment of the ledger has its ticket (`paid`, the whole ledger's keys, or a lookup).
 */
export function makeReport(
  fromMs: number,
  toMs: number,
  dayStartMs: number,
  payments: (f: (p: ReportPayment) => void) => void,
  journal: (f: (e: JournalEntry) => void) => void,
  paid: (t: JournalEntry) => boolean,
): Report {
  const r: Report = {
    fromMs,
    toMs,
    payments: 0,
    totalEur: 0,
    today: 0,
    todayEur: 0,
    firstPaidMs: 0,
    lastPaidMs: 0,
    unpaidWins: 0,
    unpaidEur: 0,
    centre: 0,
    refused: {},
    scans: 0,
  };
  // The period starts after the last Z's second (the journal keeps seconds): what happened in that
  // second was in the Z.
  const after = (ms: number) => !fromMs || Math.floor(ms / 1000) > Math.floor(fromMs / 1000);
  payments((p) => {
    if (!after(p.paidAtMs) || p.paidAtMs > toMs) return;
    r.payments++;
    r.totalEur += p.prizeEur;
    if (p.paidAtMs >= dayStartMs) {
      r.today++;
      r.todayEur += p.prizeEur;
    }
    if (!r.firstPaidMs || p.paidAtMs < r.firstPaidMs) r.firstPaidMs = p.paidAtMs;
    if (p.paidAtMs > r.lastPaidMs) r.lastPaidMs = p.paidAtMs;
  });
  const seen: Record<string, 1> = {};
  journal((e) => {
    if (!after(e.atMs) || e.atMs > toMs) return;
    r.scans++;
    if (e.kind === 'centre') r.centre++;
    else if (e.kind === 'win') {
      const k = ticketKey(e);
      if (!seen[k] && !paid(e)) {
        r.unpaidWins++;
        r.unpaidEur += e.prizeEur;
      }
      seen[k] = 1;
    } else if (e.kind !== 'lose' && e.kind !== 'paid') {
      const why = e.kind === 'invalid' ? (REASONS[e.reason] ?? 'E_EMISSION') : e.kind;
      r.refused[why] = (r.refused[why] ?? 0) + 1;
    }
  });
  return r;
}
