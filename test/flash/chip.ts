// A whole-chip NOR model for the flash tests, with seeded power cuts: after `cutAfter` more operations
// the next program/erase is interrupted part-way (some bytes done, one byte half-done) and throws.
import { CHIP_SIZE, SECTOR_SIZE } from '../../hw-sim/layout.ts';
import type { NorChip } from '../../hw-sim/bootloader.ts';

export class PowerCut extends Error {
  constructor() {
    super('power cut');
  }
}

export class MemChip implements NorChip {
  data = new Uint8Array(CHIP_SIZE).fill(0xff);
  ops = 0;
  cutAt: number | null = null;
  private rnd = 1;

  seed(s: number): void {
    this.rnd = s >>> 0 || 1;
  }
  private next(): number {
    this.rnd ^= this.rnd << 13;
    this.rnd ^= this.rnd >>> 17;
    this.rnd ^= this.rnd << 5;
    return (this.rnd >>> 0) / 0x100000000;
  }
  private cutting(): boolean {
    this.ops++;
    return this.cutAt !== null && this.ops >= this.cutAt;
  }
  read(offset: number, length: number): Uint8Array {
    return this.data.slice(offset, offset + length);
  }
  program(offset: number, bytes: Uint8Array): void {
    if (this.cutting()) {
      const n = Math.floor(this.next() * bytes.length);
      for (let i = 0; i < n; i++) this.data[offset + i] &= bytes[i];
      if (n < bytes.length) this.data[offset + n] &= bytes[n] | Math.floor(this.next() * 256);
      this.cutAt = null;
      throw new PowerCut();
    }
    for (let i = 0; i < bytes.length; i++) this.data[offset + i] &= bytes[i];
  }
  eraseSector(offset: number): void {
    if (offset % SECTOR_SIZE) throw new RangeError('unaligned erase');
    if (this.cutting()) {
      const n = Math.floor(this.next() * SECTOR_SIZE);
      for (let i = 0; i < n; i++) this.data[offset + i] = 0xff;
      for (let i = n; i < SECTOR_SIZE; i += 97) this.data[offset + i] |= Math.floor(this.next() * 256);
      this.cutAt = null;
      throw new PowerCut();
    }
    this.data.fill(0xff, offset, offset + SECTOR_SIZE);
  }
}
