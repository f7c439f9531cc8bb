// The function-source figure (hw-sim/function-source.ts, docs/firmware.md "Device class and budgets")
// against the engine: the firmware booted twice, as built and with spaces at the start of every function
// body; QuickJS's js_func_size grows by what the model says the kept sources grow by (within 3 %: a
// few functions the model counts are freed after boot), so the functions it counts do keep their text.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boot, bundleText, chipWith, showFrame, ticket } from './harness.ts';
import { qrFrame } from '../input/helpers.ts';
import { newQuickJSWASMModuleFromVariant, RELEASE_SYNC } from 'quickjs-emscripten';
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

test('and in the camera path the firmware evaluates on its first frame (its module function and run-once functions left out)', async () => {
  const sim = await boot(chipWith());
  let camera: string;
  try {
    await showFrame(sim, qrFrame(ticket({ number: 22 })));
    [camera] = (sim.vm as QjsDevice).evaluated;
  } finally {
    sim.dispose();
  }
  const mod = await newQuickJSWASMModuleFromVariant(RELEASE_SYNC);
  const funcSizeOf = (text: string) => {
    const rt = mod.newRuntime();
    const vm = rt.newContext();
    // As its loader does (tools/build.ts packedLoader): the text's function called once with the kit, then dropped.
    vm.evalCode(`globalThis.C = (${text})({})`).dispose();
    const h = rt.computeMemoryUsage();
    const n = (vm.dump(h) as Record<string, number>).js_func_size;
    h.dispose();
    vm.dispose();
    rt.dispose();
    return n;
  };
  const { text, predicted } = paddedBundle(camera, 7);
  const measured = funcSizeOf(text) - funcSizeOf(camera);
  console.log(
    `camera path: ${(functionSourceBytes(camera).bytes / 1024).toFixed(1)} KiB of sources; padding: ${measured} B, model ${predicted} B`,
  );
  assert.ok(Math.abs(measured - predicted) <= predicted * 0.03, `engine ${measured} B, model ${predicted} B`);
});

test.run();
