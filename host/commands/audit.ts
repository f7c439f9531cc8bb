// saphir audit [FILE | -] [--json] [--lang fr|en] [--key FILE] [--jobs J]
import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { toHex } from '../../src/hex.ts';
import { REASON_TEXT, formatEur, type Lang } from '../../src/i18n.ts';
import { testKeyRing, type KeyRing } from '../../src/sph1/keys.ts';
import type { Reason } from '../../src/sph1/check.ts';
import { Failure, UsageError, intOf, parseCommand, reasonOf } from '../args.ts';
import { errnoOf } from '../../src/system-error.ts';
import { HOST_CRYPTO, hostVerify } from '../../tools/node-crypto.ts';
import { readTrustedKeys } from '../keys.ts';
import { messages } from '../../src/messages/index.ts';
import { AuditTally, EXAMPLES, checkChunk, type AuditReport, type BlockReport } from '../workers/audit-core.ts';
import { OrderedPool, workerCount } from '../../tools/worker-pool.ts';
import { startBundledWorkers } from '../workers/bundle.ts';
import { plainProgress } from '../progress.ts';

const HELP = (lang: Lang) => messages(lang).help.audit;

/** Bytes of input a worker job covers (≈ 6 000 codes). */
const JOB_BYTES = 1 << 20;
/** A line longer than this without a line feed stops the audit (it cannot be a code anyway). */
const MAX_LINE = 256 << 20;

const T = { fr: messages('fr').audit, en: messages('en').audit };

function int(n: number, lang: Lang): string {
  return formatEur(n, lang).replace(/ €$|^€/g, '');
}

