// Ed25519 verification for the device: the same checks as src/crypto/ed25519.ts's nobleVerify (RFC 8032
// strict, noble's zip215=false: canonical R and A, S < L, small-order A refused, cofactored equation),
// computed differently for a JIT-less engine: [s]B − [k]A by the comb method with 5 teeth, jointly
// for both bases (51 doublings and ≤ 104 additions instead of 253 doublings), from 32-point tables: one
// for B, from its five teeth fixed in the code (B_TEETH), and one for −A per trusted public key, built
// at boot and kept (the device trusts a handful of keys). The tables hold affine points as
// (y + x, y − x, 2d·x·y), so an addition costs 7 multiplications, not 9; the curve arithmetic is plain
// BigInt on arrays (no point objects, no range checks), reduced only after products. 5 teeth, not 7 or 6:
// a quarter of the tables (7 → 6: −13 KiB of heap with one key, 6 → 5: −6.5 KiB, #34) for 15 more doublings
// and ≤ 30 more additions than 7. Noble's own verify keeps a
// 4 224-point table of B (~1 MiB of heap in QuickJS) and doubles 253 times per signature.
// Agreement with nobleVerify is tested in test/firmware/verify.test.ts.
import { sha512 } from './sha512.ts';
import { toHex } from '../src/hex.ts';
import { equalBytes } from '../src/bytes.ts';

const P = 2n ** 255n - 19n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const TEETH = 5;
const SPAN = 52; // TEETH × SPAN ≥ 256 bits

function numberLE(b: Uint8Array): bigint {
  let h = '0x';
  for (let i = b.length - 1; i >= 0; i--) h += (b[i] < 16 ? '0' : '') + b[i].toString(16);
  return BigInt(h);
}

/** x mod p in (−p, p): signs are settled (`norm`) only where a value is compared or encoded. */
const m = (x: bigint) => x % P;
const norm = (x: bigint) => ((x %= P) < 0n ? x + P : x);

/** 1/x mod p (extended Euclid: in QuickJS a third of Fermat's 265 multiplications). */
function inv(x: bigint): bigint {
  let a = norm(x),
    b = P,
    u = 1n,
    v = 0n;
  while (a) {
    const q = b / a,
      t = b - q * a,
      w = v - q * u;
    b = a;
    a = t;
    v = u;
    u = w;
  }
  return norm(v);
}

const sq = (x: bigint, n: number) => {
  while (n--) x = m(x * x);
  return x;
};

/** x^(2^252 − 3), the square root's exponent (p − 5) / 8. */
function pow2523(x: bigint): bigint {
  const b2 = m(m(x * x) * x);
  const b4 = m(sq(b2, 2) * b2);
  const b5 = m(sq(b4, 1) * x);
  const b10 = m(sq(b5, 5) * b5);
  const b20 = m(sq(b10, 10) * b10);
  const b50 = m(sq(m(sq(b20, 20) * b20), 10) * b10);
  const b100 = m(sq(b50, 50) * b50);
  return m(sq(m(sq(m(sq(b100, 100) * b100), 50) * b50), 2) * x);
}

const D = m(-121665n * inv(121666n));
const D2 = m(2n * D);
const RM1 = 0x2b8324804fc1df0b2b4d00993dfbd7a72f431806ad2fe478c4ee1b274a0ea0b0n; // √−1

/** A point in extended coordinates [X, Y, Z, T], x = X/Z, y = Y/Z, T = XY/Z. */
export type Pt = bigint[];
const ZERO: Pt = [0n, 1n, 1n, 0n];
const is0 = (p: Pt) => !norm(p[0]) && !norm(p[1] - p[2]);
const neg = (p: Pt): Pt => [-p[0], p[1], p[2], -p[3]];
const out = (e: bigint, f: bigint, g: bigint, h: bigint): Pt => [m(e * f), m(g * h), m(f * g), m(e * h)];

/** p + q, complete (add-2008-hwcd-3, a = −1). */
function add(p: Pt, q: Pt): Pt {
  const a = m((p[1] - p[0]) * (q[1] - q[0])),
    b = m((p[1] + p[0]) * (q[1] + q[0])),
    c = m(m(p[3] * D2) * q[3]),
    d = m(2n * p[2] * q[2]);
  return out(b - a, d - c, d + c, b + a);
}

/** p + n, n affine as (y + x, y − x, 2d·x·y): 7 multiplications. */
function madd(p: Pt, n: bigint[]): Pt {
  const a = m((p[1] - p[0]) * n[1]),
    b = m((p[1] + p[0]) * n[0]),
    c = m(p[3] * n[2]),
    d = 2n * p[2];
  return out(b - a, d - c, d + c, b + a);
}

/** 2p (dbl-2008-hwcd, a = −1). */
function dbl(p: Pt): Pt {
  const a = m(p[0] * p[0]),
    b = m(p[1] * p[1]),
    c = m(2n * p[2] * p[2]),
    s = p[0] + p[1],
    g = b - a;
  return out(m(s * s) - a - b, g - c, g, -a - b);
}

