// Screen texts: 4 rows × 20 columns. Rows 0–2 are for the clerk; row 3 is the CUSTOMER LINE (turned
// towards the customer on the device): the amount of a win, or the outcome in one word. Pure.
import { REASON_TEXT, formatEur, type Lang } from '../src/i18n.ts';
import type { Verdict } from './decide.ts';
import { frenchDate, frenchDateTime } from '../src/paris-time.ts';
import { PRODUCT, VERSION } from './build-info.ts';

export const COLUMNS = 20;
export const ROWS = 4;

interface Words {
  ready: string;
  scan: string;
  win: string;
  lose: string;
  invalid: string;
  alreadyPaid: string;
  expired: string;
  paid: string;
  okPay: string;
  cancelled: string;
  centre: string;
  centreId: string;
  on: string;
  by: string;
  until: string;
  notPayable: string;
  recorded: string;
  error: string;
  booting: string;
  emission: string;
  ledgerFull: string;
  configInvalid: string;
  recordFailed: string;
  checking: string;
  registry: string;
  offline: string;
  payLater: string;
  networkDown: string;
  refused: string;
  forged: string;
  toSend: string;
  clockAhead: string;
  clockKeys: string;
  clockUnset: string;
  ledgerDamaged: string;
  cashCounted: string;
  okConfirm: string;
  noReceipt: string;
  reprint: string;
  closeZ: string;
  reportX: string;
  reportZ: string;
  paysShort: string;
  unpaidShort: string;
  notice: string;
  noNotice: string;
  applied: string;
  noticeRefused: string;
  onSale: string;
}

export const TEXT: Record<Lang, Words> = {
  fr: {
    ready: 'PRÊT',
    scan: 'Scannez un ticket',
    win: 'GAGNANT',
    lose: 'PERDANT',
    invalid: 'NON VALIDE',
    alreadyPaid: 'DÉJÀ PAYÉ',
    expired: 'TICKET EXPIRÉ',
    paid: 'PAYÉ',
    okPay: 'OK payer  C annuler',
    cancelled: 'Paiement annulé',
    centre: 'Payable en centre de paiement',
    centreId: "Centre de paiement, pièce d'identité",
    on: 'le',
    by: 'par',
    until: 'Limite',
    notPayable: 'NON PAYABLE',
    recorded: 'Paiement enregistré',
    error: 'ERREUR',
    booting: 'Démarrage…',
    emission: 'émission inconnue',
    ledgerFull: 'journal plein',
    configInvalid: 'configuration invalide',
    recordFailed: 'paiement non enregistré',
    checking: 'VÉRIFICATION',
    registry: 'Registre central…',
    offline: 'hors ligne',
    payLater: 'payer plus tard',
    networkDown: 'réseau indisponible',
    refused: 'refusé par le registre',
    forged: 'réponse non signée',
    toSend: 'à transmettre',
    clockAhead: 'HORLOGE EN AVANCE',
    clockKeys: 'OK valider C refuser',
    clockUnset: 'horloge non réglée',
    ledgerDamaged: 'journal endommagé',
    cashCounted: 'Espèces comptées ?',
    okConfirm: 'OK confirmer C annul',
    noReceipt: 'reçu non imprimé',
    reprint: 'réimpr.: 0 puis OK',
    closeZ: 'Clôturer (rapport Z)?',
    reportX: 'RAPPORT X',
    reportZ: 'RAPPORT Z (clôturé)',
    paysShort: 'paiements',
    unpaidShort: 'non payés',
    notice: 'AVIS n°',
    noNotice: 'aucun avis',
    applied: 'appliqué',
    noticeRefused: 'AVIS REFUSÉ',
    onSale: 'En vente le',
  },
  en: {
    ready: 'READY',
    scan: 'Scan a ticket',
    win: 'WINNER',
    lose: 'LOSER',
    invalid: 'NOT VALID',
    alreadyPaid: 'ALREADY PAID',
    expired: 'TICKET EXPIRED',
    paid: 'PAID',
    okPay: 'OK pay  C cancel',
    cancelled: 'Payment cancelled',
    centre: 'Payable at a payment centre',
    centreId: 'Payment centre, ID document required',
    on: 'on',
    by: 'by',
    until: 'Deadline',
    notPayable: 'NOT PAYABLE',
    recorded: 'Payment recorded',
    error: 'ERROR',
    booting: 'Starting…',
    emission: 'unknown emission',
    ledgerFull: 'ledger full',
    configInvalid: 'invalid configuration',
    recordFailed: 'payment not recorded',
    checking: 'CHECKING',
    registry: 'Central registry…',
    offline: 'offline',
    payLater: 'pay later',
    networkDown: 'network unavailable',
    refused: 'refused by the registry',
    forged: 'answer not signed',
    toSend: 'to send',
    clockAhead: 'CLOCK JUMPED AHEAD',
    clockKeys: 'OK accept  C refuse',
    clockUnset: 'clock not set',
    ledgerDamaged: 'ledger damaged',
    cashCounted: 'Cash counted?',
    okConfirm: 'OK confirm  C cancel',
    noReceipt: 'receipt not printed',
    reprint: 'reprint: 0 then OK',
    closeZ: 'Close the day (Z)?',
    reportX: 'X REPORT',
    reportZ: 'Z REPORT (closed)',
    paysShort: 'payments',
    unpaidShort: 'not paid',
    notice: 'NOTICE',
    noNotice: 'no notice',
    applied: 'applied',
    noticeRefused: 'NOTICE REFUSED',
    onSale: 'On sale from',
  },
};

