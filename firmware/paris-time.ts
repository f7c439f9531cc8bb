// Dates as the French read them (Paris time), for the screens. The offset rule is src/claim.ts's.
import { parisOffsetMinutes } from '../src/claim.ts';

const two = (n: number) => (n < 10 ? '0' : '') + n;

/** `dd/mm/yyyy` in Paris time. */
export function parisDate(ms: number): string {
  const d = new Date(ms + parisOffsetMinutes(ms) * 60000);
  return `${two(d.getUTCDate())}/${two(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}`;
}

/** `dd/mm/yyyy hh:mm` in Paris time. */
export function parisDateTime(ms: number): string {
  const d = new Date(ms + parisOffsetMinutes(ms) * 60000);
  return `${parisDate(ms)} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
}
