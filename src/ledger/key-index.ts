// The in-RAM index of the ledger: ticket key → slot location, in one Uint32Array (4 bytes a cell).
// Open addressing, linear probing, ordered by the hash's top bits. A cell holds the hash's top bits
// (the tag) and location + 1; keys themselves stay on flash and are compared there when tags match.
// Because a cell keeps the top bits of the hash, the table can double without re-reading any key.

const EMPTY = 0;
const TOMB = 0xffffffff;
/** A location field of at most 15 bits leaves ≥ 17 tag bits, enough to place 2^17 cells. */
export const MAX_LOC_BITS = 15;
const MAX_LOAD = 0.8;

export function keyHash(emission: number, block: number, number: number): number {
  let h = Math.imul(((emission << 16) | block) >>> 0, 0x9e3779b1) ^ number;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class KeyIndex {
  private cells: Uint32Array;
  private bits: number;
  private readonly maxBits: number;
  private filled = 0; // live + tombstones
  count = 0;
  readonly locBits: number;
  private readonly tagBits: number;
  private readonly locMask: number;

  /** `locations`: how many distinct locations exist (0 … locations-1). At most 2^15 - 2. */
  constructor(locations: number) {
    let b = 1;
    while ((1 << b) - 1 <= locations) b++;
    if (b > MAX_LOC_BITS) throw new RangeError('ledger index: too many slots');
    // (2^15 locations need at most 2^16 cells: the 17 tag bits can place them.)
    this.locBits = b;
    this.tagBits = 32 - b;
    this.locMask = (1 << b) - 1;
    // Every key held has its own location, so this many cells always keep the load under MAX_LOAD.
    let cap = 6;
    while ((1 << cap) * MAX_LOAD < locations + 1) cap++;
    this.maxBits = cap;
    this.bits = Math.min(6, cap);
    this.cells = new Uint32Array(1 << this.bits);
  }

  /** Bytes of RAM held by the table. */
  get bytes(): number {
    return this.cells.byteLength;
  }

  private tagOf(h: number): number {
    return h >>> this.locBits;
  }
  private home(tag: number): number {
    return tag >>> (this.tagBits - this.bits);
  }

  /** The cell whose location satisfies `match` among those with the hash `h`, or -1. */
  find(h: number, match: (loc: number) => boolean): number {
    const tag = this.tagOf(h);
    const mask = this.cells.length - 1;
    for (let i = this.home(tag); ; i = (i + 1) & mask) {
      const c = this.cells[i];
      if (c === EMPTY) return -1;
      if (c !== TOMB && c >>> this.locBits === tag && match((c & this.locMask) - 1)) return i;
    }
  }

  /** False when no key with the hash `h` can be held (no cell carries its tag): no flash read needed. */
  mayHold(h: number): boolean {
    const tag = this.tagOf(h);
    const mask = this.cells.length - 1;
    for (let i = this.home(tag); ; i = (i + 1) & mask) {
      const c = this.cells[i];
      if (c === EMPTY) return false;
      if (c !== TOMB && c >>> this.locBits === tag) return true;
    }
  }

  loc(cell: number): number {
    return (this.cells[cell] & this.locMask) - 1;
  }

  /** Adds a key known to be absent. */
  insert(h: number, loc: number): void {
    if (this.filled + 1 > this.cells.length * MAX_LOAD) this.resize();
    const tag = this.tagOf(h);
    const mask = this.cells.length - 1;
    let i = this.home(tag);
    while (this.cells[i] !== EMPTY && this.cells[i] !== TOMB) i = (i + 1) & mask;
    if (this.cells[i] === EMPTY) this.filled++;
    this.cells[i] = ((tag << this.locBits) | (loc + 1)) >>> 0;
    this.count++;
  }

  setLoc(cell: number, loc: number): void {
    this.cells[cell] = ((this.cells[cell] & ~this.locMask) | (loc + 1)) >>> 0;
  }

  remove(cell: number): void {
    this.cells[cell] = TOMB;
    this.count--;
  }

  /** Calls `fn(loc)` for every key held. */
  forEach(fn: (loc: number) => void): void {
    for (let i = 0; i < this.cells.length; i++) {
      const c = this.cells[i];
      if (c !== EMPTY && c !== TOMB) fn((c & this.locMask) - 1);
    }
  }

  // Doubles (or, when tombstones dominate, rebuilds at the same size) from the tags alone.
  private resize(): void {
    const old = this.cells;
    // Double while live keys fill more than half of what is allowed; else (or at the largest size
    // ever needed) rebuild at the same size, which clears the tombstones compaction left.
    if (this.count + 1 > old.length * MAX_LOAD * 0.5 && this.bits < this.maxBits) this.bits++;
    this.cells = new Uint32Array(1 << this.bits);
    this.filled = 0;
    const mask = this.cells.length - 1;
    for (let j = 0; j < old.length; j++) {
      const c = old[j];
      if (c === EMPTY || c === TOMB) continue;
      let i = this.home(c >>> this.locBits);
      while (this.cells[i] !== EMPTY) i = (i + 1) & mask;
      this.cells[i] = c;
      this.filled++;
    }
  }
}
