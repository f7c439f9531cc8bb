// The device's Ed25519 verifier and SHA-512 agree with noble on the spec vectors and on mutations; the
// sharp cases (small-order keys with signatures valid for them, R with a torsion component, S + L, the
// neutral R with the sign bit) tell the strict cofactored verifier from its plausible mistakes, and a
// mutation check proves it: each mutant of firmware/verify.ts fails at least one of them. Its own point
// arithmetic is checked against noble's (B's teeth, strict decoding of every edge encoding).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { sha512 as nobleSha512 } from '@noble/hashes/sha2.js';
import {
  baseTeeth,
  decode,
  deviceVerify,
  keptKeyTables,
  prepareVerify,
  teethOf,
  verifyStats,
} from '../../firmware/verify.ts';
import { sha512 } from '../../firmware/sha512.ts';
import { nobleVerify, nobleSign, publicKeyOf } from '../../src/crypto/ed25519.ts';
import { base45Decode } from '../../src/sph1/base45.ts';
import { signedMessage, BODY_LENGTH } from '../../src/sph1/body.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { LONG, loadVectors, signedThenFlipped } from '../helpers.ts';
import * as ed from '@noble/ed25519';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../tools/paths.ts';
import type { Verifier } from '../../src/crypto/ed25519.ts';
import { Point } from '@noble/ed25519';

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

test("B's fixed comb teeth are B doubled 52, 104, … 208 times, on the curve, by noble's arithmetic and the device's", () => {
  const fixed = baseTeeth();
  const mine = teethOf(fixed[0]);
  assert.is(fixed.length, 5);
  const P = 2n ** 255n - 19n;
  const mod = (x: bigint) => ((x % P) + P) % P;
  /** The device's extended point [X, Y, Z, T] as noble's (checked on the curve, T = XY/Z). */
  const noble = ([X, Y, Z, T]: bigint[]) => {
    assert.is(mod(X * Y - T * Z), 0n, 'T = XY/Z');
    const p = new Point(mod(X), mod(Y), mod(Z), mod(T));
    p.assertValidity();
    return p;
  };
  let q = Point.BASE;
  fixed.forEach((p, i) => {
    if (i > 0) for (let j = 0; j < 52; j++) q = q.double();
    assert.ok(noble(p).equals(q), `tooth ${i}`);
    assert.ok(noble(mine[i]).equals(q), `tooth ${i} doubled by the device`);
  });
});

test("the device's point decoding agrees with noble's strict one", () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (b) => {
      let want: Point | null;
      try {
        want = Point.fromBytes(b, false);
      } catch {
        want = null;
      }
      const got = decode(b);
      if (!want || !got) return !want && !got;
      return want.equals(new Point(got[0], got[1], got[2], got[3]));
    }),
    { numRuns: 400 },
  );
  // Non-canonical y (p … 2^255 − 1) and the small ys, with and without the sign bit.
  const P = 2n ** 255n - 19n;
  for (let y = 0n; y < 40n; y++)
    for (const v of [y, P + (y % 19n), 2n ** 255n - 1n])
      for (const sign of [0, 0x80]) {
        const b = new Uint8Array(32);
        for (let i = 0, w = v; i < 32; i++, w >>= 8n) b[i] = Number(w & 255n);
        b[31] |= sign;
        let want = true;
        try {
          Point.fromBytes(b, false);
        } catch {
          want = false;
        }
        assert.is(decode(b) !== null, want, `${v} ${sign}`);
      }
  for (const p of [Point.BASE, Point.BASE.multiply(12345n), Point.BASE.negate()]) {
    const got = decode(p.toBytes())!;
    assert.ok(p.equals(new Point(got[0], got[1], got[2], got[3])));
  }
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

/** Random cases of the two properties below: a third in npm test, all in the long tier (verify.long.ts). */
const RUNS = LONG ? 1 : 1 / 3;