/** RFC 8032 §5.1.3, strict (y < p; x = 0 with the sign bit set refused); null if not a point. */
export function decode(bytes: Uint8Array): Pt | null {
  const c = bytes.slice();
  c[31] &= 0x7f;
  const y = numberLE(c);
  if (y >= P) return null;
  const y2 = m(y * y),
    u = y2 - 1n,
    v = m(D * y2) + 1n,
    v3 = m(m(v * v) * v);
  let x = m(m(u * v3) * pow2523(m(m(u * v3) * m(v3 * v))));
  const vx2 = norm(m(x * x) * v);
  if (vx2 === norm(-u)) x = m(x * RM1);
  else if (vx2 !== norm(u)) return null;
  x = norm(x);
  const odd = bytes[31] >> 7;
  if (!x && odd) return null;
  if (Number(x & 1n) !== odd) x = P - x;
  return [x, y, 1n, m(x * y)];
}

/** [2^(SPAN·i)]P for i < TEETH. */
export function teethOf(p: Pt): Pt[] {
  const teeth = [p];
  for (let i = 1; i < TEETH; i++) {
    let q = teeth[i - 1];
    for (let j = 0; j < SPAN; j++) q = dbl(q);
    teeth.push(q);
  }
  return teeth;
}

/**
 * B's teeth after B itself, as affine (x, y): fixed, so a boot skips their 208 doublings. A wrong one
 * fails the boot self-test; test/firmware/verify.test.ts recomputes them.
 */
const B_TEETH = [
  [
    0x6b2bd5d00fab38ceca21a27d6aaec82626b14b555d859527718f8ca404eba4n,
    0x727340c27a15f6ab3d80547f0827c56ab1ba33bc30d1ef3909ea9a3af10c67e5n,
  ],
  [
    0x1924416956ea2c1269062588569b18178011ea7cba1a3266284f48aa01d5a90fn,
    0xc8e28127b7dcdd206fb6fee96eb88cfc7db7319826ac8cdb8b1fb8adaf021den,
  ],
  [
    0x31a75b21cb532622a7caf9e29e652ac4e47b1450edf6655acaf3797b55a7ca46n,
    0x77006e7cf104982f8865081a2ff8a6911546755e31c3586353b0bd0826c5d790n,
  ],
  [
    0x3328bc121616a9477165ed282053d203c24f4826076c638a2c6723d42c9bfadbn,
    0x2bbf3f26c21b5cb273e5f4f0114c6718c5eb7291939b7697c74333cdfafac039n,
  ],
];

export function baseTeeth(): Pt[] {
  // B is the point of y = 4/5 with x even.
  const B = decode(bytesLE(m(4n * inv(5n))))!;
  return [B, ...B_TEETH.map(([x, y]) => [x, y, 1n, m(x * y)])];
}

/** T[m] = Σ over the bits i of m of teeth[i], affine as madd takes it (one inversion for all). */
function combTable(teeth: Pt[]): bigint[][] {
  const T = [ZERO];
  for (let i = 1; i < 1 << TEETH; i++) {
    let low = 0;
    while (!((i >> low) & 1)) low++;
    T.push(add(T[i & (i - 1)], teeth[low]));
  }
  // Montgomery's trick: z[i] = Z0·…·Z(i−1), then 1/Zi = z[i] / (Z0·…·Zi).
  const z: bigint[] = [];
  let acc = 1n;
  for (const p of T) {
    z.push(acc);
    acc = m(acc * p[2]);
  }
  let zi = inv(acc);
  const N: bigint[][] = [];
  for (let i = T.length - 1; i >= 0; i--) {
    const p = T[i],
      w = m(zi * z[i]),
      x = m(p[0] * w),
      y = m(p[1] * w);
    zi = m(zi * p[2]);
    N[i] = [norm(y + x), norm(y - x), norm(m(x * y) * D2)];
  }
  return N;
}

/** x < 2^256 as 32 bytes, little-endian. */
function bytesLE(x: bigint): Uint8Array {
  const h = x.toString(16).padStart(64, '0');
  const b = new Uint8Array(32);
  for (let i = 0; i < 32; i++) b[i] = parseInt(h.substr(62 - 2 * i, 2), 16);
  return b;
}

/** Comb indexes of a 32-byte little-endian scalar: column j gathers bit j of each SPAN-bit chunk. */
function combIndexes(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(SPAN);
  for (let t = 0; t < TEETH; t++) {
    for (let j = 0; j < SPAN; j++) {
      const bit = t * SPAN + j;
      if (bit < 256 && (bytes[bit >> 3] >> (bit & 7)) & 1) out[j] |= 1 << t;
    }
  }
  return out;
}

