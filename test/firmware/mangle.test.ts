// The firmware bundle's shortened property names (tools/mangle.ts): internal names go, every name that
// crosses the bundle's edge (built-ins, the HAL, JSON records, the hosts' globals) stays whole.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mangleProps } from '../../tools/mangle.ts';
import { ROOT_DIR, bundleText } from './harness.ts';

test('mangle: internal names are shortened, built-ins, HAL, JSON and host globals never', async () => {
  const re = mangleProps()!;
  assert.ok(re, 'something to shorten');
  for (const n of ['repairLedger', 'lastReceipt', 'compactExpired', 'markStored']) assert.ok(re.test(n), n);
  const builtins = ['keys', 'add', 'every', 'index', 'length', 'push', 'slice', 'set', 'get', 'then', 'done', 'value'];
  const hal = readFileSync(join(ROOT_DIR, 'src/hal.ts'), 'utf8').match(/[A-Za-z_$][\w$]*/g)!;
  const json = ['payoutLimitEur', 'emissions', 'closingDate', 'device_id', 'results', 'paid_at', 'signature'];
  const globals = ['device', 'saphir', '__hostEd25519'];
  for (const n of [...builtins, ...hal, ...json, ...globals]) assert.not.ok(re.test(n), `${n} must stay whole`);
  const text = await bundleText();
  assert.not.ok(text.includes('repairLedger'), 'an internal name is gone from the bundle');
  for (const n of ['onReadable', 'eraseBlock', 'payoutLimitEur', 'saphir']) assert.ok(text.includes(n), n);
});

test.run();
