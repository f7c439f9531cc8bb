// Claim deadlines of the configured emissions, from src/claim.ts (closing date + 30 days, moved to
// the next working day; claimable until 00:00 Paris time after that day). An emission still on sale (no
// closing date) has none: `null`, never a number (docs/operations.md).
import { claimEndMs } from '../src/claim.ts';
import type { EmissionConfig } from '../src/config.ts';

export { claimEndMs };

/** End of a claim period (ms, exclusive), or null: on sale, no deadline until its closing notice. */
export type Deadline = number | null;

/**
 * Emission → end of its claim period (null while on sale); `holidays`: a notice's extra non-working
 * days. Dates were validated with the configuration or the notice.
 */
export function deadlines(
  emissions: readonly EmissionConfig[],
  holidays: readonly string[] = [],
): Map<number, Deadline> {
  const m = new Map<number, Deadline>();
  for (const e of emissions)
    m.set(e.emission, e.closingDate === undefined ? null : claimEndMs(e.closingDate, holidays));
  return m;
}

/** Whether a claim period has ended at `nowMs`: never while on sale (null). */
export const ended = (d: Deadline, nowMs: number) => d !== null && nowMs >= d;
