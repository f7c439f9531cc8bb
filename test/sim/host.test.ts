// hw-sim/host.ts: what the simulator takes from the machine it runs on. In Node, hw-sim/node-host.ts
// installs node:crypto, files and the firmware build; without it (a browser, or a Node entry that
// forgot the import) the simulator still signs and verifies (noble, the device's rules) and says
// clearly what is missing instead of touching a file system.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../helpers.ts';
import { simHost } from '../../hw-sim/host.ts';
import { hostVerify, nodeSign } from '../../tools/node-crypto.ts';

test('importing hw-sim/node-host.ts installs Node crypto (test/helpers.ts imports it)', () => {
  assert.is(simHost().sign, nodeSign);
  assert.is(simHost().verify, hostVerify);
});

test("the Node host's native byte equality agrees with a byte loop, views and lengths included", () => {
  const same = simHost().sameBytes;
  assert.type(same, 'function');
  const a = Uint8Array.from({ length: 130_000 }, (_, i) => (i * 7) & 255);
  const b = a.slice();
  assert.ok(same!(a, b));
  b[b.length - 1] ^= 1;
  assert.not.ok(same!(a, b), 'the last byte differs');
  assert.not.ok(same!(a, a.subarray(0, a.length - 1)), 'a prefix');
  const wide = new Uint8Array(a.length + 3);
  wide.set(a, 3);
  assert.ok(same!(a, wide.subarray(3)), 'a view at an odd offset');
  assert.ok(same!(new Uint8Array(0), new Uint8Array(0)));
});

test('without a host: tickets are still signed (noble); a boot without a bundle says what is missing', () => {
  const script = `
    const { Simulator } = await import('./hw-sim/sim.ts');
    const { ticketCode } = await import('./hw-sim/tickets.ts');
    const { NorFlash } = await import('./hw-sim/nor-flash.ts');
    const code = ticketCode({ emission: 1, block: 9, number: 1, prize: 10 });
    const out = { code: code.length > 20 };
    try { await new Simulator().boot(); out.boot = 'booted'; } catch (e) { out.boot = e.message; }
    try { new NorFlash().save('/tmp/never'); out.save = 'saved'; } catch (e) { out.save = e.message; }
    console.log(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.is(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
  assert.ok(out.code);
  assert.match(out.boot, /the firmware bundle: not available here \(Node: import hw-sim\/node-host\.ts/);
  assert.match(out.save, /writing \/tmp\/never: not available here/);
});

test.run();
