// Deterministic pseudo-random numbers for the generator (not cryptographic: the secret is the seed,
// hashed with SHA-256 before it reaches here).

export interface Rng {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
}

const fmix32 = (h: number): number => {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
};

/** Four 32-bit words from any bytes (four independently seeded murmur3-style hashes). */
export function foldBytes(bytes: Uint8Array): [number, number, number, number] {
  const seeds = [0x9e3779b9, 0x243f6a88, 0xb7e15162, 0x85a308d3];
  const out: [number, number, number, number] = [0, 0, 0, 0];
  for (let s = 0; s < 4; s++) {
    let h = seeds[s] ^ bytes.length;
    for (let i = 0; i < bytes.length; i++) {
      h = Math.imul(h ^ bytes[i], 0x5bd1e995);
      h = (h << 15) | (h >>> 17);
      h = Math.imul(h, 0x1b873593) + s;
    }
    out[s] = fmix32(h);
  }
  return out;
}

/** sfc32 seeded from the bytes. Same bytes, same sequence. */
export function makeRng(seedBytes: Uint8Array): Rng {
  const [a, b, c, d] = foldBytes(seedBytes);
  return rngOfWords(a, b, c, d);
}

/** sfc32 from four 32-bit words (the generator's per-ticket fast path). */
export function rngOfWords(a: number, b: number, c: number, d: number): Rng {
  return new Sfc32(a, b, c, d);
}

// A class rather than closures: one allocation per generator, nothing else.
class Sfc32 implements Rng {
  constructor(
    private a: number,
    private b: number,
    private c: number,
    private d: number,
  ) {
    for (let i = 0; i < 12; i++) this.u32();
  }
  u32(): number {
    const { a, b, c } = this;
    const t = (((a + b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    this.c = (((c << 21) | (c >>> 11)) + t) | 0;
    return t >>> 0;
  }
  next(): number {
    return this.u32() / 4294967296;
  }
  int(n: number): number {
    return Math.floor((this.u32() / 4294967296) * n);
  }
}

/** Four words mixing a 32-bit value into four key words (murmur3 finaliser). */
export function mixWords(key: readonly number[], v: number): [number, number, number, number] {
  return [
    fmix32(key[0] ^ fmix32(v ^ 0x9e3779b9)),
    fmix32(key[1] ^ fmix32(v ^ 0x243f6a88)),
    fmix32(key[2] ^ fmix32(v ^ 0xb7e15162)),
    fmix32(key[3] ^ fmix32(v ^ 0x85a308d3)),
  ];
}
