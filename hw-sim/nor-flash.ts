// A NOR flash chip for the simulator and the tests: erase sets a sector to 0xFF, program can only
// clear bits (old & new), and a power cut can be injected at any erase or program, leaving it half
// done. `partition()` gives the HAL Flash the firmware sees for one partition.
import type { Flash } from '../src/hal.ts';
import { CHIP_SIZE, LAYOUT, SECTOR_SIZE, type Partition } from '../rom/layout.ts';
import { seededRng } from './rng.ts';
import { simHost } from './host.ts';

/** Thrown by the operation a power cut interrupted, then by every operation until `powerOn()`. */
export class PowerCut extends Error {
  constructor(message = 'power cut') {
    super(message);
    this.name = 'PowerCut';
  }
}

export interface FlashCounters {
  reads: number;
  writes: number;
  erases: number;
  bytesRead: number;
  bytesWritten: number;
  /** Time the operations would take on the chip (`timing`), in ms. */
  busyMs: number;
}

/**
 * Figures of a 4 MiB SPI NOR (W25Q32JV datasheet): 4 KiB sector erase 45 ms typical (400 worst), 64 KiB
 * block erase 150 ms (2 000), 256-byte page program 0.4 ms (3).
 */
export interface FlashTiming {
  eraseMs: number;
  pageProgramMs: number;
  pageSize: number;
  /** 64 KiB block erase (`eraseBlock64`); 16 sector erases when absent. */
  blockEraseMs?: number;
}
export const TYPICAL_TIMING: FlashTiming = { eraseMs: 45, pageProgramMs: 0.4, pageSize: 256, blockEraseMs: 150 };
export const WORST_TIMING: FlashTiming = { eraseMs: 400, pageProgramMs: 3, pageSize: 256, blockEraseMs: 2000 };
/** Bytes of a block erase. */
export const BLOCK64 = 65536;

/** Uniform in [0, 1). */
export type Random = () => number;

/** The simulator's seeded generator (rng.ts, mulberry32) as a function, so that every cut is reproducible. */
export function seeded(seed: number): Random {
  return seededRng(seed).next;
}

export interface NorFlashOptions {
  size?: number;
  sectorSize?: number;
  /** Initial contents (copied); default: a fully erased chip. */
  bytes?: Uint8Array;
  /** Randomness for power cuts when `cutAtOp` is given none. Default: seed 1. */
  random?: Random;
  timing?: FlashTiming;
  /**
   * Write-once areas: never erased, and a byte once programmed is never programmed again (both throw
   * WriteOnceError). Default: LAYOUT.otp on a chip of the layout's size, none otherwise.
   */
  writeOnce?: Partition[];
}

/**
 * A worn-out sector: the chip's status register reports the erase or program failed (E_FAIL / P_FAIL
 * of SPI NOR). The bytes are left as a failed operation leaves them: some bits not cleared or not set.
 */
export class FlashFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlashFailure';
  }
}

/** An erase or a second program of a write-once area (OTP): refused, the chip is unchanged. */
export class WriteOnceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WriteOnceError';
  }
}

/**
 * A fresh erased chip's bytes: from the second chip of a size on, a copy of a kept erased image, half the
 * cost of allocating and filling (the explorer makes one chip a schedule); the first is filled in place
 * (a process that makes one chip, as most `saphir` commands, pays no image).
 */
const erasedImages = new Map<number, Uint8Array>();
const sizesMade = new Set<number>();
/** Buffers of recycled chips, by size: refilling one costs a copy, a new one also 4 MiB of fresh pages. */
const spare = new Map<number, Uint8Array[]>();
function erased(size: number): Uint8Array {
  if (!sizesMade.has(size)) {
    sizesMade.add(size);
    return new Uint8Array(size).fill(0xff);
  }
  let e = erasedImages.get(size);
  if (!e) {
    e = new Uint8Array(size).fill(0xff);
    if (erasedImages.size < 4) erasedImages.set(size, e);
  }
  const s = spare.get(size)?.pop();
  if (s) {
    s.set(e);
    return s;
  }
  return e.slice();
}

/** A chip's bytes from an image: one copy, into a recycled buffer when there is one (not erased first). */
function copied(image: Uint8Array): Uint8Array {
  const s = spare.get(image.length)?.pop();
  if (!s) return new Uint8Array(image); // (a copy, also of a Node Buffer, whose slice is a view)
  s.set(image);
  return s;
}

/** What the last power cut did, for tests and logs. */
export interface CutReport {
  op: 'write' | 'erase';
  offset: number;
  detail: string;
}

