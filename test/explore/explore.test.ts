// The fault explorer (docs/explorer.md): a seeded smoke run on today's firmware finds nothing, and
// firmware bundles with planted defects are caught within a stated number of schedules, each with a
// scenario that fails on the broken bundle and passes on the clean one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { explore, makeSchedule, MENU } from '../../hw-sim/explore/index.ts';
import { GATES } from '../../hw-sim/explore/menu.ts';
import { plantedBundle, type DefectName } from '../../hw-sim/explore/planted.ts';
import { parseScenario } from '../../hw-sim/scenario.ts';
import { runScenario } from '../../hw-sim/runner.ts';

const out = mkdtempSync(join(tmpdir(), 'saphir-explore-'));
let clean: string;

test.before(async () => {
  clean = await plantedBundle(null);
});
test.after(() => rmSync(out, { recursive: true, force: true }));

test('a schedule depends on (seed, index) only', () => {
  const a = makeSchedule('s', 3);
  assert.equal(JSON.stringify(makeSchedule('s', 3)), JSON.stringify(a));
  assert.not.equal(JSON.stringify(makeSchedule('s', 4)), JSON.stringify(a));
  assert.ok(a.ops.length >= 20 + 2 && a.ops.length <= 300 + 2, `${a.ops.length} operations`);
  // Gated kinds are drawn only when their gate is on.
  const gated = new Set<string>(MENU.filter((m) => 'gate' in m).map((m) => m.kind));
  for (let i = 0; i < 20; i++) for (const op of makeSchedule('s', i).ops) assert.not.ok(gated.has(op.kind), op.kind);
  const all = Array.from(
    { length: 20 },
    (_, i) => makeSchedule('s', i, { gates: ['ledger-damage', 'clock-back'] }).ops,
  ).flat();
  assert.ok(all.some((op) => gated.has(op.kind)));
  // One damage to the ledger at most a schedule (what a redundant ledger can promise to survive).
  for (let i = 0; i < 60; i++) {
    const n = makeSchedule('s', i, { gates: ['ledger-damage'] }).ops.filter(
      (op) => op.kind === 'flip-bit' || op.kind === 'lose-sector',
    ).length;
    assert.ok(n <= 1, `schedule ${i}: ${n} ledger damages`);
  }
});

test('smoke: seeded schedules on the firmware find no violation', async () => {
  const s = await explore({
    count: 6,
    seed: 'smoke',
    jobs: 1,
    bundle: clean,
    noCamera: true,
    maxOps: 80,
    gates: [...GATES],
  });
  assert.equal(s.failures, []);
  assert.is(s.schedules, 6);
  for (const inv of ['1', '2', '3', '4']) assert.ok(s.checks[inv] > 0, `invariant ${inv} checked`);
  for (const k of ['scan-ticket', 'pay', 'press-ok', 'cut-at-flash-op']) assert.ok(s.kinds[k] > 0, `${k} drawn`);
});

// Found with seed 'teeth', at most 60 operations a schedule, within these many schedules.
const TEETH: [DefectName, number][] = [
  ['skip-ledger-write', 5],
  ['accept-bad-signature', 5],
  ['pay-on-c', 20],
  ['drop-crc-check', 25],
  ['never-confirm', 10],
];

for (const [defect, within] of TEETH) {
  test(`teeth: ${defect} is found within ${within} schedules, with a scenario that reproduces it`, async () => {
    const bundle = await plantedBundle(defect);
    const dir = join(out, defect);
    const s = await explore({
      count: within,
      seed: 'teeth',
      jobs: 1,
      bundle,
      noCamera: true,
      maxOps: 60,
      maxViolations: 1,
      outDir: dir,
    });
    assert.is(s.violations, 1, `${defect} not found in ${within} schedules`);
    const f = s.failures[0];
    assert.ok(f.file && f.reproduces, `scenario written and reproducing: ${JSON.stringify(f)}`);
    const sc = parseScenario(readFileSync(f.file!, 'utf8'), f.file!);
    const broken = await runScenario(sc, { bundle });
    assert.not.ok(broken.ok, 'the scenario fails on the planted bundle');
    assert.is(broken.steps.length, sc.steps.length, 'it fails at its last step, the check of the broken invariant');
    const fine = await runScenario(sc, { bundle: clean });
    assert.ok(fine.ok, `the same scenario passes on the clean bundle: ${fine.steps.find((x) => !x.ok)?.problem}`);
  });
}

test('teeth: forget-high-water is found within 30 schedules with clock moves back, with a scenario that reproduces it', async () => {
  const bundle = await plantedBundle('forget-high-water');
  const s = await explore({
    count: 30,
    seed: 'teeth',
    jobs: 1,
    bundle,
    noCamera: true,
    maxOps: 60,
    maxViolations: 1,
    outDir: join(out, 'forget-high-water'),
    gates: ['clock-back'],
  });
  assert.is(s.violations, 1, 'forget-high-water not found in 30 schedules');
  const f = s.failures[0];
  assert.ok(f.file && f.reproduces, `scenario written and reproducing: ${JSON.stringify(f)}`);
  const sc = parseScenario(readFileSync(f.file!, 'utf8'), f.file!);
  assert.not.ok((await runScenario(sc, { bundle })).ok, 'the scenario fails on the planted bundle');
  const fine = await runScenario(sc, { bundle: clean });
  assert.ok(fine.ok, `the same scenario passes on the clean bundle: ${fine.steps.find((x) => !x.ok)?.problem}`);
});

test.run();