test('deviceVerify agrees with nobleVerify on random keys, messages and bit flips', () => {
  fc.assert(
    fc.property(signedThenFlipped(nobleSign), ({ sig, msg, pub, s, m, p }) => {
      if (!deviceVerify(sig, msg, pub)) return false;
      return deviceVerify(s, m, p) === nobleVerify(s, m, p);
    }),
    { numRuns: 150 * RUNS },
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
    { numRuns: 300 * RUNS },
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

const Lorder = 2n ** 252n + 27742317777372353535851937790883648493n;
const leBytes = (x: bigint) => {
  const b = new Uint8Array(32);
  for (let i = 0; i < 32; i++, x >>= 8n) b[i] = Number(x & 255n);
  return b;
};
const leNumber = (b: Uint8Array) => b.reduceRight((acc, x) => (acc << 8n) | BigInt(x), 0n);
const challenge = (R: Uint8Array, A: Uint8Array, m: Uint8Array) =>
  leNumber(nobleSha512(new Uint8Array([...R, ...A, ...m]))) % Lorder;
/** The order-1 and order-8 points (canonical encodings), as keys they are refused whatever the signature. */
const SMALL_ORDER = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
];

/** Cases a strict cofactored verifier (nobleVerify with zip215 false) gets right and its near misses do not; the names of those `verify` gets wrong. */
function sharpCases(verify: Verifier): string[] {
  const wrong: string[] = [];
  const expect = (name: string, sig: Uint8Array, msg: Uint8Array, pub: Uint8Array, want: boolean) => {
    assert.is(nobleVerify(sig, msg, pub), want, `noble on ${name}`);
    if (verify(sig, msg, pub) !== want) wrong.push(name);
  };
  const msg = new Uint8Array([5, 4, 3, 2, 1]);
  // A small-order key A with a signature valid for it: R = [s]B, so [s]B − [k]A − R is a torsion point
  // (zero for the identity); only the small-order check refuses it.
  for (const hex of SMALL_ORDER) {
    const A = fromHex(hex);
    const s = 123456789n;
    const sig = new Uint8Array([...ed.Point.BASE.multiply(s).toBytes(), ...leBytes(s)]);
    expect(`small-order key ${hex.slice(0, 8)}`, sig, msg, A, false);
  }
  // R with a torsion component: R' = [r]B + T (T of order 8), S = r + k·a for k = H(R', A, M). The
  // cofactored equation holds ([8]T = 0), the cofactorless one does not: RFC 8032 strict (noble) accepts.
  const seed = fromHex('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb');
  const { scalar: a, pointBytes: A } = ed.utils.getExtendedPublicKey(seed);
  const T = ed.Point.fromBytes(fromHex(SMALL_ORDER[1]));
  for (const r of [7n, 99991n, 2n ** 200n + 3n]) {
    const R = ed.Point.BASE.multiply(r).add(T).toBytes();
    const S = (r + challenge(R, A, msg) * a) % Lorder;
    expect(`torsion R (r = ${r})`, new Uint8Array([...R, ...leBytes(S)]), msg, A, true);
  }
  // R the neutral point and S = k·a, so [S]B = R + [k]A: its canonical encoding (y = 1) is accepted; the
  // same y with the sign bit set (x = 0 and x odd: not canonical) is refused by strict decoding.
  for (const [name, sign, want] of [
    ['neutral R', 0, true],
    ['neutral R with the sign bit', 0x80, false],
  ] as const) {
    const R = new Uint8Array(32);
    R[0] = 1;
    R[31] = sign;
    expect(name, new Uint8Array([...R, ...leBytes((challenge(R, A, msg) * a) % Lorder)]), msg, A, want);
  }
  const good = nobleSign(msg, seed);
  expect('a valid signature', good, msg, A, true);
  const big = good.slice();
  big.set(leBytes(leNumber(good.subarray(32)) + Lorder), 32);
  expect('S + L', big, msg, A, false);
  const other = msg.slice();
  other[0] ^= 1;
  expect('another message', good, other, A, false);
  return wrong;
}

test('deviceVerify gets the sharp cases right: small-order keys with valid signatures, torsion R, S + L', () => {
  assert.equal(sharpCases(deviceVerify), []);
});

test('mutation check: each plausible mistake in firmware/verify.ts fails a sharp case', async () => {
  const source = readFileSync(join(ROOT, 'firmware', 'verify.ts'), 'utf8');
  const mutants: [string, string, string][] = [
    [
      'small-order key check deleted',
      'if (A && !is0(dbl(dbl(dbl(A))))) table = combTable(teethOf(neg(A)));',
      'if (A) table = combTable(teethOf(neg(A)));',
    ],
    [
      'cofactorless equation',
      'return !!R && is0(dbl(dbl(dbl(add(Q, neg(R))))));',
      'return !!R && is0(add(Q, neg(R)));',
    ],
    ['S < L check deleted', 'if (numberLE(sBytes) >= L) return false;', ''],
    ['x = 0 with the sign bit decoded', 'if (!x && odd) return null;', ''],
    [
      'the challenge hashes A before R',
      'hashed.set(r, 0);\n    hashed.set(publicKey, 32);',
      'hashed.set(publicKey, 0);\n    hashed.set(r, 32);',
    ],
  ];
  const dir = mkdtempSync(join(tmpdir(), 'saphir-verify-mutant-'));
  try {
    // The mutant lives outside the tree (nothing there goes stale); its imports point back into it.
    const base = source
      .replace("from './sha512.ts'", `from '${pathToFileURL(join(ROOT, 'firmware', 'sha512.ts')).href}'`)
      .replace("from '../src/hex.ts'", `from '${pathToFileURL(join(ROOT, 'src', 'hex.ts')).href}'`)
      .replace("from '../src/bytes.ts'", `from '${pathToFileURL(join(ROOT, 'src', 'bytes.ts')).href}'`);
    for (const [i, [name, from, to]] of mutants.entries()) {
      assert.ok(base.includes(from), `the mutation "${name}" no longer applies to firmware/verify.ts`);
      const file = join(dir, `verify-${i}.ts`);
      writeFileSync(file, base.replace(from, to));
      const mutant = ((await import(pathToFileURL(file).href)) as { deviceVerify: Verifier }).deviceVerify;
      assert.ok(sharpCases(mutant).length > 0, `mutant survived: ${name}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Signatures that only the cofactored equation accepts: R or A carries a small-order component, so
// [s]B − [k]A ≠ R but [8]([s]B − [k]A − R) = 0. Both verifiers must accept them (the device's fast path
// says no here, and its cofactored check decides).
test('deviceVerify accepts with noble the signatures only the cofactored equation accepts', () => {
  const L = 2n ** 252n + 27742317777372353535851937790883648493n;
  const le = (b: Uint8Array) => {
    let x = 0n;
    for (let i = b.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[i]);
    return x;
  };
  const bytes32 = (x: bigint) => {
    const b = new Uint8Array(32);
    for (let i = 0; i < 32; i++, x >>= 8n) b[i] = Number(x & 255n);
    return b;
  };
  /** The small-order part of an arbitrary curve point: [L]P. */
  const torsionOf = (y: Uint8Array): Point | null => {
    try {
      const P = Point.fromBytes(y, false);
      const T = P.multiply(L - 1n, false).add(P);
      return T.is0() ? null : T;
    } catch {
      return null;
    }
  };
  // A point of order 8 generates the whole small-order subgroup.
  let T8: Point | null = null;
  for (let y = 2n; !T8; y++) {
    const T = torsionOf(bytes32(y));
    if (T && !T.double().double().is0()) T8 = T;
  }
  const torsion = [T8];
  for (let j = 2; j < 8; j++) torsion.push(torsion[j - 2].add(T8));
  let checked = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 6 }),
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.nat(),
      fc.boolean(),
      fc.uint8Array({ maxLength: 40 }),
      (t, rSeed, aSeed, onKey, msg) => {
        const T = torsion[t];
        const a = (BigInt(aSeed) + 2n) % L;
        const r = (le(rSeed) % (L - 1n)) + 1n;
        const A = onKey ? Point.BASE.multiply(a).add(T) : Point.BASE.multiply(a);
        const R = onKey ? Point.BASE.multiply(r) : Point.BASE.multiply(r).add(T);
        const pub = A.toBytes();
        const rb = R.toBytes();
        const k = le(nobleSha512(Uint8Array.from([...rb, ...pub, ...msg]))) % L;
        const sig = Uint8Array.from([...rb, ...bytes32((r + k * a) % L)]);
        const noble = nobleVerify(sig, msg, pub);
        // With T on the key, [k]T vanishes when 8 divides k (or T's order): then the fast path accepts.
        if (!onKey) assert.ok(noble, 'noble accepts R with a torsion component');
        assert.is(deviceVerify(sig, msg, pub), noble);
        checked++;
        return true;
      },
    ),
    { numRuns: 60 },
  );
  assert.is(checked, 60);
});

test('deviceVerify remembers its last four answers by the exact bytes, and nothing else', () => {
  const seed = new Uint8Array(32).fill(9);
  const pub = publicKeyOf(seed);
  const other = publicKeyOf(new Uint8Array(32).fill(10));
  const msgs = Array.from({ length: 6 }, (_, i) => Uint8Array.from({ length: 58 }, (_, j) => (i * 37 + j) & 255));
  const sigs = msgs.map((m) => nobleSign(m, seed));
  const computed = () => verifyStats.computed;
  let n = computed();
  assert.ok(deviceVerify(sigs[0], msgs[0], pub));
  assert.is(computed(), n + 1);
  // The same ticket again: the answer is remembered, no curve work.
  assert.ok(deviceVerify(sigs[0], msgs[0], pub));
  assert.is(computed(), n + 1, 'a second scan of the same code is not checked again');
  // Any other byte is another question, checked on the curve (and refused).
  const flipped = sigs[0].slice();
  flipped[40] ^= 1;
  const msg1 = msgs[0].slice();
  msg1[57] ^= 0x80;
  n = computed();
  assert.not.ok(deviceVerify(flipped, msgs[0], pub), 'a flipped signature bit');
  assert.not.ok(deviceVerify(sigs[0], msg1, pub), 'a flipped message bit');
  assert.not.ok(deviceVerify(sigs[0], msgs[0], other), 'another key');
  assert.not.ok(deviceVerify(sigs[1], msgs[0], pub), "another message's signature");
  assert.is(computed(), n + 4);
  // A refusal is remembered as a refusal.
  assert.not.ok(deviceVerify(flipped, msgs[0], pub));
  assert.is(computed(), n + 4);
  // Four answers are kept: a fifth question pushes out the oldest.
  for (let i = 1; i < 6; i++) assert.ok(deviceVerify(sigs[i], msgs[i], pub));
  n = computed();
  assert.ok(deviceVerify(sigs[5], msgs[5], pub));
  assert.ok(deviceVerify(sigs[2], msgs[2], pub));
  assert.is(computed(), n, 'the last four are remembered');
  assert.ok(deviceVerify(sigs[1], msgs[1], pub));
  assert.is(computed(), n + 1, 'the fifth-last is checked again');
  // The answers keep copies: bytes changed in place after a check are a new question.
  const inPlace = msgs[3].slice();
  const inPlaceSig = nobleSign(inPlace, seed);
  assert.ok(deviceVerify(inPlaceSig, inPlace, pub));
  inPlace[0] ^= 1;
  assert.not.ok(deviceVerify(inPlaceSig, inPlace, pub), 'a message changed in place after its check');
  // A long message is checked every time (and not kept).
  const long = new Uint8Array(200).fill(3);
  const longSig = nobleSign(long, seed);
  n = computed();
  assert.ok(deviceVerify(longSig, long, pub));
  assert.ok(deviceVerify(longSig, long, pub));
  assert.is(computed(), n + 2);
});

test("only the keys prepared at boot keep their table: another key's checks are as right, and leave none", () => {
  const ticketSeed = new Uint8Array(32).fill(21);
  const ticketKey = publicKeyOf(ticketSeed);
  const kept = keptKeyTables();
  prepareVerify([ticketKey]);
  assert.is(keptKeyTables(), kept + 1, 'a ticket key prepared at boot keeps its table');
  prepareVerify([ticketKey]);
  assert.is(keptKeyTables(), kept + 1, 'once');
  // A registry's answers, an operator's notice: longer than a ticket's 58 bytes, checked each time.
  const seed = new Uint8Array(32).fill(22);
  const key = publicKeyOf(seed);
  const m = new Uint8Array(300).fill(5);
  const sig = nobleSign(m, seed);
  const bad = sig.slice();
  bad[3] ^= 1;
  for (let i = 0; i < 3; i++) {
    assert.ok(deviceVerify(sig, m, key));
    assert.not.ok(deviceVerify(bad, m, key));
    assert.not.ok(deviceVerify(sig, m, ticketKey));
  }
  assert.is(keptKeyTables(), kept + 1, "another key's table is not kept");
  const t = new Uint8Array(58).fill(6);
  assert.ok(deviceVerify(nobleSign(t, ticketSeed), t, ticketKey));
});

test.run();
