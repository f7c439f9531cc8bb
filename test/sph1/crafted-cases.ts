// The crafted Ed25519 edge cases of issue 9 (torsion components in R and in A, small-order keys, S ≥ L,
// non-canonical encodings, a key off the curve), for crafted.test.ts and the engine comparison
// (test/explore/xs-engine.test.ts).
import { Point, utils } from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { TEST_KEY_SEED_HEX } from '../../src/sph1/keys.ts';
import { fromHex } from '../../src/hex.ts';
import { utf8Encode } from '../../src/utf8.ts';
// noble's hash set up (getExtendedPublicKey needs it)
import '../../src/crypto/ed25519.ts';

export const L = 2n ** 252n + 27742317777372353535851937790883648493n;
export const le = (n: bigint, len = 32) => {
  const b = new Uint8Array(len);
  for (let i = 0; i < len; i++, n >>= 8n) b[i] = Number(n & 255n);
  return b;
};
const num = (b: Uint8Array) => {
  let n = 0n;
  for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i]);
  return n;
};
export const cat = (...a: Uint8Array[]) => {
  const o = new Uint8Array(a.reduce((n, x) => n + x.length, 0));
  let at = 0;
  for (const x of a) o.set(x, (at += x.length) - x.length);
  return o;
};
const H = (...a: Uint8Array[]) => num(sha512(cat(...a))) % L;

// The 8 points of small order: multiples of a point of order 8.
const T8 = Point.fromBytes(fromHex('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a'), false);
export const TORSION: Point[] = [Point.ZERO];
for (let i = 1; i < 8; i++) TORSION.push(TORSION[i - 1].add(T8));

/** A signature of `msg` by `seed` whose R carries the torsion point `t` (and whose key may carry `ta`). */
export function torsionSign(msg: Uint8Array, seed: Uint8Array, t: Point, ta: Point = Point.ZERO) {
  const { scalar, point } = utils.getExtendedPublicKey(seed);
  const A = point.add(ta).toBytes();
  const r = H(utf8Encode('nonce'), seed, msg) || 1n;
  const R = Point.BASE.multiply(r).add(t).toBytes();
  const s = (r + H(R, A, msg) * scalar) % L;
  return { sig: cat(R, le(s)), pub: A };
}

export interface Case {
  name: string;
  sig: Uint8Array;
  msg: Uint8Array;
  pub: Uint8Array;
}

export function crafted(): Case[] {
  const seed = fromHex(TEST_KEY_SEED_HEX);
  const msg = utf8Encode('SPH1 crafted');
  const out: Case[] = [];
  const good = torsionSign(msg, seed, Point.ZERO);
  out.push({ name: 'valid', ...good, msg });
  TORSION.forEach((t, i) => {
    // Torsion component in R (cofactored equation holds, cofactorless does not).
    out.push({ name: `torsion R ${i}`, ...torsionSign(msg, seed, t), msg });
    // Mixed-order public key A + T.
    out.push({ name: `torsion A ${i}`, ...torsionSign(msg, seed, Point.ZERO, t), msg });
    // Small-order public key, R small order, S = 0: [0]B = R + [k]A holds for some pairs.
    TORSION.forEach((r, j) =>
      out.push({ name: `small-order A ${i}, R ${j}, S 0`, sig: cat(r.toBytes(), le(0n)), msg, pub: t.toBytes() }),
    );
  });
  // S ≥ L: the same signature with S + L (and with S + 8L).
  const s = num(good.sig.subarray(32));
  out.push({ name: 'S + L', sig: cat(good.sig.subarray(0, 32), le(s + L)), msg, pub: good.pub });
  out.push({ name: 'S + 8L', sig: cat(good.sig.subarray(0, 32), le(s + 8n * L)), msg, pub: good.pub });
  out.push({
    name: 'S = 2^256 - 1',
    sig: cat(good.sig.subarray(0, 32), new Uint8Array(32).fill(255)),
    msg,
    pub: good.pub,
  });
  // Non-canonical encodings: y + p for y = 0 and y = 1 (points of order 4 and 1), and the "negative
  // zero" sign bit on the points with x = 0 (y = 1, y = -1).
  const P = 2n ** 255n - 19n;
  const signed = (y: bigint) => {
    const b = le(y);
    b[31] |= 0x80;
    return b;
  };
  const nonCanonical = [le(P), le(P + 1n), signed(1n), signed(P - 1n)];
  for (const [k, enc] of nonCanonical.entries()) {
    out.push({ name: `non-canonical A ${k}, R identity, S 0`, sig: cat(Point.ZERO.toBytes(), le(0n)), msg, pub: enc });
    out.push({ name: `non-canonical R ${k}, small-order A`, sig: cat(enc, le(0n)), msg, pub: Point.ZERO.toBytes() });
    out.push({ name: `non-canonical R ${k}, test key`, sig: cat(enc, good.sig.subarray(32)), msg, pub: good.pub });
  }
  // Not a point at all.
  out.push({ name: 'A off the curve', sig: good.sig, msg, pub: fromHex('02' + '00'.repeat(31)) });
  return out;
}
