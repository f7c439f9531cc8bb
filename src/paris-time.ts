// Dates as the French read them (screens, receipts, the simulator's ledger view): the Paris calendar
// of claim.ts in French order. Portable.
import { parisDate, parisOffsetMinutes } from './claim.ts';

const two = (n: number) => (n < 10 ? '0' : '') + n;

/** `dd/mm/yyyy` in Paris time. */
export function frenchDate(ms: number): string {
  const [y, m, d] = parisDate(ms).split('-');
  return `${d}/${m}/${y}`;
}

/** `dd/mm/yyyy hh:mm` in Paris time. */
export function frenchDateTime(ms: number): string {
  const t = ms + parisOffsetMinutes(ms) * 60000;
  const min = Math.floor((t - Math.floor(t / 86_400_000) * 86_400_000) / 60000);
  return `${frenchDate(ms)} ${two(Math.floor(min / 60))}:${two(min % 60)}`;
}
