// SHA-512 (FIPS 180-4) in 32-bit halves, small: the firmware bundle uses it in place of
// @noble/hashes/sha2.js (the build aliases it, tools/build.ts) to keep the camera-less core within its 64 KiB budget.
// Only `sha512` is provided; checked against @noble/hashes in test/firmware/verify.test.ts.

const K = new Int32Array(160);
(() => {
  // The first 64 bits of the fractional parts of the cube roots of the first 80 primes, computed
  // (integer cube root of p·2^192 by Newton's method) rather than carried as 1 280 hex digits.
  const primes: number[] = [];
  for (let n = 2; primes.length < 80; n++) if (primes.every((p) => n % p)) primes.push(n);
  primes.forEach((p, i) => {
    const x = BigInt(p) << 192n;
    // Math.cbrt's 53 bits, raised above the root by more than its error: Newton then needs a step or two.
    let r = (BigInt(Math.floor(Math.cbrt(p) * 2 ** 40)) << 24n) + (1n << 26n);
    for (;;) {
      const next = (2n * r + x / (r * r)) / 3n;
      if (next >= r) break;
      r = next;
    }
    while (r * r * r > x) r--;
    while ((r + 1n) * (r + 1n) * (r + 1n) <= x) r++;
    K[2 * i] = Number((r >> 32n) & 0xffffffffn) | 0;
    K[2 * i + 1] = Number(r & 0xffffffffn) | 0;
  });
})();

const IV = [
  0x6a09e667, 0xf3bcc908, 0xbb67ae85, 0x84caa73b, 0x3c6ef372, 0xfe94f82b, 0xa54ff53a, 0x5f1d36f1, 0x510e527f,
  0xade682d1, 0x9b05688c, 0x2b3e6c1f, 0x1f83d9ab, 0xfb41bd6b, 0x5be0cd19, 0x137e2179,
];

const W = new Int32Array(160);

function block(H: Int32Array, m: Uint8Array, o: number): void {
  for (let i = 0; i < 32; i++, o += 4) W[i] = (m[o] << 24) | (m[o + 1] << 16) | (m[o + 2] << 8) | m[o + 3];
  for (let i = 16; i < 80; i++) {
    // σ0 of W[i-15] and σ1 of W[i-2], on (hi, lo) pairs.
    let h = W[2 * (i - 15)],
      l = W[2 * (i - 15) + 1];
    const s0h = ((h >>> 1) | (l << 31)) ^ ((h >>> 8) | (l << 24)) ^ (h >>> 7);
    const s0l = ((l >>> 1) | (h << 31)) ^ ((l >>> 8) | (h << 24)) ^ ((l >>> 7) | (h << 25));
    h = W[2 * (i - 2)];
    l = W[2 * (i - 2) + 1];
    const s1h = ((h >>> 19) | (l << 13)) ^ ((l >>> 29) | (h << 3)) ^ (h >>> 6);
    const s1l = ((l >>> 19) | (h << 13)) ^ ((h >>> 29) | (l << 3)) ^ ((l >>> 6) | (h << 26));
    const lo = (s0l >>> 0) + (s1l >>> 0) + (W[2 * (i - 7) + 1] >>> 0) + (W[2 * (i - 16) + 1] >>> 0);
    W[2 * i] = s0h + s1h + W[2 * (i - 7)] + W[2 * (i - 16)] + ((lo / 0x100000000) | 0);
    W[2 * i + 1] = lo | 0;
  }
  let [ah, al, bh, bl, ch, cl, dh, dl, eh, el, fh, fl, gh, gl, hh, hl] = H;
  for (let i = 0; i < 160; i += 2) {
    const S1h = ((eh >>> 14) | (el << 18)) ^ ((eh >>> 18) | (el << 14)) ^ ((el >>> 9) | (eh << 23));
    const S1l = ((el >>> 14) | (eh << 18)) ^ ((el >>> 18) | (eh << 14)) ^ ((eh >>> 9) | (el << 23));
    const chh = (eh & fh) ^ (~eh & gh),
      chl = (el & fl) ^ (~el & gl);
    const t1l = (hl >>> 0) + (S1l >>> 0) + (chl >>> 0) + (K[i + 1] >>> 0) + (W[i + 1] >>> 0);
    const t1h = hh + S1h + chh + K[i] + W[i] + ((t1l / 0x100000000) | 0);
    const S0h = ((ah >>> 28) | (al << 4)) ^ ((al >>> 2) | (ah << 30)) ^ ((al >>> 7) | (ah << 25));
    const S0l = ((al >>> 28) | (ah << 4)) ^ ((ah >>> 2) | (al << 30)) ^ ((ah >>> 7) | (al << 25));
    const mjh = (ah & bh) ^ (ah & ch) ^ (bh & ch),
      mjl = (al & bl) ^ (al & cl) ^ (bl & cl);
    const t2l = (S0l >>> 0) + (mjl >>> 0);
    const t2h = S0h + mjh + ((t2l / 0x100000000) | 0);
    hh = gh;
    hl = gl;
    gh = fh;
    gl = fl;
    fh = eh;
    fl = el;
    let x = (dl >>> 0) + (t1l >>> 0);
    eh = (dh + t1h + ((x / 0x100000000) | 0)) | 0;
    el = x | 0;
    dh = ch;
    dl = cl;
    ch = bh;
    cl = bl;
    bh = ah;
    bl = al;
    x = (t1l >>> 0) + (t2l >>> 0);
    ah = (t1h + t2h + ((x / 0x100000000) | 0)) | 0;
    al = x | 0;
  }
  const v = [ah, al, bh, bl, ch, cl, dh, dl, eh, el, fh, fl, gh, gl, hh, hl];
  for (let i = 0; i < 16; i += 2) {
    const lo = (H[i + 1] >>> 0) + (v[i + 1] >>> 0);
    H[i] = (H[i] + v[i] + ((lo / 0x100000000) | 0)) | 0;
    H[i + 1] = lo | 0;
  }
}

export function sha512(msg: Uint8Array): Uint8Array {
  const H = new Int32Array(IV);
  const n = msg.length;
  const full = n - (n % 128);
  for (let o = 0; o < full; o += 128) block(H, msg, o);
  const tail = new Uint8Array(n % 128 < 112 ? 128 : 256);
  tail.set(msg.subarray(full));
  tail[n % 128] = 0x80;
  const bits = n * 8;
  const end = tail.length;
  tail[end - 5] = (bits / 0x100000000) & 0xff;
  tail[end - 4] = (bits >>> 24) & 0xff;
  tail[end - 3] = (bits >>> 16) & 0xff;
  tail[end - 2] = (bits >>> 8) & 0xff;
  tail[end - 1] = bits & 0xff;
  for (let o = 0; o < end; o += 128) block(H, tail, o);
  const out = new Uint8Array(64);
  for (let i = 0; i < 16; i++) {
    out[4 * i] = H[i] >>> 24;
    out[4 * i + 1] = H[i] >>> 16;
    out[4 * i + 2] = H[i] >>> 8;
    out[4 * i + 3] = H[i];
  }
  return out;
}
