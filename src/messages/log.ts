// The device log's words: the text of each code of src/messages/log-codes.ts, in English, what the log
// read before it was codes, word for word (the log stays English, as it was). In French, the line in
// English goes through the French catalogue's device-log table (`messages('fr').web.log`, src/messages/fr.ts,
// the web page's log panel); test/cli/messages.test.ts and log-codes.test.ts check every code has both.
// `{n}` is the code's n-th argument; the last one takes the rest of the line (an error message may hold
// anything). Host side only: the firmware has the codes.
import { LOG_CODES, LOG_SEP } from './log-codes.ts';

export const LOG_TEXT: readonly string[] = [
  'boot {0}{1} image {2} config {3}',
  'journal: {0}',
  'clock: RTC {0} not believed, trusted {1}',
  'ready: {0} payments held, {1} keys, limit {2} EUR',
  'image confirmed',
  'clock: no trusted time, {0} not payable',
  'ledger: damaged, {0} not payable',
  'payment of {0} failed: {1}',
  'paid {0} {1} EUR',
  'paid {0} {1} EUR offline',
  'error after payment: {0}',
  'error: {0}',
  'clock: {0} far ahead of {1}, asked',
  'clock: {0} confirmed',
  'clock: refused',
  '{0}: expired before OK',
  'receipt: reprint done',
  'receipt: reprint failed',
  'notice: {0}',
  'notice {0} from {1} refused: {2}{3}',
  'notice {0} applied ({1}), {2} emissions',
  'registry: no network or key: payments stay local',
  'registry: no outbox ({0}): payments stay local',
  'registry: device key {0}…',
  'registry: {0}, {1} to send',
  'registry: {0} already paid by {1}',
  'registry refused the claim: {0}',
  'registry: no answer ({0})',
  'outbox: {0}',
  'outbox: {0} entries without a payment dropped',
  'sync: not sent ({1}), {0} waiting',
  'sync: {0} CONFLICT, also paid by {1}',
  'sync: {0} refused: {1}',
  'sync: {0} sent, {1} waiting',
  'update {0}: from {1}',
  'update {0}: refused: {1}',
  'update: restarting into the new image',
  'update: installed {0}',
  'update: refused: {0}',
  'update: campaign over, download dropped',
  'halted: {0}',
  'report {0}: {1} payments {2} EUR, {3} not paid',
  'printer: {0}',
  'ledger: {0} damaged, repaired {1}',
  'ledger: clock implausible ({0}), no compaction',
  'ledger: compacted, {0} expired payments dropped',
];

/** How many arguments a text takes (the highest `{n}` plus one). */
export function logArity(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/\{(\d+)\}/g)) n = Math.max(n, Number(m[1]) + 1);
  return n;
}

/**
 * A device log line in words: a coded line (LOG_SEP, code, arguments) expanded with LOG_TEXT; any other
 * line as it is. An unknown code, or a line that is not one, reads as `#code arguments`.
 */
export function expandLog(line: string): string {
  if (line[0] !== LOG_SEP) return line;
  const parts = line.slice(1).split(LOG_SEP);
  const code = Number(parts[0]);
  const text = Number.isInteger(code) && code >= 0 && code < LOG_CODES ? LOG_TEXT[code] : undefined;
  if (text === undefined) return '#' + parts.join(' ');
  const k = logArity(text);
  const args = parts.slice(1);
  // The last argument takes the rest: a separator inside it is its own.
  if (k > 0 && args.length > k) args.splice(k - 1, args.length, args.slice(k - 1).join(LOG_SEP));
  return text.replace(/\{(\d+)\}/g, (_, i: string) => args[Number(i)] ?? '');
}
