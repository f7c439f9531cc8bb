// What the receipt printer prints: the payment receipt after PAYÉ, and the claim slip a winner takes
// to a payment centre. Pure: lines in, ESC/POS out (src/print/escpos.ts).
import { formatEur, type Lang } from '../src/i18n.ts';
import type { ReceiptLine } from '../src/print/escpos.ts';
import type { TicketId } from '../src/sph1/body.ts';
import { frenchDate, frenchDateTime } from '../src/paris-time.ts';
import { ticketLine } from './screens.ts';

export const WORDS = {
  fr: {
    receipt: 'REÇU DE PAIEMENT',
    slip: 'BON POUR CENTRE DE PAIEMENT',
    copy: 'DUPLICATA',
    device: 'Appareil',
    ticket: 'Ticket',
    amount: 'Montant payé',
    prize: 'Gain',
    at: 'Le',
    online: 'Réf. registre',
    offline: 'Payé hors ligne',
    id: "Pièce d'identité obligatoire",
    until: 'Avant le',
    onSale: "30 j. après l'avis de clôture",
    keep: 'Gardez le ticket avec ce bon',
  },
  en: {
    receipt: 'PAYMENT RECEIPT',
    slip: 'TAKE TO A PAYMENT CENTRE',
    copy: 'DUPLICATE',
    device: 'Device',
    ticket: 'Ticket',
    amount: 'Amount paid',
    prize: 'Prize',
    at: 'On',
    online: 'Registry ref.',
    offline: 'Paid offline',
    id: 'ID document required',
    until: 'Before',
    onSale: '30 days after the closing notice',
    keep: 'Keep the ticket with this slip',
  },
};

export interface ReceiptFacts {
  lang: Lang;
  shop: string;
  deviceId: string;
  ticket: TicketId;
  prizeEur: number;
  /** Trusted time of the payment or of the verdict, ms. */
  atMs: number;
}

const head = (f: ReceiptFacts, title: string): ReceiptLine[] => {
  const l: ReceiptLine[] = [{ text: 'SAPHIR 250 000 €', bold: true, center: true }];
  if (f.shop) l.push({ text: f.shop, center: true });
  l.push({ text: '' }, { text: title, bold: true, center: true });
  return l;
};

/**
 * The payment receipt: `registryRef` is the claim the registry granted; `offline`, paid without its
 * answer (a device without a registry prints neither).
 */
export function paymentReceipt(f: ReceiptFacts, registryRef: string, offline: boolean): ReceiptLine[] {
  const w = WORDS[f.lang];
  const l: ReceiptLine[] = [
    ...head(f, w.receipt),
    { text: `${w.device} ${f.deviceId}` },
    { text: `${w.ticket} ${ticketLine(f.ticket)}` },
    { text: `${w.amount} ${formatEur(f.prizeEur, f.lang)}`, bold: true },
    { text: `${w.at} ${frenchDateTime(f.atMs)}` },
  ];
  if (registryRef) l.push({ text: w.online }, { text: registryRef });
  else if (offline) l.push({ text: w.offline });
  l.push({ qr: ticketLine(f.ticket) });
  return l;
}

/** A receipt printed again: marked as a copy at the top, so it never passes for a second one. */
export const duplicate = (lines: ReceiptLine[], lang: Lang): ReceiptLine[] => [
  { text: `*** ${WORDS[lang].copy} ***`, bold: true, center: true },
  ...lines,
];

/** The claim slip of a win paid only at a payment centre, until the claim deadline (exclusive; null: on sale). */
export function claimSlip(f: ReceiptFacts, deadlineMs: number | null, idRequired: boolean): ReceiptLine[] {
  const w = WORDS[f.lang];
  const l = [
    ...head(f, w.slip),
    { text: `${w.ticket} ${ticketLine(f.ticket)}` },
    { text: `${w.prize} ${formatEur(f.prizeEur, f.lang)}`, bold: true },
    { text: `${w.until} ${deadlineMs === null ? w.onSale : frenchDate(deadlineMs - 1)}`, bold: true },
  ];
  if (idRequired) l.push({ text: w.id, bold: true });
  l.push({ text: `${w.at} ${frenchDateTime(f.atMs)}, ${f.deviceId}` }, { text: w.keep }, { qr: ticketLine(f.ticket) });
  return l;
}
