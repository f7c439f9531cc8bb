// Claim deadlines of the configured emissions, from src/claim.ts (closing date + 30 days, moved to
// the next working day; claimable until 00:00 Paris time after that day).
import { claimEndMs } from '../src/claim.ts';
import type { EmissionConfig } from '../src/config.ts';

export { claimEndMs };

/** Emission → end of its claim period. Dates were validated with the configuration. */
export function deadlines(emissions: readonly EmissionConfig[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const e of emissions) m.set(e.emission, claimEndMs(e.closingDate));
  return m;
}
