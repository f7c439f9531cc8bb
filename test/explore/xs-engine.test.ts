// The firmware on Moddable XS (hw-sim/xs-host.ts) must behave as on QuickJS: the same seeded explorer
// schedules, every fault group, run on both to the same screens, log lines and model verdicts, step for
// step; every SPH1 vector and every crafted signature (test/sph1/crafted-cases.ts) to the same verdict.
// SAPHIR_XS_SCHEDULES sets how many schedules (1 here; xs-engine.long.ts runs the 1 000 of
// docs/firmware.md, "Engines").
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { withBundles } from '../../hw-sim/explore/explore.ts';
import { compareSchedule } from './xs-compare.ts';
import '../../hw-sim/node-host.ts';
import { loadVectors, requireTool } from '../helpers.ts';
import { boot, bundleText, chipWith, scanSerial } from '../firmware/harness.ts';
import { build } from 'esbuild';
import { FIRMWARE_ESBUILD, ROOT } from '../../tools/build.ts';
import { QjsDevice } from '../../hw-sim/qjs-host.ts';
import { XsDevice } from '../../hw-sim/xs-host.ts';
import { deviceVerify } from '../../firmware/verify.ts';
import { toHex } from '../../src/hex.ts';
import type { Device } from '../../src/hal.ts';
import { crafted } from '../sph1/crafted-cases.ts';

const withXs = requireTool('xsnap');
// (1 here: schedule 0; xs-engine.long.ts runs it and 149 more.)
const count = Number(process.env.SAPHIR_XS_SCHEDULES ?? 1);

withXs(`XS and QuickJS run ${count} seeded schedules to the same screens, logs and verdicts`, async () => {
  const { bundle } = await withBundles({});
  let steps = 0;
  for (let i = 0; i < count; i++) {
    const c = await compareSchedule(bundle!, i);
    assert.is(c.difference, null, `schedule ${i}: ${c.difference}`);
    assert.ok(c.lines > 20, `schedule ${i} showed something (${c.lines} lines)`);
    steps += c.steps;
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

withXs(
  'every crafted signature: the device verifier gives the same verdict on XS, QuickJS and V8, one by one',
  async () => {
    // firmware/verify.ts bundled as the firmware bundles it, its verdict asked case by case in each engine.
    const out = await build({
      ...FIRMWARE_ESBUILD,
      stdin: {
        contents:
          "import { deviceVerify } from './firmware/verify.ts'; import { fromHex } from './src/hex.ts';" +
          'globalThis.verdict = (s, m, p) => deviceVerify(fromHex(s), fromHex(m), fromHex(p));',
        resolveDir: ROOT,
        loader: 'js',
      },
      write: false,
    });
    const bundle = out.outputFiles[0].text;
    const device = { identity: {} } as unknown as Device;
    const [q, x] = [await QjsDevice.start({ bundle, device }), await XsDevice.start({ bundle, device })];
    try {
      const cases = crafted();
      assert.ok(cases.length >= 88, `${cases.length} cases`);
      let accepted = 0;
      for (const c of cases) {
        const call = `verdict('${toHex(c.sig)}', '${toHex(c.msg)}', '${toHex(c.pub)}')`;
        const v8 = deviceVerify(c.sig, c.msg, c.pub);
        assert.is(q.eval(call), v8, `QuickJS: ${c.name}`);
        assert.is(x.eval(call), v8, `XS: ${c.name}`);
        if (v8) accepted++;
      }
      assert.ok(accepted >= 8 && accepted < cases.length - 40, `${accepted} accepted: both verdicts exercised`);
      assert.equal(q.faults, []);
      assert.equal(x.faults, []);
    } finally {
      q.dispose();
      x.dispose();
    }
  },
);

test.run();
