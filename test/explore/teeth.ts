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
import { SlotWriter, CHUNK, J_HEAD, type WriteResult } from '../../rom/update.ts';
import { LAYOUT } from '../../rom/layout.ts';
import type { NorChip } from '../../rom/bootloader.ts';

/** Found with seed 'teeth', at most 60 operations a schedule, within these many schedules (and with these gates). */
export const TEETH: [DefectName, number, Gate[]?][] = [
  ['skip-ledger-write', 5],
  ['accept-bad-signature', 5],
  ['accept-foreign-game', 10],
  ['accept-untabled-prize', 15],
  ['pay-on-c', 20],
  ['drop-crc-check', 45],
  ['never-confirm', 10],
  ['forget-high-water', 100, ['clock-back']],
  ['pay-after-deadline', 45],
  ['swap-emission-block', 10],
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

/**
 * Defects of the device's own code (the simulated ROM, hw-sim/), found within these many schedules
 * (seed 'teeth', at most 60 operations, the camera-less clean bundle). Planted by patching hw-sim's
 * classes in this process, so the explorer runs on one thread here.
 */
export const DEVICE_TEETH: [DeviceDefect, number][] = [['journal-mark-first', 20]];
export type DeviceDefect = 'journal-mark-first';

/** Plants `defect`; returns what takes it out again. */
export function plantDevice(defect: DeviceDefect): () => void {
  // journal-mark-first: the update journal marks a chunk before programming it, so a cut between the two
  // leaves a chunk marked and missing; a resumed upload skips it and FINISH refuses the slot (hash).
  const proto = SlotWriter.prototype as unknown as { write(offset: number, data: Uint8Array): WriteResult };
  const write = proto.write;
  proto.write = function (this: unknown, offset: number, data: Uint8Array) {
    const w = this as { done: Uint8Array; size: number; chip: NorChip };
    const i = offset / CHUNK;
    if (defect === 'journal-mark-first' && Number.isInteger(i) && !w.done[i] && offset + data.length <= w.size)
      w.chip.program(LAYOUT.updateJournal.offset + J_HEAD + i, new Uint8Array([0]));
    return write.call(this, offset, data);
  };
  return () => {
    proto.write = write;
  };
}

export const deviceTeethTitle = ([defect, within]: (typeof DEVICE_TEETH)[number]) =>
  `teeth: the device defect ${defect} is found within ${within} schedules over the service port, with a scenario that reproduces it`;

/** Explores with the device defect planted; asserts one violation and a scenario that tells the devices apart. */
export async function checkDeviceTeeth([defect, within]: (typeof DEVICE_TEETH)[number], clean: string, out: string) {
  const unplant = plantDevice(defect);
  let file: string;
  try {
    const s = await explore({
      count: within,
      seed: 'teeth',
      jobs: 1,
      bundle: clean,
      noCamera: true,
      maxOps: 60,
      maxViolations: 1,
      outDir: join(out, defect),
      gates: ['ledger-damage', 'clock-back'],
    });
    assert.is(s.violations, 1, `${defect} not found in ${within} schedules`);
    const f = s.failures[0];
    assert.is(f.invariant, 5, JSON.stringify(f));
    assert.ok(f.file && f.reproduces, `scenario written and reproducing: ${JSON.stringify(f)}`);
    file = f.file!;
    const sc = parseScenario(readFileSync(file, 'utf8'), file);
    const broken = await runScenario(sc, { bundle: clean });
    assert.not.ok(broken.ok, 'the scenario fails on the planted device');
    assert.is(broken.steps.length, sc.steps.length, 'it fails at its last step');
  } finally {
    unplant();
  }
  const sc = parseScenario(readFileSync(file, 'utf8'), file);
  const fine = await runScenario(sc, { bundle: clean });
  assert.ok(fine.ok, `the same scenario passes on the sound device: ${fine.steps.find((x) => !x.ok)?.problem}`);
}
