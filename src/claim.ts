// The claim deadline of an emission: French public holidays, the deadline day, and whether a prize
// can still be claimed at a given instant (Paris time). Pure date arithmetic on 'YYYY-MM-DD'
// strings and UTC milliseconds; no time-zone database, no locale parsing. Portable.

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Days between an emission's closing date and its claim deadline. */
export const CLAIM_DAYS = 30;

/** Days since 1970-01-01 of a 'YYYY-MM-DD' date, or NaN if it is not a real calendar date. */
export function dayNumber(date: string): number {
  const m = typeof date === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(date) : null;
  if (!m) return NaN;
  const y = +m[1],
    mo = +m[2],
    d = +m[3];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return NaN;
  return day(y, mo, d);
}

/**
 * A 'YYYY-MM-DD' that is a real calendar date in the years the claim rules can compute (1583…9998:
 * the Gregorian calendar, Easter, a deadline before year 10000). The one date check of configurations
 * and scenarios.
 */
export function isDate(s: unknown): s is string {
  if (typeof s !== 'string' || Number.isNaN(dayNumber(s))) return false;
  const y = +s.slice(0, 4);
  return y >= 1583 && y <= 9998;
}

/** 'YYYY-MM-DD' of a day number. */
export function dateOfDay(day: number): string {
  const [y, m, d] = civil(day);
  return `${y < 1000 ? String(y).padStart(4, '0') : y}-${pad(m)}-${pad(d)}`;
}

// The proleptic Gregorian calendar by arithmetic (H. Hinnant's days_from_civil and civil_from_days),
// not Date: the device's engine is built without it (hw-sim/qjs-host.ts DEVICE_INTRINSICS).

/** [year, month 1…12, day 1…31] of a day number (days since 1970-01-01; a fraction is dropped). */
function civil(dayNum: number): [number, number, number] {
  const z = Math.floor(dayNum) + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, doy - Math.floor((153 * mp + 2) / 5) + 1];
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function daysInMonth(y: number, m: number): number {
  return m === 2
    ? (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
      ? 29
      : 28
    : [31, 0, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

/** Days since 1970-01-01 of year `y`, month `m` (1…12), day `d` (a day 0 or past the month's end counts on). */
function day(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

function checkedDay(date: string, what: string): number {
  const n = dayNumber(date);
  if (Number.isNaN(n)) throw new RangeError(`${what}: '${String(date)}' is not a date YYYY-MM-DD`);
  return n;
}

/** Easter Sunday of a Gregorian year (anonymous Gregorian algorithm, Meeus/Jones/Butcher). */
export function easterSunday(year: number): string {
  if (!Number.isInteger(year) || year < 1583 || year > 9999)
    throw new RangeError(`easterSunday: year ${year} outside 1583…9999`);
  const a = year % 19;
  const b = Math.floor(year / 100),
    c = year % 100;
  const d = Math.floor(b / 4),
    e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4),
    k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const dayOfMonth = ((h + l - 7 * m + 114) % 31) + 1;
  return dateOfDay(day(year, month, dayOfMonth));
}

/**
 * The eleven national public holidays of France (Code du travail, L3133-1) in a year, sorted:
 * 1 Jan, Easter Monday, 1 May, 8 May, Ascension, Whit Monday, 14 Jul, 15 Aug, 1 Nov, 11 Nov,
 * 25 Dec. Alsace-Moselle's two extra days (Good Friday, 26 Dec) are not national and not included.
 */
export function publicHolidays(year: number): string[] {
  const easter = checkedDay(easterSunday(year), 'publicHolidays');
  const days = [
    day(year, 1, 1),
    easter + 1,
    day(year, 5, 1),
    day(year, 5, 8),
    easter + 39,
    easter + 50,
    day(year, 7, 14),
    day(year, 8, 15),
    day(year, 11, 1),
    day(year, 11, 11),
    day(year, 12, 25),
  ];
  return days.sort((x, y) => x - y).map(dateOfDay);
}

export function isPublicHoliday(date: string): boolean {
  const n = checkedDay(date, 'isPublicHoliday');
  return publicHolidays(+date.slice(0, 4)).includes(dateOfDay(n));
}

/**
 * Monday to Saturday, unless a public holiday (Saturday is a working day for retail) or one of `extra`
 * (an operator notice's holidays, e.g. an overseas department's, 'YYYY-MM-DD').
 */
export function isWorkingDay(date: string, extra: readonly string[] = []): boolean {
  const n = checkedDay(date, 'isWorkingDay');
  return weekday(n) !== 0 && !isPublicHoliday(date) && extra.indexOf(date) < 0;
}

/** 0 = Sunday … 6 = Saturday. */
function weekday(dayNum: number): number {
  return (((dayNum + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
}

/**
 * The last day a prize of an emission closed on `closingDate` can be claimed: 30 days after it,
 * moved to the next day while that day is a Sunday, a public holiday or one of `extra`. Throws
 * RangeError for a date that is not 'YYYY-MM-DD'.
 */
export function claimDeadline(closingDate: string, extra: readonly string[] = []): string {
  let n = checkedDay(closingDate, 'claimDeadline') + CLAIM_DAYS;
  while (!isWorkingDay(dateOfDay(n), extra)) n++;
  return dateOfDay(n);
}

/** Last Sunday of a month, as a day number. */
function lastSunday(year: number, month: number): number {
  const last = day(year, month, daysInMonth(year, month));
  return last - weekday(last);
}

/**
 * Offset of Paris from UTC at an instant, in minutes: +120 from the last Sunday of March 01:00 UTC
 * to the last Sunday of October 01:00 UTC (EU rule since 1996), else +60.
 */
export function parisOffsetMinutes(utcMs: number): number {
  const year = civil(utcMs / DAY_MS)[0];
  const start = lastSunday(year, 3) * DAY_MS + HOUR_MS;
  const end = lastSunday(year, 10) * DAY_MS + HOUR_MS;
  return utcMs >= start && utcMs < end ? 120 : 60;
}

/** The Paris calendar date at an instant. */
export function parisDate(utcMs: number): string {
  return dateOfDay(Math.floor((utcMs + parisOffsetMinutes(utcMs) * 60_000) / DAY_MS));
}

/** The UTC instant of 00:00 Paris time on a day (never inside a DST change, which is at 02:00/03:00). */
export function parisMidnightUtc(date: string): number {
  const local = checkedDay(date, 'parisMidnightUtc') * DAY_MS;
  return local - parisOffsetMinutes(local - HOUR_MS) * 60_000;
}

/**
 * True while a prize of an emission closed on `closingDate` can be claimed at `nowMs`: through the
 * end of the deadline day in Paris time (the regulation's time; the device clock is UTC), i.e.
 * until 00:00 Paris of the next day, excluded.
 */
export function isClaimable(closingDate: string, nowMs: number, extra: readonly string[] = []): boolean {
  if (typeof nowMs !== 'number' || !Number.isFinite(nowMs))
    throw new RangeError('isClaimable: nowMs must be a time in ms');
  return nowMs < claimEndMs(closingDate, extra);
}

/** The instant (UTC ms, exclusive) the claim period of an emission closing on `closingDate` ends. */
export function claimEndMs(closingDate: string, extra: readonly string[] = []): number {
  return parisMidnightUtc(dateOfDay(checkedDay(claimDeadline(closingDate, extra), 'claimEndMs') + 1));
}
