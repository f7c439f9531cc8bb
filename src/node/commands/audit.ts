// saphir audit [FILE | -] [--json] [--lang fr|en] [--key FILE] [--jobs J]
import { createReadStream, readFileSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { publicKeyOf } from '../../crypto/ed25519.ts';
import { fromHex, toHex } from '../../hex.ts';
import { REASON_TEXT, formatEur, type Lang } from '../../i18n.ts';
import { testKeyRing, type KeyRing } from '../../sph1/keys.ts';
import type { Reason } from '../../sph1/check.ts';
import { UsageError, intOf, parseCommand } from '../args.ts';
import { HOST_CRYPTO, nodeVerify } from '../node-crypto.ts';
import { AuditTally, EXAMPLES, checkChunk, type AuditReport, type BlockReport } from '../workers/audit-core.ts';
import { OrderedPool, startWorkers, workerCount } from '../workers/pool.ts';

const HELP = `usage: saphir audit [FILE | -] [--json] [--lang fr|en] [--key FILE] [--jobs J]
Verifies every code of FILE (or standard input), one per line, signature included, and per
(emission, block) tallies the prizes against Article 3; reports invalid codes, duplicate and missing
ticket numbers. Exit 0 only when every block is complete, genuine and equal to Article 3; 1 otherwise;
2 on a usage error.
  --key FILE   trust this key instead of the test key: JSON {"key_id": 1, "public_hex": "…"}
               (or "seed_hex", as for saphir gen)
  --jobs J     worker threads (default: one per core)`;

/** Bytes of input a worker job covers (≈ 6 000 codes). */
const JOB_BYTES = 1 << 20;
/** A line longer than this without a line feed stops the audit (it cannot be a code anyway). */
const MAX_LINE = 256 << 20;

const T = {
  fr: {
    summary: (l: string, g: string, i: string, b: string) => `Audit : ${l} lignes, ${g} codes authentiques, ${i} non valides, ${b} lignes vides`,
    block: (e: number, b: number) => `Émission ${e}, bloc ${b}`,
    tickets: (d: string, dup: string, m: string) => `  tickets distincts : ${d} sur 3 000 000 — en double : ${dup} — manquants : ${m}`,
    header: ['lot', 'attendu', 'trouvé'],
    losing: 'perdant',
    dupLine: (line: number, n: number) => `    ligne ${line} : ticket n° ${n} déjà vu`,
    missingRange: (a: number, b: number) => (a === b ? `    n° ${a}` : `    n° ${a} à ${b}`),
    missingTitle: '  numéros manquants (premiers) :',
    dupTitle: '  doublons (premiers) :',
    invalidTitle: (n: string) => `Codes non valides : ${n}`,
    invalidLine: (line: number, why: string, id: string) => `  ligne ${line} : ${why}${id}`,
    byReason: (why: string, n: string) => `  ${why} : ${n}`,
    ok: 'CONFORME',
    notOk: 'NON CONFORME',
    result: 'Résultat',
    noBlock: 'aucun code authentique : aucun bloc à vérifier',
    colon: ' :',
  },
  en: {
    summary: (l: string, g: string, i: string, b: string) => `Audit: ${l} lines, ${g} genuine codes, ${i} invalid, ${b} blank lines`,
    block: (e: number, b: number) => `Emission ${e}, block ${b}`,
    tickets: (d: string, dup: string, m: string) => `  distinct tickets: ${d} of 3,000,000 — duplicates: ${dup} — missing: ${m}`,
    header: ['prize', 'expected', 'found'],
    losing: 'losing',
    dupLine: (line: number, n: number) => `    line ${line}: ticket #${n} seen before`,
    missingRange: (a: number, b: number) => (a === b ? `    #${a}` : `    #${a} to ${b}`),
    missingTitle: '  missing numbers (first ones):',
    dupTitle: '  duplicates (first ones):',
    invalidTitle: (n: string) => `Invalid codes: ${n}`,
    invalidLine: (line: number, why: string, id: string) => `  line ${line}: ${why}${id}`,
    byReason: (why: string, n: string) => `  ${why}: ${n}`,
    ok: 'COMPLIANT',
    notOk: 'NOT COMPLIANT',
    result: 'Result',
    noBlock: 'no genuine code: no block to check',
    colon: ':',
  },
} as const;

function int(n: number, lang: Lang): string {
  return formatEur(n, lang).replace(/ €$|^€/g, '');
}

/** Reads an audit --key file: {"key_id", "public_hex"} or {"key_id", "seed_hex"}. */
function readKeyRing(path: string): KeyRing {
  let o: { key_id?: unknown; public_hex?: unknown; seed_hex?: unknown };
  try {
    o = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`--key: cannot read ${path} as JSON: ${(e as Error).message}`);
  }
  if (typeof o !== 'object' || o === null || !Number.isInteger(o.key_id) || (o.key_id as number) < 0 || (o.key_id as number) > 255) {
    throw new UsageError(`--key: ${path}: key_id must be an integer from 0 to 255`);
  }
  const hex64 = (v: unknown) => typeof v === 'string' && /^[0-9a-fA-F]{64}$/.test(v);
  if (hex64(o.public_hex)) return new Map([[o.key_id as number, fromHex(o.public_hex as string)]]);
  if (hex64(o.seed_hex)) return new Map([[o.key_id as number, publicKeyOf(fromHex(o.seed_hex as string))]]);
  throw new UsageError(`--key: ${path}: give public_hex or seed_hex (64 hex digits)`);
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
      if (carried > MAX_LINE) throw new Error(`a line longer than ${MAX_LINE} bytes`);
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
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  if (positionals.length > 1) throw new UsageError('one FILE at most (or - for standard input)');
  const keys = values.key !== undefined ? readKeyRing(values.key) : testKeyRing();
  const jobs = values.jobs === undefined ? workerCount() : intOf(values.jobs, '--jobs', 1, 64);
  const file = positionals[0] !== undefined && positionals[0] !== '-' ? positionals[0] : null;
  let total = 0;
  if (file !== null) {
    try {
      total = statSync(file).size;
    } catch (e) {
      throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  const input: Readable = file !== null ? createReadStream(file, { highWaterMark: JOB_BYTES }) : process.stdin;
  const report = await audit(input, keys, jobs, file !== null ? total : 0);
  process.stdout.write(values.json ? JSON.stringify(reportJson(report)) + '\n' : renderReport(report, lang));
  return report.ok ? 0 : 1;
}

/** Audits a stream of codes; `total` (bytes, 0 if unknown) scales the progress bar. */
export async function audit(input: Readable, keys: KeyRing, jobs: number, total = 0): Promise<AuditReport> {
  const tally = new AuditTally();
  const progress = process.stderr.isTTY ? progressBar(total) : null;
  let pool: OrderedPool<{ lines: number; results: Int32Array; size: number }> | null = null;
  let workers: ReturnType<typeof startWorkers> = [];
  try {
    for await (const job of jobsOf(input)) {
      if (!pool && (job.last || jobs === 1)) {
        // Small input (or --jobs 1): no thread to start.
        const r = checkChunk(job.bytes, { keys, verify: nodeVerify });
        tally.add(r.results, r.lines);
        progress?.(job.bytes.length, r.lines);
        continue;
      }
      if (!pool) {
        workers = startWorkers(new URL('../workers/audit-worker.ts', import.meta.url), jobs, {
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
    if (progress) process.stderr.write('\r\x1b[K');
  }
  return tally.report();
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
      process.stderr.write(`\r[${'#'.repeat(full)}${'.'.repeat(width - full)}] ${(f * 100).toFixed(0).padStart(3)} %  ${lines}`);
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
    // The library that verified the signatures (src/node/node-crypto.ts).
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
    for (const [reason, count] of Object.entries(r.invalidByReason)) out.push(t.byReason(REASON_TEXT[lang][reason as Reason], n(count!)));
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
    out.push(`  ${formatEur(p.amountEur, lang).padEnd(12)}${n(p.expected).padStart(12)}${n(p.found).padStart(12)}  ${mark(p.found === p.expected)}`);
  }
  out.push(`  ${t.losing.padEnd(12)}${n(b.losing.expected).padStart(12)}${n(b.losing.found).padStart(12)}  ${mark(b.losing.found === b.losing.expected)}`);
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
