// Why the device's heap figure (hw-sim/qjs-host.ts heapDevice) leaves out the bytecode's line tables and
// the functions' source text: the QuickJS builds the simulator runs keep both even when asked to strip
// (the `strip` flag and the "use strip" directive alike), as a device's stored firmware would not. When
// a build starts to honour either, this test says so and the correction (then 0) can go.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newQuickJSWASMModuleFromVariant, RELEASE_SYNC } from 'quickjs-emscripten';
import NG from '@jitl/quickjs-ng-wasmfile-release-sync';
import { boot, bundleText, chipWith } from './harness.ts';
import { QjsDevice } from '../../hw-sim/qjs-host.ts';
import { functionSources } from '../../hw-sim/function-source.ts';
import type { Device } from '../../src/hal.ts';

test('QuickJS and QuickJS-ng keep the line tables whatever strip says; heapDevice takes them out', async () => {
  for (const variant of [RELEASE_SYNC, NG]) {
    const mod = await newQuickJSWASMModuleFromVariant(variant as typeof RELEASE_SYNC);
    const usage = (strip: boolean, directive = '') => {
      const rt = mod.newRuntime();
      const vm = rt.newContext();
      const code = directive + 'function a(q) {\n var z = q + 1;\n return z * 2;\n}\nglobalThis.s = String(a);';
      vm.evalCode(code, 'x.js', { strip }).dispose();
      const h = rt.computeMemoryUsage();
      const raw = vm.dump(h) as Record<string, number>;
      h.dispose();
      const text = vm.getString(vm.getProp(vm.global, 's'));
      vm.dispose();
      rt.dispose();
      return { pc2line: raw.js_func_pc2line_size, func: raw.js_func_size, text };
    };
    const plain = usage(false);
    for (const stripped of [usage(true), usage(true, '"use strip";')]) {
      assert.ok(plain.pc2line > 0 && stripped.pc2line === plain.pc2line, 'line tables kept: keep heapDevice');
      // The source is still there (toString), and js_func_size unchanged: it holds the text.
      assert.match(stripped.text, /return z \* 2/);
      assert.ok(stripped.func >= plain.func, 'sources kept: keep heapDevice');
    }
  }
  const sim = await boot(chipWith());
  try {
    // (a first reading: the one that may start a collection of what the boot left)
    sim.heapDevice();
    const raw = (sim.vm as QjsDevice).heapStats().raw;
    const bundle = await bundleText();
    assert.is(sim.heapDevice(), raw.memory_used_size - raw.js_func_pc2line_size - functionSources(bundle));
    assert.ok(functionSources(bundle) > 50_000, `the firmware's sources: ${functionSources(bundle)} B`);
    assert.ok(raw.js_func_pc2line_size > 10_000, `the firmware's line tables: ${raw.js_func_pc2line_size} B`);
  } finally {
    sim.dispose();
  }
});

test('heapDevice also takes out the sources of each text the firmware evaluates (the camera path)', async () => {
  const later = '(function () { function g(x) { return x + 1; } return { g: g, h: (y) => g(y) * 2 }; })()';
  const bundle = '(function () { globalThis.m = null; globalThis.load = function () { m = (0, eval)(LATER); }; })()';
  const vm = await QjsDevice.start({
    bundle: bundle.replace('LATER', JSON.stringify(later)),
    device: { identity: {} } as unknown as Device,
  });
  try {
    const less = () => {
      const s = vm.heapStats();
      return s.used - s.raw.js_func_pc2line_size - vm.heapDevice();
    };
    assert.is(less(), functionSources(bundle.replace('LATER', JSON.stringify(later))));
    const before = less();
    vm.eval('load(); m.h(1)');
    assert.is(less() - before, functionSources(later));
    assert.ok(functionSources(later) > 40);
  } finally {
    vm.dispose();
  }
});

test.run();
