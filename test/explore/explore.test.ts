// The fault explorer (docs/explorer.md): a seeded smoke run on today's firmware finds nothing, and a
// firmware bundle with a planted defect is caught within a stated number of schedules, with a scenario
// that fails on the broken bundle and passes on the clean one (the other defects: teeth.long.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { explore, makeSchedule, MENU } from '../../hw-sim/explore/index.ts';
import { GATES } from '../../hw-sim/explore/menu.ts';
import { plantedBundle } from '../../hw-sim/explore/planted.ts';
import { TEETH, checkTeeth, teethTitle } from './teeth.ts';
import '../../hw-sim/node-host.ts';
import { LONG } from '../helpers.ts';

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

/** Schedules of the seeded smoke: 3 in npm test, 6 in the long tier (explore.long.ts). */
const SMOKE = LONG ? 6 : 3;

test('smoke: seeded schedules on the firmware find no violation', async () => {
  const s = await explore({
    count: SMOKE,
    seed: 'smoke',
    jobs: 1,
    bundle: clean,
    noCamera: true,
    maxOps: 80,
    gates: [...GATES],
  });
  assert.equal(s.failures, []);
  assert.is(s.schedules, SMOKE);
  // v8 by default, with schedule 0 (one in 32) on QuickJS, where the heap is measured.
  assert.equal(s.engines, { quickjs: 1, v8: SMOKE - 1 });
  for (const inv of ['1', '2', '3', '4', '6']) assert.ok(s.checks[inv] > 0, `invariant ${inv} checked`);
  for (const k of ['scan-ticket', 'pay', 'press-ok', 'cut-at-flash-op']) assert.ok(s.kinds[k] > 0, `${k} drawn`);
});

// One planted defect here; every one in teeth.long.ts (npm run test:long).
test(teethTitle(TEETH[0]), () => checkTeeth(TEETH[0], clean, out));

test.run();
