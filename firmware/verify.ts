// Ed25519 verification for the device, self-contained (BigInt field arithmetic, no @noble/ed25519 in
// the bundle). Same acceptance as src/crypto/ed25519.ts's nobleVerify — RFC 8032 strict, noble's
// zip215=false: canonical R and A (y < p, no x = 0 with the sign bit), S < L, small-order A refused,
// cofactored equation [8]([S]B − [k]A − R) = 0 — tested against it in test/firmware/verify.test.ts.
//
// Computed for a JIT-less engine, where a field multiplication is the unit of cost: [S]B − [k]A by
// the comb method, jointly for both bases (43 doublings instead of 253), adding precomputed points in
// affine "Niels" form (7 multiplications an addition instead of 10). B has an 8-teeth table (255
// points), each trusted key a 6-teeth one (63 points), built once at boot and kept.
import { sha512 } from './sha512.ts';

const P = 2n ** 255n - 19n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
/** d = −121665/121666 mod p; checked in the tests. */
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
const D2 = (2n * D) % P;
/** √−1 mod p. */
const RM1 = 19681161376707505956807079304988542015446066515923890162744021073123829784752n;
/** The base point's y = 4/5 mod p (its x is even). */
const BASE_Y = 46316835694926478169428394003475163141307993866256225615783033603165251855960n;

const mod = (a: bigint) => {
  const r = a % P;
  return r < 0n ? r + P : r;
};

function sq(x: bigint, k: number): bigint {
  while (k-- > 0) x = (x * x) % P;
  return x;
}

/** x^(2^250 − 1) and x^3, the common part of the two exponentiations below (noble's chain). */
function pow250(x: bigint): [bigint, bigint] {
  const x3 = (((x * x) % P) * x) % P;
  const b4 = (sq(x3, 2) * x3) % P;
  const b5 = (sq(b4, 1) * x) % P;
  const b10 = (sq(b5, 5) * b5) % P;
  const b20 = (sq(b10, 10) * b10) % P;
  const b40 = (sq(b20, 20) * b20) % P;
  const b80 = (sq(b40, 40) * b40) % P;
  const b160 = (sq(b80, 80) * b80) % P;
  const b240 = (sq(b160, 80) * b80) % P;
  return [(sq(b240, 10) * b10) % P, x3];
}

/** x^(p − 2) = x^(2^255 − 21): the inverse. */
function invert(x: bigint): bigint {
  const [b250, x3] = pow250(x);
  return (sq(b250, 5) * ((sq(x, 3) * x3) % P)) % P;
}

/** Extended coordinates (X : Y : Z : T), x = X/Z, y = Y/Z, xy = T/Z. */
type Ext = [bigint, bigint, bigint, bigint];
const ZERO: Ext = [0n, 1n, 1n, 0n];

/** Strict decoding (RFC 8032 5.1.3 with y < p): the point, or null. */
function decode(b: Uint8Array): Ext | null {
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? b[i] & 0x7f : b[i]);
  const sign = b[31] >> 7;
  if (y >= P) return null;
  const y2 = (y * y) % P;
  const u = mod(y2 - 1n);
  const v = (D * y2 + 1n) % P;
  const v3 = (((v * v) % P) * v) % P;
  const v7 = (((v3 * v3) % P) * v) % P;
  const [b250] = pow250((u * v7) % P);
  let x = (((u * v3) % P) * ((sq(b250, 2) * ((u * v7) % P)) % P)) % P;
  const vx2 = (v * ((x * x) % P)) % P;
  if (vx2 === mod(-u)) x = (x * RM1) % P;
  else if (vx2 !== u) return null;
  if (x === 0n && sign) return null;
  if (Number(x & 1n) !== sign) x = mod(-x);
  return [x, y, 1n, (x * y) % P];
}

function double(p: Ext): Ext {
  const [X, Y, Z] = p;
  const A = (X * X) % P;
  const B = (Y * Y) % P;
  const C = (2n * ((Z * Z) % P)) % P;
  const xy = (X + Y) % P;
  const E = mod((xy * xy) % P - A - B);
  const G = B - A; // a = −1: D = −A, G = D + B
  const F = mod(G - C);
  const H = mod(-A - B);
  const Gm = mod(G);
  return [(E * F) % P, (Gm * H) % P, (F * Gm) % P, (E * H) % P];
}

/** p + q, both extended (add-2008-hwcd-3, complete on edwards25519). */
function add(p: Ext, q: Ext): Ext {
  const A = (mod(p[1] - p[0]) * mod(q[1] - q[0])) % P;
  const B = ((p[1] + p[0]) * (q[1] + q[0])) % P;
  const C = (((p[3] * D2) % P) * q[3]) % P;
  const Dd = (2n * p[2] * q[2]) % P;
  const E = mod(B - A);
  const F = mod(Dd - C);
  const G = (Dd + C) % P;
  const H = (B + A) % P;
  return [(E * F) % P, (G * H) % P, (F * G) % P, (E * H) % P];
}

/** p + the affine point stored at t[i..i+2] as (y + x, y − x, 2d·x·y): 7 multiplications. */
function addNiels(p: Ext, t: bigint[], i: number): Ext {
  const A = (mod(p[1] - p[0]) * t[i + 1]) % P;
  const B = ((p[1] + p[0]) * t[i]) % P;
  const C = (p[3] * t[i + 2]) % P;
  const Dd = (2n * p[2]) % P;
  const E = mod(B - A);
  const F = mod(Dd - C);
  const G = (Dd + C) % P;
  const H = (B + A) % P;
  return [(E * F) % P, (G * H) % P, (F * G) % P, (E * H) % P];
}

