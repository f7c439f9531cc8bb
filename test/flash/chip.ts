// The shared NOR model (hw-sim/nor-flash.ts) seen as the bootloader's whole-chip NorChip.
import { BLOCK64, NorFlash, PowerCut, seeded } from '../../hw-sim/nor-flash.ts';
import { SECTOR_SIZE } from '../../hw-sim/layout.ts';
import type { NorChip } from '../../hw-sim/bootloader.ts';

export { NorFlash, PowerCut, seeded };

export function norChip(nor: NorFlash): NorChip {
  return {
    read: (o, l) => nor.read(o, l),
    program: (o, b) => nor.write(b, o),
    eraseSector: (o) => nor.eraseBlock(o / SECTOR_SIZE),
    eraseBlock64: (o) => nor.eraseBlock64(o / BLOCK64),
    busyMs: () => nor.counters.busyMs,
  };
}