export class NorFlash implements Flash {
  readonly size: number;
  readonly blockLength: number;
  readonly bytes: Uint8Array;
  readonly counters: FlashCounters = { reads: 0, writes: 0, erases: 0, bytesRead: 0, bytesWritten: 0, busyMs: 0 };
  readonly timing: FlashTiming;
  /** Erase count of every sector (wear). */
  readonly wear: Uint32Array;
  /**
   * Changes of every sector (erases, programs, rot, `touched`): a reader that remembers what it read of a
   * range reads it again only when the sum over its sectors moved (the explorer's ledger reader).
   */
  readonly gen: Uint32Array;
  /** Erases and writes since creation: what `cutAtOp` counts. */
  ops = 0;
  powered = true;
  lastCut: CutReport | undefined;
  private recycled = false;
  private cutIn = 0;
  private cutRandom: Random;
  private readonly random: Random;
  readonly writeOnce: readonly Partition[];
  /** Sectors that fail every erase and program (`markBad`). */
  readonly bad = new Set<number>();

  constructor(opts: NorFlashOptions = {}) {
    this.size = opts.size ?? CHIP_SIZE;
    this.blockLength = opts.sectorSize ?? SECTOR_SIZE;
    if (!(this.blockLength > 0) || this.size % this.blockLength !== 0)
      throw new RangeError('flash: size must be a whole number of sectors');
    if (opts.bytes && opts.bytes.length !== this.size)
      throw new RangeError(`flash: image is ${opts.bytes.length} bytes, expected ${this.size}`);
    this.bytes = opts.bytes ? copied(opts.bytes) : erased(this.size);
    this.wear = new Uint32Array(this.size / this.blockLength);
    this.gen = new Uint32Array(this.size / this.blockLength);
    this.random = opts.random ?? seeded(1);
    this.timing = opts.timing ?? TYPICAL_TIMING;
    this.cutRandom = this.random;
    this.writeOnce =
      opts.writeOnce ?? (this.size === CHIP_SIZE && this.blockLength === SECTOR_SIZE ? [LAYOUT.otp] : []);
  }

  /** Loads a chip saved by `save`, or a fresh erased one when the file does not exist. */
  static load(path: string, opts: Omit<NorFlashOptions, 'bytes'> = {}): NorFlash {
    const files = simHost().files;
    if (!files.exists(path)) return new NorFlash(opts);
    return new NorFlash({ ...opts, bytes: files.read(path) });
  }

  /** Writes the chip's bytes to `path` (through a temporary file, so a crash leaves the old one). */
  save(path: string): void {
    simHost().files.write(path, this.bytes, true);
  }

  /**
   * The `n`-th next erase or write (1 = the very next) stops midway and throws PowerCut; the chip
   * then refuses every operation until `powerOn()`. `cutAtOp(0)` cancels a pending cut.
   */
  cutAtOp(n: number, random?: Random): void {
    if (!Number.isInteger(n) || n < 0) throw new RangeError('cutAtOp: n must be an integer ≥ 0');
    this.cutIn = n;
    this.cutRandom = random ?? this.random;
  }

  powerOn(): void {
    if (!this.recycled) this.powered = true;
  }

  /**
   * The caller is done with this chip and holds no view of its bytes (the explorer, after a schedule):
   * its buffer goes to the next new chip of its size, and every later operation throws.
   */
  recycle(): void {
    if (this.recycled) return;
    this.recycled = true;
    this.powered = false;
    const list = spare.get(this.size) ?? [];
    if (list.length < 2) list.push(this.bytes);
    spare.set(this.size, list);
  }

  read(offset: number, byteLength: number): Uint8Array {
    return this.peek(offset, byteLength).slice();
  }

  /** Like `read`, without the copy: a view that changes with the chip, for a caller that only looks. */
  peek(offset: number, byteLength: number): Uint8Array {
    this.check(offset, byteLength);
    this.counters.reads++;
    this.counters.bytesRead += byteLength;
    return this.bytes.subarray(offset, offset + byteLength);
  }

  /** The HAL's blank check: every byte of the range reads 0xFF. Counts as a read, without the copy. */
  erased(offset: number, byteLength: number): boolean {
    const b = this.peek(offset, byteLength);
    // Four bytes a step where aligned (a sector: ~1 µs, against ~8 µs a byte at a time).
    const head = Math.min(b.length, (4 - (b.byteOffset & 3)) & 3);
    const words = (b.length - head) >>> 2;
    for (let i = 0; i < head; i++) if (b[i] !== 0xff) return false;
    if (words > 0) {
      const w = new Int32Array(b.buffer, b.byteOffset + head, words);
      for (let i = 0; i < words; i++) if (w[i] !== -1) return false;
    }
    for (let i = head + 4 * words; i < b.length; i++) if (b[i] !== 0xff) return false;
    return true;
  }

