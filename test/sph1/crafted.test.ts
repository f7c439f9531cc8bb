// One verdict everywhere (issue 9, item 5): crafted Ed25519 edge cases (torsion components in R and in A,
// small-order keys, S ≥ L, non-canonical encodings) get the same verdict from the host path that
// `saphir check`, `audit` and `scan` use (hostVerify) as from the device's verifier (firmware/verify.ts)
// and noble's RFC 8032 strict rules. node:crypto alone disagrees on some of them: the test counts those
// too, so it keeps exercising the difference.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Point } from '@noble/ed25519';
import { deviceVerify } from '../../firmware/verify.ts';
import { nobleVerify } from '../../src/crypto/ed25519.ts';
import { HOST_CRYPTO, hostVerify, nodeVerify, publicKeyProblem } from '../../tools/node-crypto.ts';
import { TEST_KEY_ID, TEST_KEY_SEED_HEX, testKeyRing } from '../../src/sph1/keys.ts';
import { encodeTicket } from '../../src/sph1/encode.ts';
import { checkCode } from '../../src/sph1/check.ts';
import { composeZones, makeRng } from '../../src/gen/index.ts';
import { fromHex } from '../../src/hex.ts';
import { utf8Encode } from '../../src/utf8.ts';
import { saphirIn } from '../cli/run-cli.ts';
import { TORSION, cat, crafted, le, torsionSign } from './crafted-cases.ts';

test('hostVerify gives the device verdict on every crafted case; node:crypto alone does not', () => {
  const cases = crafted();
  assert.ok(cases.length >= 88, `${cases.length} cases`);
  let nodeDisagrees = 0;
  let accepted = 0;
  for (const c of cases) {
    const device = deviceVerify(c.sig, c.msg, c.pub);
    assert.is(nobleVerify(c.sig, c.msg, c.pub), device, `noble vs device: ${c.name}`);
    assert.is(hostVerify(c.sig, c.msg, c.pub), device, `host vs device: ${c.name}`);
    if (nodeVerify(c.sig, c.msg, c.pub) !== device) nodeDisagrees++;
    if (device) accepted++;
  }
  assert.ok(
    nodeDisagrees >= 10,
    `node:crypto disagrees on ${nodeDisagrees} cases only: the crafted set lost its teeth`,
  );
  assert.ok(accepted >= 8, `${accepted} accepted`);
});

test('small-order and non-canonical public keys are named as the device refuses them', () => {
  for (const t of TORSION) assert.is(publicKeyProblem(t.toBytes()), 'small-order point');
  assert.is(publicKeyProblem(fromHex('02' + '00'.repeat(31))), 'not a canonical curve point');
  assert.is(publicKeyProblem(testKeyRing().get(TEST_KEY_ID)!), null);
  // The same array, changed in place into a small-order key, is looked at again.
  const key = testKeyRing().get(TEST_KEY_ID)!;
  const msg = utf8Encode('m');
  assert.is(publicKeyProblem(key), null);
  key.set(Point.ZERO.toBytes());
  assert.is(publicKeyProblem(key), 'small-order point');
  assert.not.ok(hostVerify(cat(Point.ZERO.toBytes(), le(0n)), msg, key));
  // OpenSSL takes it (libsodium, when it loads, does not): either way the host path refuses it above.
  if (HOST_CRYPTO === 'node:crypto')
    assert.ok(nodeVerify(cat(Point.ZERO.toBytes(), le(0n)), msg, key), 'node:crypto alone takes it');
});

test('saphir check and audit: a torsion-R ticket gets the device verdict, a forged one does not', async () => {
  const seed = fromHex(TEST_KEY_SEED_HEX);
  const codes = [1, 2, 3, 4].map((i) => {
    const zones = composeZones(i === 1 ? 0 : 10, makeRng(utf8Encode(`crafted:${i}`)));
    return encodeTicket(
      { emission: 1, block: 9, number: i, keyId: TEST_KEY_ID },
      zones,
      seed,
      (m, sd) => torsionSign(m, sd, TORSION[i]).sig,
    );
  });
  for (const code of codes) {
    const device = checkCode(code, { keys: testKeyRing(), verify: deviceVerify });
    assert.not.equal(device.reason, 'E_SIGNATURE', 'the device accepts the torsion-R signature');
    const node = checkCode(code, { keys: testKeyRing(), verify: nodeVerify });
    assert.is(node.reason, 'E_SIGNATURE', 'node:crypto alone would call it forged');
  }
  const r = await saphirIn(['check', '--json', ...codes]);
  const verdicts = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.is(verdicts.length, 4, r.stderr);
  codes.forEach((code, i) => {
    const device = checkCode(code, { keys: testKeyRing(), verify: deviceVerify });
    assert.is(verdicts[i].status, device.status, `check: ticket ${i}`);
    assert.is(verdicts[i].reason ?? null, device.reason ?? null);
  });
  const a = await saphirIn(['audit', '--json', '-'], codes.join('\n') + '\n');
  const rep = JSON.parse(a.stdout);
  assert.is(rep.genuine, 4, a.stdout);
});

test('non-canonical encodings of points on the curve (y = p + 3 … p + 18) are refused as keys, with either sign bit', () => {
  // y = 2 is off the curve: it tests nothing about canonical encodings. These are real points (not
  // small-order) whose y read modulo p decodes; only the canonical check refuses them.
  const P = 2n ** 255n - 19n;
  const good = testKeyRing().get(TEST_KEY_ID)!;
  const sig = new Uint8Array(64);
  let points = 0;
  for (let y = 3n; y <= 18n; y++) {
    let onCurve = false;
    try {
      onCurve = !Point.fromBytes(le(y), false).isSmallOrder();
    } catch {
      /* not a point */
    }
    if (!onCurve) continue;
    points++;
    for (const sign of [0, 0x80]) {
      const enc = le(P + y);
      enc[31] |= sign;
      assert.ok(Point.fromBytes(enc, true), `y = p + ${y} decodes when non-canonical encodings are allowed`);
      assert.is(publicKeyProblem(enc), 'not a canonical curve point', `y = p + ${y}, sign ${sign}`);
      assert.not.ok(hostVerify(sig, utf8Encode('m'), enc));
      assert.not.ok(deviceVerify(sig, utf8Encode('m'), enc));
    }
  }
  assert.is(points, 10, 'y = 3, 4, 5, 6, 9, 10, 14, 15, 16, 18');
  assert.is(publicKeyProblem(good), null);
});

test.run();
