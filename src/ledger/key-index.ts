// The in-RAM index of the ledger: what a slot location holds, not where a key is. One Uint8Array
// by location: 0 where no live payment is, else 1…255 from the key's hash (its fingerprint). A lookup
// finds the fingerprint with the engine's own TypedArray indexOf (native: ~10 µs over a full log in
// QuickJS) and compares the key on flash at each location found (~100 on a full log), so it is exact.
// 1 byte a slot of the partition, only up to the highest sector used: 25.5 KiB for a full log (was 51
// with 16-bit fingerprints, 128 before them); `slim`, 1 bit a slot (3.2 KiB), with no lookups: a
// mirror's second log while both agree. While a scan looks up every slot it reads, a Bloom filter
// keeps most lookups off flash. docs/ledger.md.

/** The ledger addresses at most 2^15 - 2 slots a log (sectors beyond stay unused). */
export const MAX_LOC_BITS = 15;

export function keyHash(emission: number, block: number, number: number): number {
  let h = Math.imul(((emission << 16) | block) >>> 0, 0x9e3779b1) ^ number;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A key's fingerprint, 1…255 (0 marks a location without a live payment), from bits the filter mixes least. */
export const fingerprint = (h: number) => ((h >>> 8) % 255) + 1;
/**
 * The scan's filter: four bits of 18 a key, mixed from all of the hash. Each key it lets through costs a
 * flash read at every location of its fingerprint (~50 on average while a full log is scanned): on a full
 * mirrored ledger's boot, 43 828 slot reads with two bits, 9 578 with four (6 994 with six).
 */
const wideBit = (h: number, m: number) => Math.imul(h ^ (h >>> 15), m) >>> 14;
const M1 = 0x2c1b3c6d;
const M2 = 0x297a2d39;
const M3 = 0x5bd1e995;
const M4 = 0x27d4eb2f;
const has = (f: Uint8Array, b: number) => (f[b >> 3] & (1 << (b & 7))) !== 0;
const mark = (f: Uint8Array, b: number) => (f[b >> 3] |= 1 << (b & 7));

export class KeyIndex {
  /** 1 byte a location: its fingerprint, 0 where no live payment is; null once `slim`. */
  private fp: Uint8Array | null = new Uint8Array(0);
  /** Once `slim`: 1 bit a location, set where a live payment is. */
  private bits = new Uint8Array(0);
  /** Locations covered so far (0 … size-1). */
  private size = 0;
  /** While a scan reads every slot: a larger filter on other bits, so few slots are read twice. */
  private wide: Uint8Array | null = null;
  count = 0;

  /** `locations`: how many locations exist (0 … locations-1). */
  constructor(private readonly locations: number) {}

  /** Bytes of RAM held by the index. */
  get bytes(): number {
    return this.fp ? this.fp.byteLength : this.bits.byteLength;
  }

  /** No fingerprints: whether a location is live, one bit each, and no lookups (`find` fails). */
  get slim(): boolean {
    return this.fp === null;
  }

  /** Drops the fingerprints and keeps one bit a location (a mirror's second log while both agree). */
  slimDown(): void {
    const fp = this.fp;
    if (!fp) return;
    const b = new Uint8Array((fp.length + 7) >> 3);
    for (let i = 0; i < fp.length; i++) if (fp[i] !== 0) b[i >> 3] |= 1 << (i & 7);
    this.bits = b;
    this.fp = null;
  }

  /** Makes room for locations below `n` at once (the scan knows the highest sector in use). */
  reserve(n: number): void {
    n = Math.min(n, this.locations);
    if (n <= this.size) return;
    const fp = this.fp;
    const a = new Uint8Array(fp ? n : (n + 7) >> 3);
    a.set(fp || this.bits);
    if (fp) this.fp = a;
    else this.bits = a;
    this.size = n;
  }

  /** While `on`, a 32 KiB filter more (a scan looks up every slot it reads; dropped after it). */
  scanning(on: boolean): void {
    this.wide = on ? new Uint8Array(1 << 15) : null;
  }

  /** The first location holding a key of hash `h` for which `match` is true, or -1. */
  find(h: number, match: (loc: number) => boolean): number {
    const fp = this.fp!; // (never slim here: Ledger builds the fingerprints back first)
    const w = this.wide;
    if (w && !(has(w, wideBit(h, M1)) && has(w, wideBit(h, M2)) && has(w, wideBit(h, M3)) && has(w, wideBit(h, M4))))
      return -1;
    const f = fingerprint(h);
    for (let i = fp.indexOf(f); i >= 0; i = fp.indexOf(f, i + 1)) if (match(i)) return i;
    return -1;
  }

  /** True when `loc` holds the live copy of its key. */
  live(loc: number): boolean {
    if (loc >= this.size) return false;
    return this.fp ? this.fp[loc] !== 0 : has(this.bits, loc);
  }

  /** Adds a key known to be absent, at `loc`. */
  insert(h: number, loc: number): void {
    this.grow(loc);
    const w = this.wide;
    if (w) {
      mark(w, wideBit(h, M1));
      mark(w, wideBit(h, M2));
      mark(w, wideBit(h, M3));
      mark(w, wideBit(h, M4));
    }
    this.set(loc, fingerprint(h));
    this.count++;
  }

  /** The key held at `from` is now held at `to`. */
  move(from: number, to: number): void {
    this.grow(to);
    this.set(to, this.fp ? this.fp[from] : 1);
    this.set(from, 0);
  }

  remove(loc: number): void {
    this.set(loc, 0);
    this.count--;
  }

  private set(loc: number, f: number): void {
    if (this.fp) this.fp[loc] = f;
    else if (f) this.bits[loc >> 3] |= 1 << (loc & 7);
    else this.bits[loc >> 3] &= ~(1 << (loc & 7));
  }

  // By an eighth of the log at least, so a log filled slot by slot is copied a few times only.
  private grow(loc: number): void {
    if (loc >= this.size) this.reserve(Math.max(loc + 1, this.size + (this.locations >> 3)));
  }
}
