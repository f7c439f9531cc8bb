// Claim deadlines of the configured emissions, from src/claim.ts (closing date + 30 days, moved to
// the next working day; claimable until 00:00 Paris time after that day).
import { claimDeadline, dateOfDay, dayNumber, parisMidnightUtc } from '../src/claim.ts';
import type { EmissionConfig } from './config.ts';

/** The instant (UTC ms, exclusive) the claim period of an emission closing on `closingDate` ends. */
export function claimEndMs(closingDate: string): number {
  return parisMidnightUtc(dateOfDay(dayNumber(claimDeadline(closingDate)) + 1));
}

/** Emission → end of its claim period. Dates were validated with the configuration. */
export function deadlines(emissions: readonly EmissionConfig[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const e of emissions) m.set(e.emission, claimEndMs(e.closingDate));
  return m;
}
