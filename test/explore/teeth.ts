// The explorer's teeth (docs/explorer.md): a firmware bundle with a planted defect is caught within a stated
// number of schedules, with a scenario that fails on the broken bundle and passes on the clean one. One
// defect runs in npm test (explore.test.ts), every one in npm run test:long (teeth.long.ts).
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { explore, type Gate } from '../../hw-sim/explore/index.ts';
import { plantedBundle, type DefectName } from '../../hw-sim/explore/planted.ts';
import { parseScenario } from '../../hw-sim/scenario.ts';
import { runScenario } from '../../hw-sim/runner.ts';

/** Found with seed 'teeth', at most 60 operations a schedule, within these many schedules (and with these gates). */
export const TEETH: [DefectName, number, Gate[]?][] = [
  ['skip-ledger-write', 5],
  ['accept-bad-signature', 5],
  ['accept-foreign-game', 10],
  ['accept-untabled-prize', 15],
  ['pay-on-c', 20],
  ['drop-crc-check', 25],
  ['never-confirm', 10],
  ['forget-high-water', 100, ['clock-back']],
];

export const teethTitle = ([defect, within, gates]: (typeof TEETH)[number]) =>
  `teeth: ${defect} is found within ${within} schedules${gates ? ` with ${gates.join(', ')}` : ''}, with a scenario that reproduces it`;

/** Explores the planted bundle into `out`/<defect>; asserts one violation and a scenario that tells the bundles apart. */
export async function checkTeeth([defect, within, gates]: (typeof TEETH)[number], clean: string, out: string) {
  const bundle = await plantedBundle(defect);
  const s = await explore({
    count: within,
    seed: 'teeth',
    jobs: 1,
    bundle,
    noCamera: true,
    maxOps: 60,
    maxViolations: 1,
    outDir: join(out, defect),
    ...(gates ? { gates } : {}),
  });
  assert.is(s.violations, 1, `${defect} not found in ${within} schedules`);
  const f = s.failures[0];
  assert.ok(f.file && f.reproduces, `scenario written and reproducing: ${JSON.stringify(f)}`);
  assert.ok(
    f.engine === 'quickjs' || f.onQuickjs,
    `found under v8, QuickJS breaks the same invariant: ${JSON.stringify(f)}`,
  );
  const sc = parseScenario(readFileSync(f.file!, 'utf8'), f.file!);
  const broken = await runScenario(sc, { bundle });
  assert.not.ok(broken.ok, 'the scenario fails on the planted bundle');
  assert.is(broken.steps.length, sc.steps.length, 'it fails at its last step, the check of the broken invariant');
  const fine = await runScenario(sc, { bundle: clean });
  assert.ok(fine.ok, `the same scenario passes on the clean bundle: ${fine.steps.find((x) => !x.ok)?.problem}`);
}
