// The bootloader remembers its last verifications (rom/bootloader.ts): the same bytes, key and
// verifier give the same answer without hashing again, and anything else is verified afresh.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import '../../hw-sim/node-host.ts';
import { checkImage } from '../../rom/bootloader.ts';
import { Simulator, ensureBundle } from '../../hw-sim/sim.ts';
import { fromHex } from '../../src/hex.ts';
import { DEV_FIRMWARE_PUBLIC_KEY_HEX } from '../../src/image/format.ts';
import { hostVerify } from '../../tools/node-crypto.ts';

const key = fromHex(DEV_FIRMWARE_PUBLIC_KEY_HEX);

test('an image verified once is still checked byte for byte, key for key, each time', () => {
  const sim = new Simulator({ bundle: ensureBundle() });
  const image = sim.updateImage('next');
  let calls = 0;
  const verify: typeof hostVerify = (s, m, k) => (calls++, hostVerify(s, m, k));
  const first = checkImage(image, 0, { publicKey: key, verify });
  assert.ok(first.ok);
  // The image's signature and its manifest's (docs/firmware-image.md, TLV 0xA0).
  assert.is(calls, 2);
  // The same bytes (another copy) again: remembered.
  assert.ok(checkImage(image.slice(), 0, { publicKey: key, verify }).ok);
  assert.is(calls, 2, 'not verified again');
  // The caller's array changed after the check: the answer follows the new bytes.
  image[100] ^= 1;
  const bent = checkImage(image, 0, { publicKey: key, verify });
  assert.ok(!bent.ok && bent.reason === 'hash', 'refused for its hash');
  image[100] ^= 1;
  // Another key, another verifier: verified afresh.
  const other = checkImage(image, 0, { publicKey: new Uint8Array(32).fill(1), verify });
  assert.ok(!other.ok && other.reason === 'signature');
  assert.ok(checkImage(image, 0, { publicKey: key, verify: (s, m, k) => hostVerify(s, m, k) }).ok);
  // The security counter is checked on every call, remembered or not.
  const rollback = checkImage(image, 5, { publicKey: key, verify });
  assert.ok(!rollback.ok && rollback.reason === 'rollback');
  sim.dispose();
});

test.run();