  /** Records a change of [offset, offset + length) made outside erase and program (damage by a test). */
  touched(offset: number, length: number): void {
    if (length <= 0) return;
    const last = Math.floor((offset + length - 1) / this.blockLength);
    for (let b = Math.floor(offset / this.blockLength); b <= last; b++) this.gen[b]++;
  }

  /** The sum of `gen` over the sectors of [offset, offset + length): moves whenever a byte there may have. */
  generation(offset: number, length: number): number {
    let n = 0;
    const last = Math.floor((offset + length - 1) / this.blockLength);
    for (let b = Math.floor(offset / this.blockLength); b <= last; b++) n += this.gen[b];
    return n;
  }

  /** From now on, every erase and program touching `sector` fails (FlashFailure): a bad block. */
  markBad(sector: number): void {
    this.bad.add(sector);
  }

  /**
   * Bit rot: `flips` programmed bits (0) anywhere in [offset, offset + length) read 1 from now on, as
   * charge leaks out of cells over the years; seeded by `random`. Returns the byte offsets touched.
   */
  rot(flips: number, random: Random, offset = 0, length = this.size - offset): number[] {
    this.check(offset, length);
    const at: number[] = [];
    for (let tries = 0; at.length < flips && tries < flips * 10000; tries++) {
      const i = offset + Math.floor(random() * length);
      const zeros = ~this.bytes[i] & 0xff;
      if (zeros === 0) continue;
      let bit = Math.floor(random() * 8);
      while (!(zeros & (1 << bit))) bit = (bit + 1) & 7;
      this.bytes[i] |= 1 << bit;
      this.gen[Math.floor(i / this.blockLength)]++;
      at.push(i);
    }
    return at;
  }

  private badIn(start: number, length: number): boolean {
    for (let b = Math.floor(start / this.blockLength); b * this.blockLength < start + length; b++)
      if (this.bad.has(b)) return true;
    return false;
  }

  write(bytes: Uint8Array, offset: number): void {
    if (!(bytes instanceof Uint8Array)) throw new TypeError('flash write: bytes must be a Uint8Array');
    this.check(offset, bytes.length);
    for (const w of this.writeOnce) {
      for (let i = Math.max(offset, w.offset); i < Math.min(offset + bytes.length, w.offset + w.size); i++) {
        if (this.bytes[i] !== 0xff)
          throw new WriteOnceError(`flash: byte 0x${i.toString(16)} of a write-once area is already programmed`);
      }
    }
    this.ops++;
    this.touched(offset, bytes.length);
    this.counters.writes++;
    const n = bytes.length;
    const pages =
      n === 0 ? 0 : Math.floor((offset + n - 1) / this.timing.pageSize) - Math.floor(offset / this.timing.pageSize) + 1;
    this.counters.busyMs += pages * this.timing.pageProgramMs;
    if (this.cutNow()) {
      const r = this.cutRandom;
      const done = Math.floor(r() * n); // bytes fully programmed
      for (let i = 0; i < done; i++) this.bytes[offset + i] &= bytes[i];
      if (done < n) {
        // The byte under way: some of the bits it had to clear are cleared.
        const mask = Math.floor(r() * 256);
        this.bytes[offset + done] &= bytes[done] | mask;
      }
      this.counters.bytesWritten += done;
      this.lastCut = { op: 'write', offset, detail: `${done} of ${n} bytes programmed` };
      throw new PowerCut(`power cut while programming ${n} bytes at 0x${offset.toString(16)}`);
    }
    if (this.bad.size && this.badIn(offset, n)) {
      // Some of the bits to clear stay set.
      for (let i = 0; i < n; i++) this.bytes[offset + i] &= bytes[i] | Math.floor(this.random() * 256);
      throw new FlashFailure(`flash: program failed at 0x${offset.toString(16)} (bad block)`);
    }
    for (let i = 0; i < n; i++) this.bytes[offset + i] &= bytes[i];
    this.counters.bytesWritten += n;
  }

  eraseBlock(block: number): void {
    if (!Number.isInteger(block) || block < 0 || block >= this.size / this.blockLength) {
      throw new RangeError(`flash erase: no sector ${block}`);
    }
    this.erase(block * this.blockLength, this.blockLength, this.timing.eraseMs, `sector ${block}`);
  }

