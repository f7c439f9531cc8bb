// The firmware on Moddable XS (hw-sim/xs-host.ts) must behave as on QuickJS: the same seeded explorer
// schedules, every fault group, run on both to the same screens, log lines and model verdicts, step for
// step. SAPHIR_XS_SCHEDULES sets how many (3 here; 1 000 were compared for docs/firmware.md, "Engines").
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { makeSchedule, runOps, withBundles } from '../../hw-sim/explore/explore.ts';
import { GATES } from '../../hw-sim/explore/menu.ts';
import '../../hw-sim/node-host.ts';
import { loadVectors, requireTool } from '../helpers.ts';
import { boot, bundleText, chipWith, scanSerial } from '../firmware/harness.ts';

const withXs = requireTool('xsnap');
const count = Number(process.env.SAPHIR_XS_SCHEDULES ?? 3);

withXs(`XS and QuickJS run ${count} seeded schedules to the same screens, logs and verdicts`, async () => {
  const { bundle } = await withBundles({});
  let steps = 0;
  for (let i = 0; i < count; i++) {
    const s = makeSchedule('xs-engine', i, { maxOps: 70, gates: [...GATES] });
    const q: string[] = [];
    const x: string[] = [];
    const rq = await runOps(s, s.ops, bundle, 'quickjs', q);
    const rx = await runOps(s, s.ops, bundle, 'xs', x);
    const at = q.findIndex((line, k) => line !== x[k]);
    assert.is(at, q.length === x.length ? -1 : at, `schedule ${i}, line ${at}: quickjs «${q[at]}», xs «${x[at]}»`);
    assert.is(x.length, q.length, `schedule ${i}: as many screens and log lines`);
    assert.equal(rx.violation, rq.violation, `schedule ${i}: the same verdict`);
    assert.is(rx.steps, rq.steps);
    assert.ok(q.length > 20, `schedule ${i} showed something (${q.length} lines)`);
    steps += rq.steps;
  }
  assert.ok(steps > 30 * count, `${steps} steps compared`);
});

withXs('every SPH1 vector scanned on XS and QuickJS: the same screens, one by one', async () => {
  const bundle = await bundleText();
  const [q, x] = [await boot(chipWith(), { bundle }), await boot(chipWith(), { bundle, variant: 'xs' })];
  try {
    const vectors = loadVectors().vectors;
    assert.ok(vectors.length >= 20);
    for (const v of vectors) {
      for (const sim of [q, x]) await scanSerial(sim, v.code);
      assert.equal(x.screen, q.screen, v.name);
      for (const sim of [q, x]) await sim.press('C');
    }
    assert.equal(x.faults, []);
    assert.equal(q.faults, []);
  } finally {
    q.dispose();
    x.dispose();
  }
});

test.run();