/** Word-wraps `text` into at most `rows` lines of COLUMNS characters (a long word is cut). */
export function wrap(text: string, rows: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (!line) line = word;
    else if (line.length + 1 + word.length <= COLUMNS) line += ' ' + word;
    else {
      out.push(line);
      line = word;
    }
    while (line.length > COLUMNS) {
      out.push(line.slice(0, COLUMNS));
      line = line.slice(COLUMNS);
    }
  }
  if (line) out.push(line);
  return out.slice(0, rows);
}

/** Pads the clerk rows to 3 and appends the customer line. */
function screen(clerk: string[], customer: string): string[] {
  const rows = clerk.slice(0, ROWS - 1);
  while (rows.length < ROWS - 1) rows.push('');
  rows.push(customer);
  return rows.map((r) => r.slice(0, COLUMNS));
}

/** emission-block-number, as on screens and in the log. */
export const ticketLine = (t: { emission: number; block: number; number: number }) =>
  `${t.emission}-${t.block}-${t.number}`;

/** `unsent`: offline payments the registry has not heard yet (shown when some wait). */
export function readyScreen(lang: Lang, unsent = 0): string[] {
  const w = TEXT[lang];
  return screen([PRODUCT, w.ready, w.scan], unsent > 0 ? `${unsent} ${w.toSend}` : '');
}

export function checkingScreen(prizeEur: number, lang: Lang): string[] {
  const w = TEXT[lang];
  return screen([w.checking, w.registry], formatEur(prizeEur, lang));
}

/**
 * A win not paid now: the registry could not be asked about it and it is above the offline limit, or
 * (`why` = `clockUnset`) the device has no trusted time to judge its claim deadline by.
 */
export function payLaterScreen(prizeEur: number, lang: Lang, why = TEXT[lang].networkDown): string[] {
  const w = TEXT[lang];
  return screen([w.notPayable, why, w.payLater], formatEur(prizeEur, lang));
}

export function bootScreen(lang: Lang, imageHash: string): string[] {
  return screen([PRODUCT, `v${VERSION}`, `img ${imageHash.slice(0, 12)}`], TEXT[lang].booting);
}

/** The customer line of a win: the amount, framed from the big-win amount (`big`). */
export const amountLine = (eur: number, lang: Lang, big = false) =>
  big ? `** ${formatEur(eur, lang)} **` : formatEur(eur, lang);

