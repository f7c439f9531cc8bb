// The shared NOR model (hw-sim/nor-flash.ts) seen as the bootloader's whole-chip NorChip: the
// simulator's own view of it (hw-sim/sim.ts bootChip), under the name the flash tests use.
import { NorFlash, PowerCut, seeded } from '../../hw-sim/nor-flash.ts';

export { NorFlash, PowerCut, seeded };
export { bootChip as norChip } from '../../hw-sim/sim.ts';
