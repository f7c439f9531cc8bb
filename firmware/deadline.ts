// Claim deadlines of the configured emissions. The rule (regulation): a prize can be claimed until 30
// days after the emission's closing date, moved to the next working day when that day is a Sunday or
// a French public holiday.
// INTERIM: src/claim.ts (ledger/claim engineer) owns this rule; switch to it when it lands.
import type { EmissionConfig } from './config.ts';
import { parisOffsetMs } from './paris-time.ts';

const DAY = 86400_000;

/** Easter Sunday (Gregorian, anonymous algorithm), as a UTC midnight. */
function easter(y: number): number {
  const a = y % 19, b = Math.floor(y / 100), c = y % 100, d = Math.floor(b / 4), e = b % 4;
  const f = Math.floor((b + 8) / 25), g = Math.floor((b - f + 1) / 3), h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4), k = c % 4, l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31), day = ((h + l - 7 * m + 114) % 31) + 1;
  return Date.UTC(y, month - 1, day);
}

/** French public holidays of year `y` (metropolitan), as UTC midnights. */
export function holidays(y: number): number[] {
  const e = easter(y);
  return [
    Date.UTC(y, 0, 1), e + DAY, Date.UTC(y, 4, 1), Date.UTC(y, 4, 8), e + 39 * DAY, e + 50 * DAY,
    Date.UTC(y, 6, 14), Date.UTC(y, 7, 15), Date.UTC(y, 10, 1), Date.UTC(y, 10, 11), Date.UTC(y, 11, 25),
  ];
}

/** The last claim day of an emission closing on `closingDate` (`YYYY-MM-DD`), as a UTC midnight. */
export function lastClaimDay(closingDate: string): number {
  const [y, m, d] = closingDate.split('-').map(Number);
  let day = Date.UTC(y, m - 1, d) + 30 * DAY;
  for (;;) {
    const dt = new Date(day);
    if (dt.getUTCDay() !== 0 && holidays(dt.getUTCFullYear()).indexOf(day) < 0) return day;
    day += DAY;
  }
}

/** The instant (ms, exclusive) the claim period ends: midnight Paris time after the last claim day. */
export function claimDeadlineMs(closingDate: string): number {
  const midnightUtc = lastClaimDay(closingDate) + DAY;
  return midnightUtc - parisOffsetMs(midnightUtc - 2 * 3600_000);
}

export function deadlines(emissions: readonly EmissionConfig[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const e of emissions) m.set(e.emission, claimDeadlineMs(e.closingDate));
  return m;
}
