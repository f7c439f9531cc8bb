// Why the device's heap figure (hw-sim/qjs-host.ts heapDevice) leaves out the bytecode's line tables:
// the QuickJS builds the simulator runs keep them even when asked to strip, as a device's stored
// firmware would not. When a build starts to honour `strip`, this test says so and the correction
// (then 0) can go.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newQuickJSWASMModuleFromVariant, RELEASE_SYNC } from 'quickjs-emscripten';
import NG from '@jitl/quickjs-ng-wasmfile-release-sync';
import { boot, chipWith } from './harness.ts';
import type { QjsDevice } from '../../hw-sim/qjs-host.ts';

test('QuickJS and QuickJS-ng keep the line tables whatever strip says; heapDevice takes them out', async () => {
  for (const variant of [RELEASE_SYNC, NG]) {
    const mod = await newQuickJSWASMModuleFromVariant(variant as typeof RELEASE_SYNC);
    const pc2line = (strip: boolean) => {
      const rt = mod.newRuntime();
      const vm = rt.newContext();
      vm.evalCode('function a(q) {\n var z = q + 1;\n return z * 2;\n}\n', 'x.js', { strip }).dispose();
      const h = rt.computeMemoryUsage();
      const n = (vm.dump(h) as Record<string, number>).js_func_pc2line_size;
      h.dispose();
      vm.dispose();
      rt.dispose();
      return n;
    };
    assert.ok(pc2line(true) > 0 && pc2line(true) === pc2line(false), 'strip is not honoured: keep heapDevice');
  }
  const sim = await boot(chipWith());
  try {
    const raw = (sim.vm as QjsDevice).heapStats().raw;
    assert.is(sim.heapDevice(), raw.memory_used_size - raw.js_func_pc2line_size);
    assert.ok(raw.js_func_pc2line_size > 10_000, `the firmware's line tables: ${raw.js_func_pc2line_size} B`);
  } finally {
    sim.dispose();
  }
});

test.run();