let baseTable: bigint[][] | undefined;
interface KeyEntry {
  hex: string;
  /** Null when the key is not a valid, non-small-order point. */
  table: bigint[][] | null;
}
/**
 * The tables of the keys prepared at boot (the ticket keys, a check at every scan), kept. Any other key's
 * (the registry's answers, the operator's notices: a check now and then) is built for its check and
 * dropped: ~3.5 KiB of heap each (32 points; 7 with 6 teeth) that a fleet device kept for nothing (#34).
 */
const keyCache: KeyEntry[] = [];
const KEY_CACHE = 4;

function keyEntry(publicKey: Uint8Array, keep = false): KeyEntry {
  const hex = toHex(publicKey);
  for (const e of keyCache) if (e.hex === hex) return e;
  let table: bigint[][] | null = null;
  const A = decode(publicKey);
  if (A && !is0(dbl(dbl(dbl(A))))) table = combTable(teethOf(neg(A)));
  const e = { hex, table };
  if (!keep) return e;
  keyCache.unshift(e);
  if (keyCache.length > KEY_CACHE) keyCache.pop();
  return e;
}

/** Builds the tables ahead of the first scan (boot), for the trusted keys, and keeps them. */
export function prepareVerify(publicKeys: Iterable<Uint8Array>): void {
  if (typeof __HOST_ED25519__ === 'boolean' && __HOST_ED25519__) return;
  if (!baseTable) baseTable = combTable(baseTeeth());
  for (const k of publicKeys) if (k.length === 32) keyEntry(k, true);
}

/** How many keys' tables are kept (tests). */
export const keptKeyTables = (): number => keyCache.length;

/**
 * The last answers, by the exact bytes of signature, key and message: a ticket scanned again (to pay it
 * once its verdict timed out, say) costs no curve work. RAM only, a few hundred bytes: empty at each reset.
 */
const answers: { sig: Uint8Array; key: Uint8Array; msg: Uint8Array; ok: boolean }[] = [];
const ANSWERS = 4;
/** Signatures checked on the curve since start (tests tell a remembered answer from a computed one). */
export const verifyStats = { computed: 0 };

export function deviceVerify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    if (signature.length !== 64 || publicKey.length !== 32) return false;
    // SPH1 signs 58 bytes; a much longer message is checked and not kept.
    if (message.length > 128) return verifyOnCurve(signature, message, publicKey);
    for (let i = 0; i < answers.length; i++) {
      const a = answers[i];
      if (!equalBytes(a.sig, signature) || !equalBytes(a.key, publicKey) || !equalBytes(a.msg, message)) continue;
      answers.splice(i, 1);
      answers.unshift(a);
      return a.ok;
    }
    const ok = verifyOnCurve(signature, message, publicKey);
    answers.unshift({ sig: signature.slice(), key: publicKey.slice(), msg: message.slice(), ok });
    if (answers.length > ANSWERS) answers.pop();
    return ok;
  } catch {
    return false;
  }
}

function verifyOnCurve(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  verifyStats.computed++;
  // The fault explorer's v8 runs (docs/explorer.md): the host answers with the same rules, and the
  // curve work is left to its QuickJS runs. Every other build defines this false and drops the line.
  if (typeof __HOST_ED25519__ === 'boolean' && __HOST_ED25519__)
    return (globalThis as unknown as { __hostEd25519: typeof verifyOnCurve }).__hostEd25519(
      signature,
      message,
      publicKey,
    );
  try {
    const TA = keyEntry(publicKey).table;
    if (!TA) return false;
    const r = signature.subarray(0, 32);
    const sBytes = signature.subarray(32, 64);
    if (numberLE(sBytes) >= L) return false;
    const hashed = new Uint8Array(64 + message.length);
    hashed.set(r, 0);
    hashed.set(publicKey, 32);
    hashed.set(message, 64);
    const k = numberLE(sha512(hashed)) % L;
    const TB = baseTable || (baseTable = combTable(baseTeeth()));
    const cs = combIndexes(sBytes);
    const ck = combIndexes(bytesLE(k));
    let Q = ZERO;
    for (let j = SPAN - 1; j >= 0; j--) {
      if (j < SPAN - 1) Q = dbl(Q);
      if (cs[j]) Q = madd(Q, TB[cs[j]]);
      if (ck[j]) Q = madd(Q, TA[ck[j]]);
    }
    // Fast path: Q encodes to r, so r is canonical and decodes to Q, and [8](Q − R) = 0 holds (one
    // inversion, cheaper than decoding R). Otherwise R is decoded (strict) and the cofactored equation
    // decides, with three doublings.
    const zi = inv(Q[2]);
    if (equalBytes(bytesLE(norm(Q[1] * zi) | ((norm(Q[0] * zi) & 1n) << 255n)), r)) return true;
    const R = decode(r);
    return !!R && is0(dbl(dbl(dbl(add(Q, neg(R))))));
  } catch {
    return false;
  }
}