  /** Erases the 64 KiB block `block64` (the chip's block erase: one operation, far quicker than 16 sectors). */
  eraseBlock64(block64: number): void {
    if (
      !Number.isInteger(block64) ||
      block64 < 0 ||
      block64 >= this.size / BLOCK64 ||
      BLOCK64 % this.blockLength !== 0
    ) {
      throw new RangeError(`flash erase: no 64 KiB block ${block64}`);
    }
    const ms = this.timing.blockEraseMs ?? (BLOCK64 / this.blockLength) * this.timing.eraseMs;
    this.erase(block64 * BLOCK64, BLOCK64, ms, `64 KiB block ${block64}`);
  }

  private erase(start: number, length: number, ms: number, what: string): void {
    this.checkPower();
    if (this.writeOnce.some((w) => start < w.offset + w.size && start + length > w.offset)) {
      throw new WriteOnceError(`flash erase: ${what} is write-once`);
    }
    this.ops++;
    this.counters.erases++;
    this.counters.busyMs += ms;
    for (let b = start / this.blockLength; b < (start + length) / this.blockLength; b++) {
      this.wear[b]++;
      this.gen[b]++;
    }
    const end = start + length;
    if (this.cutNow()) {
      const r = this.cutRandom;
      const mode = Math.floor(r() * 3);
      let detail: string;
      if (mode === 0) {
        // Erased in address order up to some point.
        const done = Math.floor(r() * length);
        this.bytes.fill(0xff, start, start + done);
        detail = `first ${done} bytes erased`;
      } else if (mode === 1) {
        // Some bytes erased, others not.
        const p = r();
        for (let i = start; i < end; i++) if (r() < p) this.bytes[i] = 0xff;
        detail = `random bytes erased (p=${p.toFixed(2)})`;
      } else {
        // Cells half way: every bit either set or left as it was.
        for (let i = start; i < end; i++) this.bytes[i] |= Math.floor(r() * 256);
        detail = 'random bits set';
      }
      this.lastCut = { op: 'erase', offset: start, detail };
      throw new PowerCut(`power cut while erasing ${what}`);
    }
    if (this.bad.size && this.badIn(start, length)) {
      // Some bits not set: the sector neither erased nor as it was.
      for (let i = start; i < end; i++) this.bytes[i] |= Math.floor(this.random() * 256);
      throw new FlashFailure(`flash: erase failed (${what}, bad block)`);
    }
    this.bytes.fill(0xff, start, end);
  }

  /**
   * The HAL Flash of one partition: offsets and blocks relative to it. With `views`, reads are `peek`
   * views, for a reader that keeps nothing it reads (the host's own look at the ledger).
   */
  partition(offset: number, size: number, views = false): Required<Flash> {
    if (
      offset % this.blockLength !== 0 ||
      size % this.blockLength !== 0 ||
      size <= 0 ||
      offset < 0 ||
      offset + size > this.size
    ) {
      throw new RangeError('flash partition: must be whole sectors inside the chip');
    }
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the partition's closures read the live chip
    const chip = this;
    const first = offset / this.blockLength;
    const inside = (o: number, len: number) => {
      if (!Number.isInteger(o) || !Number.isInteger(len) || o < 0 || len < 0 || o + len > size) {
        throw new RangeError(`flash: ${len} bytes at ${o} is outside the partition (${size} bytes)`);
      }
    };
    return {
      size,
      blockLength: this.blockLength,
      read(o: number, len: number) {
        inside(o, len);
        return views ? chip.peek(offset + o, len) : chip.read(offset + o, len);
      },
      erased(o: number, len: number) {
        inside(o, len);
        return chip.erased(offset + o, len);
      },
      write(bytes: Uint8Array, o: number) {
        inside(o, bytes.length);
        chip.write(bytes, offset + o);
      },
      eraseBlock(block: number) {
        if (!Number.isInteger(block) || block < 0 || block >= size / chip.blockLength) {
          throw new RangeError(`flash erase: no block ${block} in the partition`);
        }
        chip.eraseBlock(first + block);
      },
    };
  }

  private check(offset: number, len: number): void {
    if (!Number.isInteger(offset) || !Number.isInteger(len) || offset < 0 || len < 0 || offset + len > this.size) {
      throw new RangeError(`flash: ${len} bytes at ${offset} is outside the chip`);
    }
    this.checkPower();
  }

  private checkPower(): void {
    if (this.recycled) throw new Error('flash: this chip was recycled');
    if (!this.powered) throw new PowerCut('flash: no power (call powerOn)');
  }

  private cutNow(): boolean {
    if (this.cutIn === 0) return false;
    if (--this.cutIn > 0) return false;
    this.powered = false;
    return true;
  }
}
