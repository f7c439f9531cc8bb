// Composition of the two play zones of a ticket whose prize is already decided.
import { AMOUNTS_EUR, NUMBERS, PLAYER_COUNT, WINNING_COUNT, type PlayerCell, type Zones } from '../game/rules.ts';
import type { Rng } from './rng.ts';

/** Most matched amounts a prize is made of. */
export const MAX_PARTS = 3;

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

/** Draws `k` distinct items of `pool` (a partial Fisher–Yates on a copy). */
function draw(pool: readonly number[], k: number, rng: Rng): number[] {
  const p = pool.slice();
  for (let i = 0; i < k; i++) {
    const j = i + rng.int(p.length - i);
    const t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  return p.slice(0, k);
}

/**
 * Zones whose outcome (Article 4.3) is exactly `prizeEur`: 0 gives a losing ticket sharing no number
 * between its zones; any other prize is split into 1 … 3 matched amounts, chosen among all the ways.
 * Throws a RangeError for a prize no split of SPH1 amounts reaches.
 */
export function composeZones(prizeEur: number, rng: Rng): Zones {
  let parts: number[] = [];
  if (prizeEur !== 0) {
    const splits = splitsOf(prizeEur);
    if (splits.length === 0) throw new RangeError(`${prizeEur} € cannot be made of 1 to ${MAX_PARTS} amounts`);
    parts = splits[rng.int(splits.length)];
  }
  const winning = draw(NUMBERS, WINNING_COUNT, rng);
  const others = NUMBERS.filter((n) => winning.indexOf(n) < 0);
  const matched = draw(winning, parts.length, rng);
  const unmatched = draw(others, PLAYER_COUNT - parts.length, rng);
  const player: PlayerCell[] = [];
  for (let i = 0; i < parts.length; i++) player.push({ number: matched[i], amountEur: parts[i] });
  // Amounts beside unmatched numbers: any of the table, small ones more often (as printed tickets do).
  for (const n of unmatched) {
    const a = rng.next() < 0.75 ? rng.int(8) : rng.int(AMOUNTS_EUR.length);
    player.push({ number: n, amountEur: AMOUNTS_EUR[a] });
  }
  for (let i = player.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = player[i];
    player[i] = player[j];
    player[j] = t;
  }
  return { winning, player };
}