const isZero = (p: Ext) => p[0] === 0n && p[1] === p[2];
const times8 = (p: Ext) => double(double(double(p)));

interface Comb {
  teeth: number;
  span: number;
  /** Entry m (1 … 2^teeth − 1) at 3(m − 1): Σ over the bits i of m of [2^(span·i)]P, in Niels form. */
  t: bigint[];
}

function combTable(p: Ext, teeth: number): Comb {
  const span = Math.ceil(256 / teeth);
  const tooth: Ext[] = [p];
  for (let i = 1; i < teeth; i++) {
    let q = tooth[i - 1];
    for (let j = 0; j < span; j++) q = double(q);
    tooth.push(q);
  }
  const n = (1 << teeth) - 1;
  const pts: Ext[] = [ZERO];
  for (let m = 1; m <= n; m++) {
    let low = 0;
    while (!((m >> low) & 1)) low++;
    const rest = m & (m - 1);
    pts.push(rest ? add(pts[rest], tooth[low]) : tooth[low]);
  }
  // To affine with one inversion (Montgomery's trick).
  const prefix: bigint[] = [1n];
  for (let m = 1; m <= n; m++) prefix.push((prefix[m - 1] * pts[m][2]) % P);
  let inv = invert(prefix[n]);
  const t: bigint[] = new Array(3 * n);
  for (let m = n; m >= 1; m--) {
    const zi = (inv * prefix[m - 1]) % P;
    inv = (inv * pts[m][2]) % P;
    const x = (pts[m][0] * zi) % P;
    const y = (pts[m][1] * zi) % P;
    t[3 * (m - 1)] = (y + x) % P;
    t[3 * (m - 1) + 1] = mod(y - x);
    t[3 * (m - 1) + 2] = (((D2 * x) % P) * y) % P;
  }
  return { teeth, span, t };
}

/** Column j of the comb: bit j of each span-bit chunk of the 32-byte little-endian scalar. */
function column(bytes: Uint8Array, c: Comb, j: number): number {
  let m = 0;
  for (let i = 0; i < c.teeth; i++) {
    const bit = i * c.span + j;
    if (bit < 256 && (bytes[bit >> 3] >> (bit & 7)) & 1) m |= 1 << i;
  }
  return m;
}

function scalarBytes(x: bigint): Uint8Array {
  const b = new Uint8Array(32);
  for (let i = 0; i < 32; i++, x >>= 8n) b[i] = Number(x & 255n);
  return b;
}

function numberLE(b: Uint8Array): bigint {
  let x = 0n;
  for (let i = b.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[i]);
  return x;
}

let baseComb: Comb | undefined;
const base = () => baseComb || (baseComb = combTable(decode(scalarBytes(BASE_Y))!, 8));

interface KeyEntry {
  hex: string;
  /** Comb of −A; null when A is not a valid point of large order. */
  comb: Comb | null;
}
const keyCache: KeyEntry[] = [];
const KEY_CACHE = 8;

function keyEntry(publicKey: Uint8Array): KeyEntry {
  let hex = '';
  for (let i = 0; i < 32; i++) hex += (publicKey[i] < 16 ? '0' : '') + publicKey[i].toString(16);
  for (const e of keyCache) if (e.hex === hex) return e;
  const A = decode(publicKey);
  const comb = A && !isZero(times8(A)) ? combTable([mod(-A[0]), A[1], A[2], mod(-A[3])], 6) : null;
  const e = { hex, comb };
  keyCache.unshift(e);
  if (keyCache.length > KEY_CACHE) keyCache.pop();
  return e;
}

/** Builds the tables ahead of the first scan (boot), for the trusted keys. */
export function prepareVerify(publicKeys: Iterable<Uint8Array>): void {
  base();
  for (const k of publicKeys) if (k.length === 32) keyEntry(k);
}

export function deviceVerify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    if (signature.length !== 64 || publicKey.length !== 32) return false;
    const CA = keyEntry(publicKey).comb;
    if (!CA) return false;
    const r = signature.subarray(0, 32);
    const R = decode(r);
    if (!R) return false;
    const sBytes = signature.subarray(32, 64);
    if (numberLE(sBytes) >= L) return false;
    const hashed = new Uint8Array(64 + message.length);
    hashed.set(r, 0);
    hashed.set(publicKey, 32);
    hashed.set(message, 64);
    const kBytes = scalarBytes(numberLE(sha512(hashed)) % L);
    const CB = base();
    let Q = ZERO;
    for (let j = Math.max(CA.span, CB.span) - 1; j >= 0; j--) {
      Q = double(Q);
      const mb = j < CB.span ? column(sBytes, CB, j) : 0;
      if (mb) Q = addNiels(Q, CB.t, 3 * (mb - 1));
      const ma = j < CA.span ? column(kBytes, CA, j) : 0;
      if (ma) Q = addNiels(Q, CA.t, 3 * (ma - 1));
    }
    // [8](Q − R) = 0
    return isZero(times8(add(Q, [mod(-R[0]), R[1], R[2], mod(-R[3])])));
  } catch {
    return false;
  }
}

/** For the tests: the constants and the base point. */
export const internals = { P, D, RM1, baseAffine: () => decode(scalarBytes(BASE_Y)) };
