// `saphir audit`: the tally against Article 3, invalid codes, duplicates, missing numbers, workers, CLI.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Readable } from 'node:stream';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BLOCK_SIZE } from '../../src/game/rules.ts';
import { PRIZE_TABLE } from '../../src/game/prize-table.ts';
import { blockGenerator } from '../../src/gen/index.ts';
import { fromHex } from '../../src/hex.ts';
import { REASONS } from '../../src/sph1/check.ts';
import { testKeyRing, TEST_KEY_SEED_HEX } from '../../src/sph1/keys.ts';
import { nodeSign } from '../../tools/node-crypto.ts';
import { RangeEncoder } from '../../host/workers/gen-core.ts';
import { AuditTally, FIELDS, KIND_GENUINE, KIND_INVALID } from '../../host/workers/audit-core.ts';
import { audit, renderReport, reportJson, run } from '../../host/commands/audit.ts';
import { UsageError } from '../../host/args.ts';
import { noStack, saphir, saphirIn } from './run-cli.ts';
import { spawnSync } from 'node:child_process';
import { ROOT, longTest, requireTool } from '../helpers.ts';

const withScript = requireTool('script');

const dir = mkdtempSync(join(tmpdir(), 'saphir-audit-test-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const seed = fromHex(TEST_KEY_SEED_HEX);
const gen = (emission: number, block: number, from: number, count: number) =>
  Buffer.from(new RangeEncoder(blockGenerator('t', emission, block), { keyId: 0, seed }, nodeSign).encode(from, count))
    .toString('latin1')
    .trimEnd()
    .split('\n');

/** A small set: block 1/1 tickets 0…199, a tampered line, a duplicate, a blank line, garbage, block 1/2 tickets 0…9. */
function smallSet(): { text: string; tamperedLine: number; duplicateLine: number } {
  const a = gen(1, 1, 0, 200);
  const b = gen(1, 2, 0, 10);
  const tampered = a[50].slice(0, 100) + (a[50][100] === 'A' ? 'B' : 'A') + a[50].slice(101);
  const lines = [...a.slice(0, 50), tampered, ...a.slice(51), a[7], '', '\u00ff\u0000garbage', ...b];
  return { text: lines.join('\n') + '\n', tamperedLine: 51, duplicateLine: 201 };
}

test('a small generated set: incomplete, the tampered line and the duplicate reported with line numbers', async () => {
  const { text, tamperedLine, duplicateLine } = smallSet();
  const r = await audit(Readable.from([Buffer.from(text, 'latin1')]), testKeyRing(), 1);
  assert.is(r.ok, false);
  assert.is(r.lines, 213);
  assert.is(r.blankLines, 1);
  assert.is(r.genuine, 200 - 1 + 1 + 10);
  assert.is(r.invalid, 2);
  // The tampered character is one base45 digit of the signature off by one: the code still decodes,
  // the signature no longer matches (the set is deterministic: seeded generator, deterministic Ed25519).
  assert.equal(
    r.invalidExamples.map((x) => [x.line, x.reason]),
    [
      [tamperedLine, 'E_SIGNATURE'],
      [duplicateLine + 2, 'E_PREFIX'],
    ],
  );
  assert.is(r.blocks.length, 2);
  const [b1, b2] = r.blocks;
  assert.equal([b1.emission, b1.block, b2.emission, b2.block], [1, 1, 1, 2]);
  assert.is(b1.codes, 200);
  assert.is(b1.distinct, 199);
  assert.is(b1.duplicates, 1);
  assert.equal(b1.duplicateExamples, [{ line: duplicateLine, number: 7 }]);
  assert.is(b1.missing, BLOCK_SIZE - 199);
  assert.equal(b1.missingRanges, [
    [50, 50],
    [200, BLOCK_SIZE - 1],
  ]);
  assert.is(b1.complete, false);
  assert.is(b1.matchesArticle3, false);
  // The tally counts what the generator planned for those tickets.
  const g = blockGenerator('t', 1, 1);
  const planned = new Map<number, number>();
  for (let n = 0; n < 200; n++) if (n !== 50) planned.set(g.prizeOf(n), (planned.get(g.prizeOf(n)) ?? 0) + 1);
  for (const p of b1.prizes) assert.is(p.found, planned.get(p.amountEur) ?? 0, `${p.amountEur} €`);
  assert.is(b1.losing.found, planned.get(0) ?? 0);
  assert.is(b2.distinct, 10);

  const fr = renderReport(r, 'fr');
  assert.match(fr, /NON CONFORME/);
  assert.match(fr, new RegExp(`ligne ${duplicateLine} : ticket n° 7 déjà vu`));
  assert.match(fr, new RegExp(`ligne ${tamperedLine} : `));
  assert.match(renderReport(r, 'en'), /NOT COMPLIANT/);
});

longTest('worker threads give the same report as a single thread', async () => {
  // More than one job of input (1 MiB) so the pool is used.
  const lines = gen(2, 2, 0, 6700);
  lines[3000] = 'SPH1:000';
  const text = lines.join('\n') + '\n';
  assert.ok(text.length > 1 << 20);
  const one = await audit(Readable.from([Buffer.from(text)]), testKeyRing(), 1);
  const two = await audit(
    Readable.from([Buffer.from(text.slice(0, 700_000)), Buffer.from(text.slice(700_000))]),
    testKeyRing(),
    2,
  );
  assert.equal(reportJson(two), reportJson(one));
  assert.is(one.genuine, 6699);
  assert.equal(one.invalidExamples, [{ line: 3001, reason: 'E_LENGTH' }]);
});

test('the whole path on real codes, one ticket of every prize tier: codes → decode → verify → tally', async () => {
  // The generator's plan (prizeOf) only picks the tickets; what the audit counts comes from decoding
  // and verifying the signed codes, so a decode, rules or tally slip shows as a tier off by one.
  const g = blockGenerator('t', 1, 3);
  const firstOf = new Map<number, number>();
  const tiers = PRIZE_TABLE.rows.length + 1;
  for (let n = 0; n < BLOCK_SIZE && firstOf.size < tiers; n++)
    if (!firstOf.has(g.prizeOf(n))) firstOf.set(g.prizeOf(n), n);
  assert.is(firstOf.size, tiers, 'every tier and a losing ticket');
  const numbers = [...firstOf.values()].sort((a, b) => a - b);
  const text = numbers.map((n) => gen(1, 3, n, 1)[0]).join('\n') + '\n';
  const r = await audit(Readable.from([Buffer.from(text, 'latin1')]), testKeyRing(), 1);
  assert.equal([r.lines, r.genuine, r.invalid], [tiers, tiers, 0]);
  const [b] = r.blocks;
  assert.equal(
    [b.emission, b.block, b.codes, b.distinct, b.duplicates, b.missing],
    [1, 3, tiers, tiers, 0, BLOCK_SIZE - tiers],
  );
  assert.equal(
    b.prizes.map((p) => [p.amountEur, p.found]),
    PRIZE_TABLE.rows.map((row) => [row.amountEur, 1]),
  );
  assert.is(b.losing.found, 1);
  const gaps: [number, number][] = [];
  let prev = -1;
  for (const n of [...numbers, BLOCK_SIZE]) {
    if (n > prev + 1) gaps.push([prev + 1, n - 1]);
    prev = n;
  }
  assert.ok(b.missingRanges.length > 0);
  assert.equal(b.missingRanges, gaps.slice(0, b.missingRanges.length), 'the gaps between the tickets read');
  assert.is(b.matchesArticle3, false);
  assert.is(r.ok, false);
});

/** Results of a whole block as the workers would send them (genuine codes in ticket order), no signing:
 * a whole block is 3 000 000 signed codes (minutes to make), so this checks the tally alone; the path
 * from real codes to the tally is the test above. */
const g56 = blockGenerator('saphir', 5, 6);
const whole = (() => {
  const results = new Int32Array(BLOCK_SIZE * FIELDS);
  for (let n = 0; n < BLOCK_SIZE; n++) results.set([KIND_GENUINE, -1, 5, 6, n, g56.prizeOf(n)], n * FIELDS);
  return results;
})();

function tallyOf(results: Int32Array) {
  const t = new AuditTally();
  // In two chunks, as the pool hands them over.
  const half = Math.floor(BLOCK_SIZE / 2);
  t.add(results.subarray(0, half * FIELDS), half);
  t.add(results.subarray(half * FIELDS), results.length / FIELDS - half);
  return t.report();
}

test('the tally of a whole planned block equals Article 3 (no signing: the results the workers would send)', () => {
  const r = tallyOf(whole);
  assert.is(r.ok, true);
  const b = r.blocks[0];
  assert.equal([b.complete, b.matchesArticle3, b.duplicates, b.missing], [true, true, 0, 0]);
  assert.equal(
    b.prizes.map((p) => p.found),
    PRIZE_TABLE.rows.map((row) => row.count),
  );
  assert.match(renderReport(r, 'fr'), /Résultat : CONFORME/);
});

test('one duplicate, one invalid code or one extra code is enough to fail', () => {
  // Line 124 repeats ticket 122: ticket 123 goes missing.
  const dup = whole.slice();
  dup[123 * FIELDS + 4] = 122;
  dup[123 * FIELDS + 5] = g56.prizeOf(122);
  let r = tallyOf(dup);
  assert.is(r.ok, false);
  assert.equal(r.blocks[0].duplicateExamples, [{ line: 124, number: 122 }]);
  assert.equal(r.blocks[0].missingRanges, [[123, 123]]);
  assert.is(r.blocks[0].complete, false);
  // The last ticket's code is refused.
  const bad = whole.slice();
  bad.set([KIND_INVALID, REASONS.indexOf('E_SIGNATURE'), 5, 6, BLOCK_SIZE - 1, 0], (BLOCK_SIZE - 1) * FIELDS);
  r = tallyOf(bad);
  assert.is(r.ok, false);
  assert.is(r.invalid, 1);
  assert.equal(r.invalidExamples, [
    { line: BLOCK_SIZE, reason: 'E_SIGNATURE', ticket: { emission: 5, block: 6, number: BLOCK_SIZE - 1 } },
  ]);
  assert.equal(r.blocks[0].missingRanges, [[BLOCK_SIZE - 1, BLOCK_SIZE - 1]]);
  // A complete block plus one genuine code of another block: that block fails, so does the audit.
  const more = new Int32Array(whole.length + FIELDS);
  more.set(whole);
  more.set([KIND_GENUINE, -1, 5, 7, 0, 0], whole.length);
  r = tallyOf(more);
  assert.equal(
    r.blocks.map((b) => b.ok),
    [true, false],
  );
  assert.is(r.ok, false);
});

test('the real CLI: exit 1 and a JSON report on an incomplete set; usage errors exit 2', async () => {
  const file = join(dir, 'codes.txt');
  writeFileSync(file, smallSet().text, 'latin1');
  const r = saphir(['audit', file, '--json']);
  assert.is(r.code, 1);
  const o = JSON.parse(r.stdout);
  assert.equal(Object.keys(o), ['ok', 'lines', 'blank_lines', 'genuine', 'invalid', 'blocks', 'crypto']);
  assert.is(o.ok, false);
  assert.is(o.invalid.count, 2);
  assert.is(o.blocks[0].duplicates, 1);
  assert.is(o.blocks[0].complete, false);
  assert.is(r.stderr, '', 'no progress bar when stderr is not a terminal');
  const fromStdin = await saphirIn(['audit', '-', '--lang', 'en'], smallSet().text);
  assert.is(fromStdin.code, 1);
  assert.match(fromStdin.stdout, /Result: NOT COMPLIANT/);
  const u = await saphirIn(['audit', join(dir, 'nope.txt')]); // the same main, in this process
  assert.is(u.code, 2);
  assert.ok(noStack(u.stderr), u.stderr);
});

withScript('on a terminal, a progress bar on stderr that is cleared before the report', () => {
  // util-linux `script` gives the command a real pseudo-terminal.
  const file = join(dir, 'tty.txt');
  writeFileSync(file, smallSet().text, 'latin1');
  const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'bin', 'saphir.mjs'))} audit ${JSON.stringify(file)} --lang en`;
  const r = spawnSync('script', ['-qfec', cmd, '/dev/null'], {
    encoding: 'latin1',
    env: { ...process.env, TERM: 'xterm' },
  });
  assert.is(r.status, 1, r.stderr);
  const bar = r.stdout.indexOf('] 100 %');
  assert.ok(bar >= 0, 'the bar reaches 100 %');
  const cleared = r.stdout.indexOf('\r\x1b[K', bar);
  assert.ok(cleared > bar, 'the bar line is cleared');
  assert.ok(r.stdout.indexOf('Result: NOT COMPLIANT') > cleared, 'then the report');
});

test('usage errors are UsageErrors (exit 2); an empty input is not a pass', async () => {
  for (const args of [
    [join(dir, 'nope.txt')],
    ['a', 'b'],
    ['--lang', 'xx'],
    ['--jobs', 'many', '-'],
    ['--key', join(dir, 'nope.json')],
  ]) {
    try {
      await run(args);
      assert.unreachable(args.join(' '));
    } catch (e) {
      assert.instance(e, UsageError, args.join(' '));
    }
  }
  const empty = await audit(Readable.from([]), testKeyRing(), 2);
  assert.is(empty.ok, false);
  assert.is(empty.lines, 0);
  assert.match(renderReport(empty, 'fr'), /aucun bloc/);
});

test.run();
