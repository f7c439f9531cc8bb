// The function-source figure (hw-sim/function-source.ts, docs/firmware.md "Device class and budgets")
// against the engine: the firmware booted twice, as built and with spaces at the start of every function
// body; QuickJS's js_func_size grows by what the model says the kept sources grow by (within 3 %: a
// few functions the model counts are freed after boot), so the functions it counts do keep their text.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boot, bundleText, chipWith } from './harness.ts';
import { functionSourceBytes, paddedBundle } from '../../hw-sim/function-source.ts';
import type { QjsDevice } from '../../hw-sim/qjs-host.ts';

async function funcSize(bundle: string): Promise<number> {
  const sim = await boot(chipWith(), { bundle });
  try {
    return (sim.vm as QjsDevice).heapStats().raw.js_func_size;
  } finally {
    sim.dispose();
  }
}

test('the sources the model counts are the ones QuickJS keeps', async () => {
  const bundle = await bundleText();
  const { text, predicted } = paddedBundle(bundle, 7);
  const measured = (await funcSize(text)) - (await funcSize(bundle));
  const { bytes, functions } = functionSourceBytes(bundle);
  console.log(
    `${functions} functions, ${(bytes / 1024).toFixed(1)} KiB of sources; padding: ${measured} B, model ${predicted} B`,
  );
  assert.ok(measured > 0, 'the engine keeps function sources (if not, the figure is 0: drop it)');
  assert.ok(Math.abs(measured - predicted) <= predicted * 0.03, `engine ${measured} B, model ${predicted} B`);
});

test.run();