/** Cuts a byte stream into jobs of whole lines (the last one may lack its line feed). */
async function* jobsOf(input: Readable): AsyncGenerator<{ bytes: Uint8Array; last: boolean }> {
  let carry: Buffer[] = [];
  let carried = 0;
  const take = (bytes: Buffer[], n: number) => {
    const out = new Uint8Array(n);
    let o = 0;
    for (const b of bytes) {
      out.set(b.subarray(0, Math.min(b.length, n - o)), o);
      o += b.length;
      if (o >= n) break;
    }
    return out;
  };
  for await (const chunk of input as AsyncIterable<Buffer>) {
    carry.push(chunk);
    carried += chunk.length;
    if (carried < JOB_BYTES) continue;
    const nl = chunk.lastIndexOf(10);
    if (nl < 0) {
      if (carried > MAX_LINE) throw new Failure((m) => m.audit.lineTooLong(MAX_LINE));
      continue;
    }
    const n = carried - chunk.length + nl + 1;
    const job = take(carry, n);
    const rest = chunk.subarray(nl + 1);
    carry = rest.length > 0 ? [Buffer.from(rest)] : [];
    carried = rest.length;
    yield { bytes: job, last: false };
  }
  if (carried > 0) yield { bytes: take(carry, carried), last: true };
  else yield { bytes: new Uint8Array(0), last: true };
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    json: { type: 'boolean' },
    key: { type: 'string' },
    jobs: { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  if (positionals.length > 1) throw new UsageError((m) => m.audit.oneFile);
  const keys = values.key !== undefined ? readTrustedKeys(values.key) : testKeyRing();
  const jobs = values.jobs === undefined ? workerCount() : intOf(values.jobs, '--jobs', 1, 64);
  const file = positionals[0] !== undefined && positionals[0] !== '-' ? positionals[0] : null;
  let total = 0;
  if (file !== null) {
    try {
      total = statSync(file).size;
    } catch (e) {
      throw new UsageError((m) => m.audit.cannotRead(file, reasonOf(e, m)));
    }
  }
  const input: Readable = file !== null ? createReadStream(file, { highWaterMark: JOB_BYTES }) : process.stdin;
  let report: AuditReport;
  try {
    report = await audit(input, keys, jobs, file !== null ? total : 0, !!values.quiet);
  } catch (e) {
    // A file that cannot be read (a directory, an I/O error) is said like one that does not exist.
    if (errnoOf(e)) throw new Failure((m) => m.audit.cannotRead(file ?? '-', reasonOf(e, m)));
    throw e;
  }
  process.stdout.write(values.json ? JSON.stringify(reportJson(report)) + '\n' : renderReport(report, lang));
  return report.ok ? 0 : 1;
}

/** Audits a stream of codes; `total` (bytes, 0 if unknown) scales the progress bar. */
export async function audit(
  input: Readable,
  keys: KeyRing,
  jobs: number,
  total = 0,
  quiet = false,
): Promise<AuditReport> {
  const tally = new AuditTally();
  const progress = quiet
    ? null
    : process.stderr.isTTY
      ? progressBar(total)
      : total > JOB_BYTES
        ? plainBytes(total)
        : null;
  let pool: OrderedPool<{ lines: number; results: Int32Array; size: number }> | null = null;
  let workers: Awaited<ReturnType<typeof startBundledWorkers>> = [];
  try {
    for await (const job of jobsOf(input)) {
      if (!pool && (job.last || jobs === 1)) {
        // Small input (or --jobs 1): no thread to start.
        const r = checkChunk(job.bytes, { keys, verify: hostVerify });
        tally.add(r.results, r.lines);
        progress?.(job.bytes.length, r.lines);
        continue;
      }
      if (!pool) {
        workers = await startBundledWorkers(new URL('../workers/audit-worker.ts', import.meta.url), jobs, {
          keys: [...keys].map(([id, k]) => [id, toHex(k)]),
        });
        pool = new OrderedPool(workers, (r) => {
          tally.add(r.results, r.lines);
          progress?.(r.size, r.lines);
        });
      }
      await pool.submit({ bytes: job.bytes }, [job.bytes.buffer as ArrayBuffer]);
    }
    await pool?.finish();
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
    if (progress && process.stderr.isTTY) process.stderr.write('\r\x1b[K');
  }
  return tally.report();
}

/** Off a terminal: host/progress.ts's line every 10 % of the file's bytes. */
function plainBytes(total: number): (bytes: number, lines: number) => void {
  const line = plainProgress('', false);
  let bytes = 0;
  return (b) => line({ done: (bytes += b), total });
}

function progressBar(total: number): (bytes: number, lines: number) => void {
  let bytes = 0;
  let lines = 0;
  let shown = 0;
  return (b, l) => {
    bytes += b;
    lines += l;
    const now = Date.now();
    if (now - shown < 200) return;
    shown = now;
    const width = 30;
    if (total > 0) {
      const f = Math.min(1, bytes / total);
      const full = Math.round(f * width);
      process.stderr.write(
        `\r[${'#'.repeat(full)}${'.'.repeat(width - full)}] ${(f * 100).toFixed(0).padStart(3)} %  ${lines}`,
      );
    } else process.stderr.write(`\r${lines} …`);
  };
}

export function reportJson(r: AuditReport): Record<string, unknown> {
  return {
    ok: r.ok,
    lines: r.lines,
    blank_lines: r.blankLines,
    genuine: r.genuine,
    invalid: {
      count: r.invalid,
      by_reason: r.invalidByReason,
      first: r.invalidExamples.map((x) => ({ line: x.line, reason: x.reason, ticket: x.ticket ?? null })),
    },
    blocks: r.blocks.map((b) => ({
      emission: b.emission,
      block: b.block,
      codes: b.codes,
      distinct: b.distinct,
      duplicates: b.duplicates,
      duplicates_first: b.duplicateExamples,
      missing: b.missing,
      missing_first: b.missingRanges,
      prizes: b.prizes.map((p) => ({ amount_eur: p.amountEur, expected: p.expected, found: p.found })),
      losing: b.losing,
      complete: b.complete,
      matches_article_3: b.matchesArticle3,
      ok: b.ok,
    })),
    // The library that verified the signatures (tools/node-crypto.ts).
    crypto: HOST_CRYPTO,
  };
}

export function renderReport(r: AuditReport, lang: Lang): string {
  const t = T[lang];
  const n = (x: number) => int(x, lang);
  const out: string[] = [t.summary(n(r.lines), n(r.genuine), n(r.invalid), n(r.blankLines)), ''];
  for (const b of r.blocks) out.push(...blockLines(b, lang), '');
  if (r.blocks.length === 0) out.push(t.noBlock, '');
  if (r.invalid > 0) {
    out.push(t.invalidTitle(n(r.invalid)));
    for (const [reason, count] of Object.entries(r.invalidByReason))
      out.push(t.byReason(REASON_TEXT[lang][reason as Reason], n(count!)));
    for (const x of r.invalidExamples) {
      const id = x.ticket ? `  [${x.ticket.emission}/${x.ticket.block}/${x.ticket.number}]` : '';
      out.push(t.invalidLine(x.line, REASON_TEXT[lang][x.reason], id));
    }
    if (r.invalid > r.invalidExamples.length) out.push('  …');
    out.push('');
  }
  out.push(`${t.result}${t.colon} ${r.ok ? t.ok : t.notOk}`);
  return out.join('\n') + '\n';
}

function blockLines(b: BlockReport, lang: Lang): string[] {
  const t = T[lang];
  const n = (x: number) => int(x, lang);
  const mark = (ok: boolean) => (ok ? '✓' : '✗');
  const out = [`${t.block(b.emission, b.block)}${t.colon} ${b.ok ? t.ok : t.notOk}`];
  out.push(t.tickets(n(b.distinct), n(b.duplicates), n(b.missing)));
  out.push(`  ${t.header[0].padEnd(12)}${t.header[1].padStart(12)}${t.header[2].padStart(12)}`);
  for (const p of b.prizes) {
    out.push(
      `  ${formatEur(p.amountEur, lang).padEnd(12)}${n(p.expected).padStart(12)}${n(p.found).padStart(12)}  ${mark(p.found === p.expected)}`,
    );
  }
  out.push(
    `  ${t.losing.padEnd(12)}${n(b.losing.expected).padStart(12)}${n(b.losing.found).padStart(12)}  ${mark(b.losing.found === b.losing.expected)}`,
  );
  if (b.duplicates > 0) {
    out.push(t.dupTitle, ...b.duplicateExamples.map((d) => t.dupLine(d.line, d.number)));
    if (b.duplicates > b.duplicateExamples.length) out.push('    …');
  }
  if (b.missing > 0) {
    out.push(t.missingTitle, ...b.missingRanges.map(([a, z]) => t.missingRange(a, z)));
    if (b.missingRanges.length >= EXAMPLES) out.push('    …');
  }
  return out;
}
