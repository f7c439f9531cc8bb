// A keyed permutation of 0 … size-1: a balanced Feistel network on the next even power of two,
// cycle-walking until the value falls back inside the domain.

export interface Permutation {
  readonly size: number;
  forward(x: number): number;
  inverse(y: number): number;
}

const ROUNDS = 6;

/** `key` gives the round keys (at least 4 bytes a round are used; shorter keys repeat). */
export function makePermutation(key: Uint8Array, size: number): Permutation {
  if (!(size >= 1 && size <= 2 ** 30 && Number.isInteger(size))) throw new RangeError('permutation size');
  let bits = 2;
  while (2 ** bits < size) bits += 2;
  const half = bits / 2;
  const mask = (1 << half) - 1;
  const rk: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let w = 0;
    for (let j = 0; j < 4; j++) w = (w << 8) | key[(r * 4 + j) % key.length];
    rk.push(w | 0);
  }
  const f = (x: number, k: number): number => {
    let h = Math.imul(x ^ k, 0x9e3779b1);
    h ^= h >>> 15;
    h = Math.imul(h, 0x85ebca77);
    h ^= h >>> 13;
    h = Math.imul(h + k, 0xc2b2ae3d);
    h ^= h >>> 16;
    return h & mask;
  };
  const enc = (x: number): number => {
    let l = x >>> half;
    let r = x & mask;
    for (let i = 0; i < ROUNDS; i++) {
      const t = r;
      r = l ^ f(r, rk[i]);
      l = t;
    }
    return (l << half) | r;
  };
  const dec = (y: number): number => {
    let l = y >>> half;
    let r = y & mask;
    for (let i = ROUNDS - 1; i >= 0; i--) {
      const t = l;
      l = r ^ f(l, rk[i]);
      r = t;
    }
    return (l << half) | r;
  };
  const check = (v: number) => {
    if (!(Number.isInteger(v) && v >= 0 && v < size)) throw new RangeError(`${v} is outside 0 … ${size - 1}`);
  };
  return {
    size,
    forward(x) {
      check(x);
      do x = enc(x);
      while (x >= size);
      return x;
    },
    inverse(y) {
      check(y);
      do y = dec(y);
      while (y >= size);
      return y;
    },
  };
}
