// bench/stamps.ts: a figure is current only when measured on the working tree's clean commit; every
// figure of bench/results.json says when and on what it was measured; bench/targets.ts's verdicts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  olderRows,
  olderThanTree,
  OUTPUTS,
  stampsFromHistory,
  treeStamp,
  type Recorded,
  type Stamp,
} from '../../bench/stamps.ts';
import { targetText } from '../../bench/targets.ts';
import { ROOT } from '../../tools/paths.ts';
import { BUDGET_CORE } from '../../tools/build.ts';

test('stamps: current on the same clean commit; older on another commit, a dirty tree, or none', () => {
  const at = '2026-12-04T04:00:00.000Z';
  assert.is(olderThanTree({ commit: 'abc', measured_at: at }, 'abc'), null);
  assert.match(
    olderThanTree({ commit: 'def0123456789', measured_at: at }, 'abc')!,
    /^older: def0123456 2026-12-04T04:00/,
  );
  assert.match(olderThanTree({ commit: 'abc+dirty', measured_at: at }, 'abc+dirty')!, /^older: abc\+dirty/);
  assert.is(olderThanTree(undefined, 'abc'), 'not stamped');
  assert.match(olderThanTree({ commit: 'unknown', measured_at: at }, 'unknown')!, /older/);
});

test('treeStamp: HEAD, +dirty once a tracked file changes, unknown outside git', () => {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-stamps-'));
  try {
    assert.is(treeStamp(dir).commit, 'unknown');
    const git = (...a: string[]) => execFileSync('git', a, { cwd: dir, encoding: 'utf8' }).trim();
    git('init', '-q');
    writeFileSync(join(dir, 'f'), '1');
    mkdirSync(join(dir, 'bench'));
    for (const p of OUTPUTS) writeFileSync(join(dir, p), '{}');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x');
    const head = git('rev-parse', 'HEAD');
    assert.is(treeStamp(dir).commit, head);
    // The figures a first bench run wrote do not make a second run's tree dirty.
    for (const p of OUTPUTS) writeFileSync(join(dir, p), '{"x": 1}');
    assert.is(treeStamp(dir).commit, head);
    writeFileSync(join(dir, 'f'), '2');
    assert.is(treeStamp(dir).commit, `${head}+dirty`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('olderRows: only figures not measured now and not current; an old real figure names its extrapolated sibling', () => {
  const at = '2026-12-04T09:00:00.000Z';
  const results = { gen_full_block_s: 29.5, gen_full_block_s_extrapolated: 38, now_fig: 1, current: 2, bare: 3 };
  const stamps: Record<string, Stamp> = {
    gen_full_block_s: { commit: '03017a5eb380ee5e', measured_at: '2026-12-02T00:15:00.000Z', source: 'git' },
    gen_full_block_s_extrapolated: { commit: 'head', measured_at: at },
    now_fig: { commit: 'head', measured_at: at },
    current: { commit: 'head', measured_at: at },
  };
  const rows = olderRows(results, stamps, new Set(['gen_full_block_s_extrapolated', 'now_fig']), 'head');
  assert.equal(rows, [
    [
      'gen_full_block_s',
      'older: 03017a5eb3 2026-12-02T00:15 (recorded then, from git history); measured now: gen_full_block_s_extrapolated',
    ],
    ['bare', 'not stamped'],
  ]);
  // Without the extrapolated figure in this run, no such note.
  assert.is(olderRows(results, stamps, new Set(), 'head')[0][1].includes('measured now'), false);
  // On a dirty tree even this commit's figures are older.
  assert.is(olderRows({ current: 2 }, stamps, new Set(), 'head+dirty').length, 1);
});

test('stampsFromHistory: the commit that recorded the current value; none for a value no commit holds', () => {
  const h = (commit: string, results: Record<string, unknown>): Recorded => ({
    commit,
    time: `2026-12-0${commit.length}T00:00:00.000Z`,
    results,
  });
  // Newest first: c3 and c22 hold a = 2 (c22 recorded it), c111 had a = 1; b came in at c3; c appears nowhere.
  const history = [h('c3c', { a: 2, b: 5, n: null }), h('c22', { a: 2, n: null }), h('c111', { a: 1, n: null })];
  const got = stampsFromHistory({ a: 2, b: 5, c: 7, d: 9, n: null }, { d: { commit: 'x', measured_at: 't' } }, history);
  assert.equal(got, {
    a: { commit: 'c22', measured_at: '2026-12-03T00:00:00.000Z', source: 'git' },
    b: { commit: 'c3c', measured_at: '2026-12-03T00:00:00.000Z', source: 'git' },
    n: { commit: 'c111', measured_at: '2026-12-04T00:00:00.000Z', source: 'git' },
  });
  // Changed in the working tree (the newest commit holds another value): not stamped from history.
  assert.equal(stampsFromHistory({ a: 3 }, {}, history), {});
});

test('every figure of bench/results.json has a stamp (commit and time), and every stamp a figure', () => {
  const results = JSON.parse(readFileSync(join(ROOT, 'bench', 'results.json'), 'utf8')) as Record<string, unknown>;
  const stamps = JSON.parse(readFileSync(join(ROOT, 'bench', 'results-stamps.json'), 'utf8')) as Record<string, Stamp>;
  const unstamped = Object.keys(results).filter((k) => !stamps[k]);
  assert.equal(unstamped, [], 'figures without a stamp');
  assert.equal(
    Object.keys(stamps).filter((k) => !(k in results)),
    [],
    'stamps without a figure',
  );
  for (const [k, s] of Object.entries(stamps)) {
    assert.match(s.commit, /^[0-9a-f]{40}(\+dirty)?$/, k);
    assert.ok(!Number.isNaN(Date.parse(s.measured_at)), k);
  }
});

test('targetText: ≤ and ≥ targets met or missed, nothing for a figure without one', () => {
  assert.is(targetText('qjs_verify_ratio_vs_noble', 0.143), '≤ 0.3 ok');
  assert.is(targetText('qjs_verify_ratio_vs_noble', 0.306), '≤ 0.3 MISSED');
  assert.is(targetText('qr_corpus_decoded', 229), '≥ 229 ok');
  assert.is(targetText('qr_corpus_decoded', 228), '≥ 229 MISSED');
  assert.is(targetText('qjs_verify_ms_median', 1), '');
  // The core's target is the build's budget, not a stale copy.
  assert.is(targetText('fw_core_kib', BUDGET_CORE / 1024), `≤ ${BUDGET_CORE / 1024} ok`);
  assert.is(targetText('fw_core_kib', BUDGET_CORE / 1024 + 0.1), `≤ ${BUDGET_CORE / 1024} MISSED`);
});

test.run();
