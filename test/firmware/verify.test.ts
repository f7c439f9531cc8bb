// The device's Ed25519 verifier and SHA-512 agree with noble on the spec vectors and on mutations.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { sha512 as nobleSha512 } from '@noble/hashes/sha2.js';
import { deviceVerify } from '../../firmware/verify.ts';
import { sha512 } from '../../firmware/sha512.ts';
import { nobleVerify, nobleSign, publicKeyOf } from '../../src/crypto/ed25519.ts';
import { base45Decode } from '../../src/sph1/base45.ts';
import { signedMessage, BODY_LENGTH } from '../../src/sph1/body.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { loadVectors } from '../helpers.ts';

test('sha512 matches @noble/hashes at every length around the block boundaries', () => {
  for (let n = 0; n <= 300; n++) {
    const m = Uint8Array.from({ length: n }, (_, i) => (i * 151 + n) & 255);
    assert.is(toHex(sha512(m)), toHex(nobleSha512(m)), `length ${n}`);
  }
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 1000 }), (m) => toHex(sha512(m)) === toHex(nobleSha512(m))),
    { numRuns: 200 },
  );
});

test('deviceVerify agrees with nobleVerify on every SPH1 vector', () => {
  const { test_public_key_hex, vectors } = loadVectors();
  const pub = fromHex(test_public_key_hex);
  let checked = 0;
  for (const v of vectors) {
    if (!v.code.startsWith('SPH1:')) continue;
    const bytes = base45Decode(v.code, 5);
    if (!bytes || bytes.length !== 106) continue;
    const body = bytes.subarray(0, BODY_LENGTH);
    const sig = bytes.subarray(BODY_LENGTH);
    assert.is(deviceVerify(sig, signedMessage(body), pub), nobleVerify(sig, signedMessage(body), pub), v.name);
    checked++;
  }
  assert.ok(checked > 60);
});

test('deviceVerify agrees with nobleVerify on random keys, messages and bit flips', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.uint8Array({ maxLength: 80 }),
      fc.nat(),
      fc.integer({ min: 0, max: 3 }),
      (seed, msg, bit, where) => {
        const pub = publicKeyOf(seed);
        const sig = nobleSign(msg, seed);
        if (!deviceVerify(sig, msg, pub)) return false;
        const s = sig.slice(),
          p = pub.slice(),
          m = msg.slice();
        if (where === 0) s[bit % 64] ^= 1 << (bit % 8);
        else if (where === 1) p[bit % 32] ^= 1 << (bit % 8);
        else if (where === 2 && m.length) m[bit % m.length] ^= 1 << (bit % 8);
        return deviceVerify(s, m, p) === nobleVerify(s, m, p);
      },
    ),
    { numRuns: 150 },
  );
});

test('deviceVerify agrees with nobleVerify on arbitrary bytes as key or R, and on edge encodings', () => {
  const seed = new Uint8Array(32).fill(3);
  const pub = publicKeyOf(seed);
  const msg = new Uint8Array([9, 8, 7]);
  const sig = nobleSign(msg, seed);
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.boolean(), (bytes, asKey) => {
      const s = sig.slice();
      let p = pub;
      if (asKey) p = bytes;
      else s.set(bytes, 0);
      return deviceVerify(s, msg, p) === nobleVerify(s, msg, p);
    }),
    { numRuns: 300 },
  );
  // y = p + i (non-canonical), y = 1 / p − 1 with and without the sign bit, all-zero, all-ones.
  const P = 2n ** 255n - 19n;
  const enc = (y: bigint, signBit: boolean) => {
    const b = new Uint8Array(32);
    for (let i = 0; i < 32; i++, y >>= 8n) b[i] = Number(y & 255n);
    if (signBit) b[31] |= 0x80;
    return b;
  };
  const edge: Uint8Array[] = [];
  for (const y of [0n, 1n, 2n, P - 1n, P, P + 1n, P + 18n, 2n ** 255n - 1n])
    for (const sb of [false, true]) edge.push(enc(y, sb));
  for (const e of edge) {
    assert.is(deviceVerify(sig, msg, e), nobleVerify(sig, msg, e), `key ${toHex(e)}`);
    const s = sig.slice();
    s.set(e, 0);
    assert.is(deviceVerify(s, msg, pub), nobleVerify(s, msg, pub), `R ${toHex(e)}`);
  }
});

test('deviceVerify refuses S ≥ L, a small-order key, non-canonical R, wrong lengths', () => {
  const seed = fromHex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
  const pub = publicKeyOf(seed);
  const msg = new Uint8Array([1, 2, 3]);
  const sig = nobleSign(msg, seed);
  // S + L is the same scalar mod L but not canonical.
  const L = 2n ** 252n + 27742317777372353535851937790883648493n;
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(sig[i]);
  s += L;
  const big = sig.slice();
  for (let i = 32; i < 64; i++, s >>= 8n) big[i] = Number(s & 255n);
  assert.is(deviceVerify(big, msg, pub), false);
  assert.is(nobleVerify(big, msg, pub), false);
  const identity = new Uint8Array(32);
  identity[0] = 1; // the neutral point: small order
  assert.is(deviceVerify(sig, msg, identity), false);
  const badR = sig.slice();
  badR.fill(0xff, 0, 32);
  badR[31] = 0x7f; // y = 2^255 − 1 ≥ p: non-canonical
  assert.is(deviceVerify(badR, msg, pub), nobleVerify(badR, msg, pub));
  assert.is(deviceVerify(sig.subarray(0, 63), msg, pub), false);
  assert.is(deviceVerify(sig, msg, pub.subarray(0, 31)), false);
  assert.is(deviceVerify(sig, msg, pub), true);
});

test.run();
