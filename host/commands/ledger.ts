// saphir ledger export --port PATH [--baud N] [--format csv|json] [--quiet] [--lang fr|en]
import { withServiceClient } from './service-text.ts';
import { UsageError, intOf, parseCommand } from '../args.ts';
import { devTechKeyWarning, techSeedOf } from '../key-args.ts';
import type { Lang } from '../../src/i18n.ts';
import { messages } from '../../src/messages/index.ts';
import { exportRow, toCsv } from '../../src/ledger/csv.ts';

const HELP = (lang: Lang) => messages(lang).help.ledger;
import { progressOffTty } from '../progress.ts';
import { Failure } from '../args.ts';
import type { ServiceClient } from '../flash-client.ts';
import type { PaymentResult, RegistryError } from '../../src/registry/protocol.ts';
import { checkCode } from '../../src/sph1/check.ts';
import { postSigned, type ClientAnswer } from '../registry/client.ts';
import { Journal, type JournalEntry } from '../../src/journal.ts';
import { makeReport, ticketKey, type ReportPayment } from '../../src/report.ts';
import { readLastTwo } from '../../src/ledger/index.ts';
import { REASONS } from '../../src/sph1/check.ts';
import { parisDate, parisMidnightUtc } from '../../src/claim.ts';
import { formatEur } from '../../src/i18n.ts';
import { snakeKeys } from '../json.ts';

export { exportRow, toCsv };

