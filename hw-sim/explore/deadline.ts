// The claim deadline as the explorer's model knows it, written from the rule (docs/ledger.md, *The claim
// deadline*), not from src/claim.ts: a prize is claimable through the end, Paris time, of the 30th day
// after the emission's closing date, that day moved on while it is a Sunday or a French public holiday.
// Its own Easter (Oudin's algorithm, not Meeus/Jones/Butcher) and its own Paris time (the ICU time-zone
// database through Intl, not the EU rule), so one mistake in both is unlikely.

const DAY = 86_400_000;
/** Days from the closing date to the last day of the claim period (before the shift). */
export const CLAIM_PERIOD_DAYS = 30;

const PARIS = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Paris',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** Days since 1970-01-01 of a calendar date. */
function dayOf(y: number, m: number, d: number): number {
  return new Date(0).setUTCFullYear(y, m - 1, d) / DAY;
}

/** Easter Sunday (Gregorian) as [month, day]: Oudin's algorithm, integer divisions. */
export function easter(y: number): [number, number] {
  const g = y % 19;
  const c = Math.floor(y / 100);
  const h = (c - Math.floor(c / 4) - Math.floor((8 * c + 13) / 25) + 19 * g + 15) % 30;
  const i = h - Math.floor(h / 28) * (1 - Math.floor(h / 28) * Math.floor(29 / (h + 1)) * Math.floor((21 - g) / 11));
  const j = (y + Math.floor(y / 4) + i + 2 - c + Math.floor(c / 4)) % 7;
  const l = i - j;
  const month = 3 + Math.floor((l + 40) / 44);
  return [month, l + 28 - 31 * Math.floor(month / 4)];
}

/** The day numbers of France's eleven national public holidays in year `y`. */
function holidays(y: number): Set<number> {
  const e = dayOf(y, ...easter(y));
  const fixed: [number, number][] = [
    [1, 1], // New Year
    [5, 1], // Labour Day
    [5, 8], // Victory in Europe
    [7, 14], // Bastille Day
    [8, 15], // Assumption
    [11, 1], // All Saints
    [11, 11], // Armistice
    [12, 25], // Christmas
  ];
  return new Set([...fixed.map(([m, d]) => dayOf(y, m, d)), e + 1, e + 39, e + 50]);
}

/** The last day of the claim period of an emission closed on `closingDate` ('YYYY-MM-DD'), as 'YYYY-MM-DD'. */
export function lastClaimDay(closingDate: string): string {
  const [y, m, d] = closingDate.split('-').map(Number);
  let n = dayOf(y, m, d) + CLAIM_PERIOD_DAYS;
  for (;;) {
    const t = new Date(n * DAY);
    const sunday = t.getUTCDay() === 0;
    if (!sunday && !holidays(t.getUTCFullYear()).has(n)) return t.toISOString().slice(0, 10);
    n++;
  }
}

/** The Paris wall clock of an instant, 'YYYY-MM-DD HH:MM'. */
function parisWall(ms: number): string {
  const p = Object.fromEntries(PARIS.formatToParts(ms).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

/** The UTC instant of 00:00 in Paris on `date` (Paris is one or two hours ahead of UTC). */
function parisMidnight(date: string): number {
  const utc = Date.parse(`${date}T00:00:00Z`);
  for (const h of [1, 2]) if (parisWall(utc - h * 3_600_000) === `${date} 00:00`) return utc - h * 3_600_000;
  throw new Error(`no Paris midnight on ${date}`);
}

/** The instant (UTC ms) the claim period of an emission closed on `closingDate` ends: from then, nothing is payable. */
export function claimEndMs(closingDate: string): number {
  const last = lastClaimDay(closingDate);
  return parisMidnight(new Date(Date.parse(`${last}T00:00:00Z`) + DAY).toISOString().slice(0, 10));
}
