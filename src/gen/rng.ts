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

/** Draws made at a time: the 12 discarded ones and the most a ticket's composition takes (86). */
const BATCH = 100;

/**
 * sfc32, drawn a batch at a time in one loop whose state stays in local variables (as object fields,
 * values beyond 31 bits are boxed numbers: drawing one number a call cost `saphir gen` about 1 µs a
 * ticket). The sequence is the same: `next` and `int` read the batch in order, refilled when used up.
 */
export class Sfc32 implements Rng {
  private readonly s = new Int32Array(4);
  /** Each draw as a fraction of 2^32 (exact: a 32-bit integer over a power of two). */
  private readonly out = new Float64Array(BATCH);
  private at = BATCH;

  constructor(a: number, b: number, c: number, d: number) {
    this.reseed(a, b, c, d);
  }

  /** Starts over from these four words, as a new Sfc32(a, b, c, d) would (no allocation). */
  reseed(a: number, b: number, c: number, d: number): void {
    const s = this.s;
    s[0] = a;
    s[1] = b;
    s[2] = c;
    s[3] = d;
    this.refill();
    this.at = 12;
  }

  private refill(): void {
    const s = this.s;
    const out = this.out;
    let a = s[0];
    let b = s[1];
    let c = s[2];
    let d = s[3];
    for (let i = 0; i < BATCH; i++) {
      const t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (((c << 21) | (c >>> 11)) + t) | 0;
      out[i] = (t >>> 0) / 4294967296;
    }
    s[0] = a;
    s[1] = b;
    s[2] = c;
    s[3] = d;
    this.at = 0;
  }

  next(): number {
    if (this.at === BATCH) this.refill();
    return this.out[this.at++];
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

/**
 * `rng` started over from four words mixing a 32-bit value into four key words (murmur3 finaliser):
 * a ticket's own sequence, from the block's key and the ticket number.
 */
export function reseedMixed(rng: Sfc32, key: readonly number[], v: number): Sfc32 {
  rng.reseed(
    fmix32(key[0] ^ fmix32(v ^ 0x9e3779b9)),
    fmix32(key[1] ^ fmix32(v ^ 0x243f6a88)),
    fmix32(key[2] ^ fmix32(v ^ 0xb7e15162)),
    fmix32(key[3] ^ fmix32(v ^ 0x85a308d3)),
  );
  return rng;
}
