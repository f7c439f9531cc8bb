import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkCode } from '../../src/sph1/check.ts';
import { testKeyRing, TEST_PUBLIC_KEY_HEX } from '../../src/sph1/keys.ts';
import { nobleVerify } from '../../src/crypto/ed25519.ts';
import { nodeVerify } from '../../tools/node-crypto.ts';
import { loadVectors } from '../helpers.ts';

const { vectors, test_public_key_hex } = loadVectors();

test('the vectors file names our test key', () => {
  assert.is(test_public_key_hex, TEST_PUBLIC_KEY_HEX);
  assert.ok(vectors.length >= 50);
});

for (const [name, verify] of [
  ['noble', nobleVerify],
  ['node:crypto', nodeVerify],
] as const) {
  test(`every SPH1 vector gives its expected outcome (${name})`, () => {
    for (const v of vectors) {
      const r = checkCode(v.code, { keys: testKeyRing(), verify });
      assert.equal({ status: r.status, prize_eur: r.prizeEur, reason: r.reason }, v.expect, v.name);
    }
  });
}

test.run();
