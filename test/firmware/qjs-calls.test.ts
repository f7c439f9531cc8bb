// The direct path for the VM's calls into host functions (hw-sim/qjs-calls.ts) does what
// quickjs-emscripten's own path does: same arguments and `this`, same results, a host throw becomes
// the VM's exception, nothing leaks. And it is installed with the quickjs-emscripten the project has:
// an upgrade that changes the internals it uses fails here instead of slowing every VM in silence.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { QuickJSContext } from 'quickjs-emscripten';
import { quickjsModule, type QjsVariant } from '../../hw-sim/qjs-host.ts';
import { directHostCalls } from '../../hw-sim/qjs-calls.ts';
import { boot, chipWith, flat } from './harness.ts';

/** Host functions of every kind of outcome, on `vm`. */
function install(vm: QuickJSContext): void {
  const fns: Record<string, Parameters<QuickJSContext['newFunction']>[1]> = {
    // the arguments as the host sees them, and `this`
    echo: function (this: unknown, ...args) {
      const seen = args.map((h) => vm.dump(h));
      return vm.newString(JSON.stringify({ seen, self: vm.dump(this as never) }));
    },
    add: (a, b) => vm.newNumber(vm.getNumber(a) + vm.getNumber(b)),
    nothing: () => undefined,
    yes: () => vm.true,
    obj: () => vm.newObject(),
    boom: () => {
      throw new Error('boom from the host');
    },
    odd: () => {
      throw 'a string thrown';
    },
    vmError: () => ({ error: vm.newError('an error result') }),
  };
  for (const [name, f] of Object.entries(fns)) {
    const h = vm.newFunction(name, f);
    vm.setProp(vm.global, name, h);
    h.dispose();
  }
}

const SCRIPT = `(function () {
  var out = [];
  var o = { tag: 7, echo: echo };
  out.push(o.echo(1, 'two', [3], null));
  out.push(add(40, 2), nothing(), yes(), typeof obj());
  for (var name of ['boom', 'odd', 'vmError']) {
    try { globalThis[name](); out.push('no throw'); }
    catch (e) { out.push(String(e instanceof Error) + ' ' + (e && e.message !== undefined ? e.message : String(e))); }
  }
  return JSON.stringify(out);
})()`;

async function run(variant: QjsVariant, direct: boolean): Promise<{ out: string; installed: boolean }> {
  const rt = (await quickjsModule(variant)).newRuntime();
  const vm = rt.newContext();
  try {
    const installed = direct && directHostCalls(vm);
    install(vm);
    const r = vm.unwrapResult(vm.evalCode(SCRIPT));
    const out = vm.getString(r);
    r.dispose();
    return { out, installed };
  } finally {
    vm.dispose();
    rt.dispose();
  }
}

for (const variant of ['quickjs', 'quickjs-ng'] as const) {
  test(`${variant}: installed, and every outcome the same as quickjs-emscripten's own path`, async () => {
    const stock = await run(variant, false);
    const direct = await run(variant, true);
    assert.ok(direct.installed, 'directHostCalls found the internals of the installed quickjs-emscripten');
    assert.is(direct.out, stock.out);
    // What the outcomes are, so that both paths being wrong the same way still fails.
    assert.equal(JSON.parse(direct.out), [
      JSON.stringify({ seen: [1, 'two', [3], null], self: { tag: 7 } }), // (dump drops functions)
      42,
      null,
      true,
      'object',
      'true boom from the host',
      'true a string thrown',
      'true an error result',
    ]);
  });
}

test('nothing leaks: 2 000 calls returning a new object each leave the object count where it was', async () => {
  const rt = (await quickjsModule('quickjs')).newRuntime();
  const vm = rt.newContext();
  assert.ok(directHostCalls(vm));
  install(vm);
  const objects = () => {
    const h = rt.computeMemoryUsage();
    const n = (vm.dump(h) as { obj_count: number }).obj_count;
    h.dispose();
    return n;
  };
  vm.unwrapResult(vm.evalCode('for (var i = 0; i < 10; i++) obj();')).dispose();
  const before = objects();
  vm.unwrapResult(vm.evalCode('for (var i = 0; i < 2000; i++) { obj(); try { boom(); } catch (e) {} }')).dispose();
  assert.ok(objects() - before < 10, `${objects() - before} objects more`);
  vm.dispose();
  rt.dispose();
});

test('a context without those internals is left as it is', () => {
  const fake = { cToHostCallbacks: { callFunction: () => 0 } } as unknown as QuickJSContext;
  assert.is(directHostCalls(fake), false);
  assert.is(
    (fake as unknown as { cToHostCallbacks: { callFunction: () => number } }).cToHostCallbacks.callFunction(),
    0,
  );
});

test("the firmware's VM takes the direct path and boots on it", async () => {
  const sim = await boot(chipWith());
  try {
    const vm = (sim as unknown as { vm: { directCalls?: boolean } }).vm;
    assert.is(vm.directCalls, true);
    assert.match(flat(sim.screen), /PRÊT/);
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
});

test.run();
