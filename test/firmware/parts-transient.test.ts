// The parts compiled for one call and freed after it (tools/build.ts `transient`: the X/Z reports and
// the operator notice; docs/firmware.md "Device class and budgets"): after each use, QuickJS
// holds none of their functions (js_func_size as before), the heap does not grow from one use to the
// next, and the heap model (hw-sim/function-source.ts, ONCE_MARK) takes none of their sources off.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import '../../hw-sim/function-source.ts';
import { boot, chipWith } from './harness.ts';
import type { QjsDevice } from '../../hw-sim/qjs-host.ts';
import type { Simulator } from '../../hw-sim/sim.ts';
import { ONCE_MARK } from '../../src/once-mark.ts';
import { storeDevNotice } from '../../hw-sim/heap-budget.ts';

const funcSize = (sim: Simulator) => (sim.vm as QjsDevice).heapStats().raw.js_func_size;

async function xReport(sim: Simulator): Promise<void> {
  for (const k of ['1', 'OK'] as const) await sim.press(k);
  await sim.run(0);
  assert.match(sim.screen[0], /RAPPORT X/);
  await sim.press('C');
  await sim.run(0);
}

test('the reports part: compiled for each report, printed, and freed after it', async () => {
  const sim = await boot(chipWith());
  try {
    await xReport(sim); // (the printing part compiled then, and kept)
    assert.is(sim.printer!.receipts.length, 1, 'the report printed');
    const before = funcSize(sim);
    await xReport(sim);
    assert.is(funcSize(sim), before, 'no function of the reports part outlives the report');
    const heap = sim.heapDevice();
    const raw = sim.heapUsed();
    await xReport(sim);
    await xReport(sim);
    assert.is(sim.printer!.receipts.length, 4);
    assert.is(funcSize(sim), before);
    assert.ok(Math.abs(sim.heapUsed() - raw) < 256, `the engine's heap ${raw} → ${sim.heapUsed()} B over two reports`);
    assert.ok(
      Math.abs(sim.heapDevice() - heap) < 256,
      `the device heap ${heap} → ${sim.heapDevice()} B: the model takes no freed part's sources off`,
    );
    const texts = (sim.vm as QjsDevice).evaluated.filter((t) => t.startsWith(ONCE_MARK));
    assert.is(texts.length, 4, 'each report compiles the part again, its text marked as compiled for one call');
  } finally {
    sim.dispose();
  }
});

test('the notice part: compiled at boot for a notice on flash, applied, and freed', async () => {
  const bootWith = async (notice: boolean) => {
    const chip = chipWith();
    if (notice) storeDevNotice(chip);
    const sim = await boot(chip);
    const size = funcSize(sim);
    const texts = (sim.vm as QjsDevice).evaluated;
    for (const k of ['3', 'OK'] as const) await sim.press(k);
    await sim.run(0);
    const inForce = sim.screen.some((l) => /^AVIS n° 1$/.test(l.trim()));
    sim.dispose();
    return { size, texts, inForce };
  };
  const none = await bootWith(false);
  const held = await bootWith(true);
  assert.ok(held.inForce, 'the notice is in force');
  assert.not.ok(none.inForce);
  assert.equal(none.texts, [], 'no notice: its part never compiled');
  assert.ok(held.texts.length >= 1 && held.texts.every((t) => t.startsWith(ONCE_MARK)));
  assert.is(held.size, none.size, 'no function of the notice part outlives the boot');
});

test.run();