/** The confirm tier: OK on a win from `confirmFromEur` asks the clerk to count the cash first. */
export function confirmCashScreen(prizeEur: number, lang: Lang): string[] {
  const w = TEXT[lang];
  return screen([w.cashCounted, formatEur(prizeEur, lang), w.okConfirm], formatEur(prizeEur, lang));
}

export function verdictScreen(v: Verdict, lang: Lang, big = false): string[] {
  const w = TEXT[lang];
  switch (v.kind) {
    case 'invalid': {
      const reason = v.reason === 'E_EMISSION' ? w.emission : REASON_TEXT[lang][v.reason];
      return screen([w.invalid, ...wrap(reason, 2)], w.invalid);
    }
    case 'lose':
      return screen([w.lose, ticketLine(v.ticket)], w.lose);
    case 'already-paid':
      return screen(
        [w.alreadyPaid, `${w.on} ${frenchDateTime(v.paid.paidAtMs)}`, `${w.by} ${v.paid.deviceId}`],
        w.alreadyPaid,
      );
    case 'expired':
      return screen([w.expired, `${w.until} ${frenchDate(v.deadlineMs - 1)}`, ticketLine(v.ticket)], w.notPayable);
    case 'early':
      return screen([w.notPayable, w.onSale, `${frenchDate(v.onSaleMs)} ${ticketLine(v.ticket)}`], w.notPayable);
    case 'centre':
      return screen([w.win, ...wrap(v.idRequired ? w.centreId : w.centre, 2)], amountLine(v.prizeEur, lang, big));
    case 'win':
      return screen([w.win, ticketLine(v.ticket), w.okPay], amountLine(v.prizeEur, lang, big));
  }
}

/** `offline`: paid without the registry's answer; the payment waits in the outbox. */
/** `offline`: paid without the registry's answer; `noReceipt`: the printer failed (reprint from the menu). */
export function paidScreen(prizeEur: number, lang: Lang, offline = false, noReceipt = false): string[] {
  const w = TEXT[lang];
  const rows = [w.paid, noReceipt ? w.noReceipt : w.recorded];
  rows.push(noReceipt ? w.reprint : offline ? w.offline : '');
  return screen(rows, formatEur(prizeEur, lang));
}

export function cancelledScreen(lang: Lang): string[] {
  return screen([TEXT[lang].cancelled], '');
}

export function errorScreen(lang: Lang, message: string): string[] {
  const w = TEXT[lang];
  return screen([w.error, ...wrap(message, 2)], w.error);
}

/** The RTC reads far ahead of the trusted time: the clerk confirms it (OK) or not (C). */
export function clockScreen(lang: Lang, rtcMs: number): string[] {
  const w = TEXT[lang];
  return screen([w.clockAhead, frenchDateTime(rtcMs), w.clockKeys], '');
}

/** An X or Z report on screen: payments and their total, wins not paid; the rest is on paper. */
export function reportScreen(
  r: { payments: number; totalEur: number; unpaidWins: number },
  z: boolean,
  lang: Lang,
  printed: boolean,
): string[] {
  const w = TEXT[lang];
  return screen(
    [z ? w.reportZ : w.reportX, `${r.payments} ${w.paysShort}`, `${r.unpaidWins} ${w.unpaidShort}`],
    printed ? formatEur(r.totalEur, lang) : w.noReceipt,
  );
}

/** The Z report asks first: it closes the period. */
export const closeZScreen = (lang: Lang) => screen([TEXT[lang].closeZ, TEXT[lang].okConfirm], '');

/** The info screen (3, OK): the firmware, the device id, the operator notice in force (0: none). */
export function infoScreen(lang: Lang, deviceId: string, notice: number): string[] {
  const w = TEXT[lang];
  return screen([`${PRODUCT} v${VERSION}`, deviceId, notice ? `${w.notice} ${notice}` : w.noNotice], '');
}

/** An operator notice arrived: applied, or refused (why: in the log). */
export function noticeScreen(lang: Lang, version: number, refused: boolean): string[] {
  const w = TEXT[lang];
  return screen(refused ? [w.noticeRefused, `n° ${version}`] : [`${w.notice} ${version}`, w.applied], '');
}
