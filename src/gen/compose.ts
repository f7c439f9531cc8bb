// Composition of the two play zones of a ticket whose prize is already decided.
import { AMOUNTS_EUR, NUMBERS, PLAYER_COUNT, WINNING_COUNT, type PlayerCell, type Zones } from '../game/rules.ts';
import type { Rng } from './rng.ts';

/** Most matched amounts a prize is made of. */
export const MAX_PARTS = 3;

const NO_PARTS: number[] = [];
const splitCache = new Map<number, number[][]>();

/** Every multiset of 1 … 3 SPH1 amounts adding up to `eur` (amounts in decreasing order). */
export function splitsOf(eur: number): number[][] {
  let s = splitCache.get(eur);
  if (s) return s;
  s = [];
  const a = AMOUNTS_EUR;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === eur) s.push([a[i]]);
    for (let j = 0; j <= i; j++) {
      if (a[i] + a[j] === eur) s.push([a[i], a[j]]);
      for (let k = 0; k <= j; k++) if (a[i] + a[j] + a[k] === eur) s.push([a[i], a[j], a[k]]);
    }
  }
  splitCache.set(eur, s);
  return s;
}

function swap<T>(a: T[], i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}

/**
 * Zones whose outcome (Article 4.3) is exactly `prizeEur`: 0 gives a losing ticket sharing no number
 * between its zones; any other prize is split into 1 … 3 matched amounts, chosen among all the ways.
 * Throws a RangeError for a prize no split of SPH1 amounts reaches.
 */
export function composeZones(prizeEur: number, rng: Rng): Zones {
  let parts: number[] = NO_PARTS;
  if (prizeEur !== 0) {
    const splits = splitsOf(prizeEur);
    if (splits.length === 0) throw new RangeError(`${prizeEur} € cannot be made of 1 to ${MAX_PARTS} amounts`);
    parts = splits[rng.int(splits.length)];
  }
  const k = parts.length;
  // One partial Fisher–Yates over the 45 numbers: slots 0…5 become the winning numbers, the player's
  // unmatched numbers are then drawn from slots 6…44, which hold exactly the other numbers.
  const pool = NUMBERS.slice();
  for (let i = 0; i < WINNING_COUNT; i++) swap(pool, i, i + rng.int(NUMBERS.length - i));
  const winning = pool.slice(0, WINNING_COUNT);
  const player: PlayerCell[] = [];
  for (let i = 0; i < k; i++) {
    swap(pool, i, i + rng.int(WINNING_COUNT - i));
    player.push({ number: pool[i], amountEur: parts[i] });
  }
  for (let i = WINNING_COUNT; i < WINNING_COUNT + PLAYER_COUNT - k; i++) {
    swap(pool, i, i + rng.int(NUMBERS.length - i));
    // Amounts beside unmatched numbers: any of the table, small ones more often (as printed tickets do).
    const a = rng.next() < 0.75 ? rng.int(8) : rng.int(AMOUNTS_EUR.length);
    player.push({ number: pool[i], amountEur: AMOUNTS_EUR[a] });
  }
  for (let i = player.length - 1; i > 0; i--) swap(player, i, rng.int(i + 1));
  return { winning, player };
}