export async function run(args: string[]): Promise<number> {
  // `--report` alone is `--report x` (the current period).
  args = args.flatMap((a, i) =>
    a === '--report' && (i + 1 >= args.length || args[i + 1].startsWith('-')) ? [a, 'x'] : [a],
  );
  const parsed = parseCommand(args, HELP, {
    port: { type: 'string', short: 'p' },
    baud: { type: 'string', short: 'b' },
    format: { type: 'string' },
    'tech-key': { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
    to: { type: 'string' },
    journal: { type: 'boolean' },
    report: { type: 'string' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'export') throw new UsageError((m) => m.ledger.usage);
  if (!values.port) throw new UsageError((m) => m.service.port);
  const format = values.format ?? 'csv';
  if (format !== 'csv' && format !== 'json') throw new UsageError((m) => m.ledger.format);
  const baud = values.baud === undefined ? 115200 : intOf(values.baud, '--baud', 300, 4000000);
  if (values.to !== undefined && !/^https?:\/\/[\x21-\x7e]+$/.test(values.to))
    throw new UsageError((m) => m.ledger.toUrl);
  if ([values.to !== undefined, !!values.journal, values.report !== undefined].filter(Boolean).length > 1)
    throw new UsageError((m) => m.ledger.oneOf);
  const report = values.report;
  if (report !== undefined && report !== 'x' && report !== 'z') throw new UsageError((m) => m.ledger.reportKind);
  const tech = techSeedOf(values['tech-key']);
  if (tech.dev) process.stderr.write(devTechKeyWarning('ledger', lang));
  if (values.to !== undefined)
    return withServiceClient(
      'ledger',
      values.port,
      baud,
      lang,
      (client) => pushOutbox(client, values.to!, lang),
      tech.seed,
    );
  if (values.journal || report)
    return withServiceClient(
      'ledger',
      values.port,
      baud,
      lang,
      (client) => (report ? printReport(client, format, lang, report === 'z') : printJournal(client, format, lang)),
      tech.seed,
    );
  return withServiceClient(
    'ledger',
    values.port,
    baud,
    lang,
    async (client) => {
      const entries = await client.ledger({ onProgress: progressOffTty('', !!values.quiet) });
      process.stdout.write(format === 'json' ? JSON.stringify(entries.map(exportRow), null, 1) + '\n' : toCsv(entries));
      process.stderr.write(messages(lang).ledger.exported(entries.length) + '\n');
      return 0;
    },
    tech.seed,
  );
}

/**
 * `--to URL`: the device's offline payments, signed by the device itself (OUTBOX), carried to the fleet
 * registry; each batch the registry answered is marked heard on the device. Idempotent: a batch sent
 * twice is `granted` again, never counted twice.
 */
export async function pushOutbox(client: ServiceClient, url: string, lang: Lang): Promise<number> {
  const t = messages(lang).ledger;
  let sent = 0;
  let conflicts = 0;
  let invalid = 0;
  for (let round = 0; round < 100; round++) {
    const { request, slots } = await client.outbox();
    if (!request) break;
    let res: ClientAnswer;
    try {
      res = await postSigned(url, request, 30_000);
    } catch (e) {
      throw new Failure((m) => m.ledger.noRegistry(url, e instanceof Error ? e.message : String(e)));
    }
    if (!res.ok || !Array.isArray(res.body.results)) {
      const b = res.body as Partial<RegistryError>;
      throw new Failure((m) => m.ledger.registryRefused(String(b.error ?? res.status), String(b.detail ?? '')));
    }
    const results: unknown[] = res.body.results;
    const payments = request.payments;
    // Only the registry's answer to this batch marks anything: one result a payment, in order, each
    // for the ticket sent. Anything else (a wrong URL answering {"results": []}) would drop offline
    // payments the registry never heard of.
    if (results.length !== payments.length || slots.length !== payments.length)
      throw new Failure((m) => m.ledger.countMismatch(url, payments.length, results.length));
    const heard: number[] = [];
    for (let i = 0; i < payments.length; i++) {
      const r = results[i];
      if (!answersFor(r, payments[i].code)) continue;
      heard.push(slots[i]);
      if (r.result === 'conflict') conflicts++;
      else if (r.result === 'invalid') invalid++;
    }
    if (heard.length > 0) await client.outboxDone(heard);
    sent += heard.length;
    if (heard.length < payments.length) {
      process.stdout.write(t.pushed(sent, conflicts, invalid) + '\n');
      const missed = payments.length - heard.length;
      throw new Failure((m) => m.ledger.notMatched(url, missed, payments.length));
    }
  }
  process.stdout.write(t.pushed(sent, conflicts, invalid) + '\n');
  return 0;
}

/**
 * True when `r` is a sync result for the payment of `code`: `granted` or `conflict` naming its ticket,
 * or `invalid` with a reason (a code the registry refuses names no ticket).
 */
export function answersFor(r: unknown, code: string): r is PaymentResult {
  if (typeof r !== 'object' || r === null) return false;
  const o = r as Record<string, unknown>;
  if (o.result === 'invalid') return typeof o.reason === 'string' && o.reason.length > 0;
  if (o.result !== 'granted' && o.result !== 'conflict') return false;
  // The ticket's id is in the code's bytes, whoever signed it (no key: only decoded, not verified).
  const id = checkCode(code.trim(), { keys: new Map(), verify: () => false }).ticket;
  const tk = o.ticket as Record<string, unknown> | undefined;
  return (
    id !== undefined &&
    typeof tk === 'object' &&
    tk !== null &&
    tk.emission === id.emission &&
    tk.block === id.block &&
    tk.number === id.number
  );
}

/** The device's check journal (JOURNAL sectors read with src/journal.ts), as CSV or JSON. */
async function readJournal(
  client: ServiceClient,
): Promise<{ entries: JournalEntry[]; lastZ: number; zBefore: number }> {
  const flash = await client.journalFlash();
  if (!flash) throw new Failure((m) => m.ledger.noJournal);
  const entries: JournalEntry[] = [];
  new Journal(flash).forEach((e) => entries.push(e));
  const [lastZ, zBefore] = readLastTwo(flash);
  return { entries, lastZ, zBefore };
}

async function printJournal(client: ServiceClient, format: string, lang: Lang): Promise<number> {
  const { entries } = await readJournal(client);
  const rows = entries.map((e) => ({
    at: new Date(e.atMs).toISOString(),
    verdict: e.kind,
    reason: e.kind === 'invalid' ? (REASONS[e.reason] ?? 'E_EMISSION') : '',
    emission: e.emission,
    block: e.block,
    number: e.number,
    prize_eur: e.prizeEur,
  }));
  process.stdout.write(
    format === 'json'
      ? JSON.stringify(rows, null, 1) + '\n'
      : ['at,verdict,reason,emission,block,number,prize_eur', ...rows.map((r) => Object.values(r).join(','))].join(
          '\n',
        ) + '\n',
  );
  process.stderr.write(messages(lang).ledger.journalExported(entries.length) + '\n');
  return 0;
}

/**
 * The figures of the period since the device's last Z, from its ledger and journal, by the device's
 * own src/report.ts: what its X report prints at the same moment (the host's clock ends the period).
 * `z`: the period the last Z closed (from the Z before it), as that Z printed it.
 */
async function printReport(client: ServiceClient, format: string, lang: Lang, z: boolean): Promise<number> {
  const { entries, lastZ, zBefore } = await readJournal(client);
  if (z && !lastZ) throw new Failure((m) => m.ledger.noZ);
  const payments = (await client.ledger()) as ReportPayment[];
  const end = z ? lastZ : Date.now();
  // A win the Z counted unpaid and paid since stays unpaid in that Z.
  const paid = new Set(payments.filter((p) => p.paidAtMs <= end).map(ticketKey));
  const r = makeReport(
    z ? zBefore : lastZ,
    end,
    parisMidnightUtc(parisDate(end)),
    (f) => payments.forEach(f),
    (f) => entries.forEach(f),
    (e) => paid.has(ticketKey(e)),
  );
  if (format === 'json') {
    process.stdout.write(JSON.stringify(snakeKeys(r), null, 1) + '\n');
    return 0;
  }
  const eur = (n: number) => formatEur(n, lang);
  const when = (ms: number) => (ms ? new Date(ms).toISOString() : messages(lang).ledger.sinceStart);
  process.stdout.write(
    messages(lang).ledger.report({
      z,
      from: when(r.fromMs),
      to: new Date(r.toMs).toISOString(),
      payments: r.payments,
      total: eur(r.totalEur),
      today: r.today,
      todayTotal: eur(r.todayEur),
      unpaid: r.unpaidWins,
      unpaidTotal: eur(r.unpaidEur),
      centre: r.centre,
      scans: r.scans,
      refused: Object.entries(r.refused)
        .map(([k, n]) => `${k} ${n}`)
        .join(', '),
    }) + '\n',
  );
  return 0;
}
