// The X and Z reports as the clerk reads them: the figures of src/report.ts and their printed lines.
// Compiled apart, when the clerk first asks for a report (tools/build.ts `LAZY_PARTS`, seam
// firmware/reports.ts), with the core's shortened names and its helpers (firmware/kit.ts).
import { formatEur, type Lang } from '../src/i18n.ts';
import type { ReceiptLine } from '../src/print/escpos.ts';
import type { JournalEntry } from '../src/journal.ts';
import { makeReport, type Report, type ReportPayment } from '../src/report.ts';
import { frenchDateTime } from '../src/paris-time.ts';

const WORDS = {
  fr: {
    x: 'RAPPORT X (sans clôture)',
    z: 'RAPPORT Z (clôture)',
    device: 'Appareil',
    from: 'Depuis',
    start: 'la mise en service',
    to: "Jusqu'au",
    pays: 'Paiements',
    today: "dont aujourd'hui",
    first: 'Premier',
    last: 'Dernier',
    unpaid: 'Gains non payés',
    centre: 'Envoyés en centre',
    refused: 'Refus',
    scans: 'Tickets lus',
  },
  en: {
    x: 'X REPORT (no close)',
    z: 'Z REPORT (period closed)',
    device: 'Device',
    from: 'From',
    start: 'first use',
    to: 'To',
    pays: 'Payments',
    today: 'of which today',
    first: 'First',
    last: 'Last',
    unpaid: 'Wins not paid',
    centre: 'Sent to a centre',
    refused: 'Refusals',
    scans: 'Tickets read',
  },
};

export interface CounterArgs {
  z: boolean;
  lang: Lang;
  shop: string;
  deviceId: string;
  /** The period: after the last Z, to now; today from Paris midnight. */
  fromMs: number;
  toMs: number;
  dayStartMs: number;
  payments: (f: (p: ReportPayment) => void) => void;
  journal: (f: (e: JournalEntry) => void) => void;
  paid: (e: JournalEntry) => boolean;
}

/** The report of the period, and its printed lines. */
export function counterReport(a: CounterArgs): { report: Report; lines: ReceiptLine[] } {
  const r = makeReport(a.fromMs, a.toMs, a.dayStartMs, a.payments, a.journal, a.paid);
  const w = WORDS[a.lang];
  const eur = (n: number) => formatEur(n, a.lang);
  const when = (ms: number) => (ms ? frenchDateTime(ms) : '-');
  const lines: ReceiptLine[] = [
    { text: 'SAPHIR 250 000 €', bold: true, center: true },
    { text: a.shop || a.deviceId, center: true },
    { text: a.z ? w.z : w.x, bold: true, center: true },
    { text: `${w.device} ${a.deviceId}` },
    { text: `${w.from} ${r.fromMs ? frenchDateTime(r.fromMs) : w.start}` },
    { text: `${w.to} ${frenchDateTime(r.toMs)}` },
    { text: `${w.pays} ${r.payments}: ${eur(r.totalEur)}`, bold: true },
    { text: `${w.today} ${r.today}: ${eur(r.todayEur)}` },
    { text: `${w.first} ${when(r.firstPaidMs)}` },
    { text: `${w.last} ${when(r.lastPaidMs)}` },
    { text: `${w.unpaid} ${r.unpaidWins}: ${eur(r.unpaidEur)}` },
    { text: `${w.centre} ${r.centre}` },
    { text: `${w.scans} ${r.scans}` },
  ];
  const why = Object.keys(r.refused);
  if (why.length) lines.push({ text: `${w.refused}:` });
  for (const k of why) lines.push({ text: ` ${k} ${r.refused[k]}` });
  return { report: r, lines };
}
