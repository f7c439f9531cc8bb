// French legal time (Europe/Paris) without a time-zone database: CET (UTC+1), and CEST (UTC+2) from
// the last Sunday of March 01:00 UTC to the last Sunday of October 01:00 UTC (EU rule since 1996).

const HOUR = 3600_000;

function lastSundayUtc(year: number, month: number): number {
  const lastDay = Date.UTC(year, month + 1, 0);
  return lastDay - new Date(lastDay).getUTCDay() * 24 * HOUR;
}

/** Offset of Paris time from UTC at instant `ms`, in ms. */
export function parisOffsetMs(ms: number): number {
  const y = new Date(ms).getUTCFullYear();
  const start = lastSundayUtc(y, 2) + HOUR;
  const end = lastSundayUtc(y, 9) + HOUR;
  return ms >= start && ms < end ? 2 * HOUR : HOUR;
}

const two = (n: number) => (n < 10 ? '0' : '') + n;

/** `dd/mm/yyyy` in Paris time. */
export function parisDate(ms: number): string {
  const d = new Date(ms + parisOffsetMs(ms));
  return `${two(d.getUTCDate())}/${two(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}`;
}

/** `dd/mm/yyyy hh:mm` in Paris time. */
export function parisDateTime(ms: number): string {
  const d = new Date(ms + parisOffsetMs(ms));
  return `${parisDate(ms)} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
}
