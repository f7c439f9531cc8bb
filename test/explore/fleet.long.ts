// The fleet explorer's teeth (docs/explorer.md, "Fleet mode"): firmware bundles with a planted fleet
// defect are caught within a stated number of schedules (seed `teeth`), and the scenario written for
// each fails on the planted bundle and passes on the clean one. A longer seeded run finds nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exploreFleet } from '../../host/commands/sim-fleet.ts';
import { closeFleetRegistry, fleetRegistry } from '../../hw-sim/explore/fleet.ts';
import { plantedBundle, type DefectName } from '../../hw-sim/explore/planted.ts';
import { parseScenario } from '../../hw-sim/scenario.ts';
import { runScenario } from '../../hw-sim/runner.ts';
// fleet.test.ts with its seeded smokes at full size (LONG).
import './fleet.test.ts';

const out = mkdtempSync(join(tmpdir(), 'saphir-fleet-'));
let clean: string;
test.before(async () => {
  clean = await plantedBundle(null);
});
test.after(async () => {
  rmSync(out, { recursive: true, force: true });
  await closeFleetRegistry();
});

const TEETH: [DefectName, number, number][] = [
  // defect, found within this many schedules, by invariant
  ['offline-above-limit', 10, 8],
  ['forget-outbox', 5, 10],
  ['ignore-already-paid', 10, 7],
  ['accept-foreign-notice', 10, 14],
];

async function replay(file: string, bundle: string) {
  const reg = await fleetRegistry();
  await reg.start();
  await reg.reset();
  return runScenario(parseScenario(readFileSync(file, 'utf8'), file), { bundle, registry: reg.scenario });
}

for (const [defect, within, invariant] of TEETH) {
  test(`planted ${defect}: found within ${within} fleet schedules (invariant ${invariant}), and its scenario reproduces it`, async () => {
    const bundle = await plantedBundle(defect);
    const s = await exploreFleet({ count: within, seed: 'teeth', jobs: 1, bundle, maxViolations: 1, outDir: out });
    assert.is(s.violations, 1, `${defect} not found in ${s.schedules} schedules`);
    const f = s.failures[0];
    assert.is(f.invariant, invariant, f.message);
    assert.ok(f.reproduces, `${f.file} does not reproduce`);
    assert.not.ok((await replay(f.file!, bundle)).ok, 'the scenario passes on the planted bundle');
    const fixed = await replay(f.file!, clean);
    assert.ok(fixed.ok, `the scenario fails on the clean bundle: ${JSON.stringify(fixed.steps.at(-1))}`);
  });
}

test('20 fleet schedules (seed long) on the clean firmware: no violation', async () => {
  const s = await exploreFleet({ count: 20, seed: 'long', jobs: 2, bundle: clean });
  assert.is(s.violations, 0, JSON.stringify(s.failures));
  assert.is(s.checks[10], 20);
});

test.run();
