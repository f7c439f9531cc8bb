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

function swap(a: Uint8Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}

/** Zones as SPH1 indexes (into NUMBERS and AMOUNTS_EUR): what `composeInto` fills, with no allocation. */
export interface IndexedZones {
  /** WINNING_COUNT number indexes. */
  readonly winning: Uint8Array;
  /** The player's PLAYER_COUNT number indexes, and the amount index beside each. */
  readonly numbers: Uint8Array;
  readonly amounts: Uint8Array;
}

export function indexedZones(): IndexedZones {
  return {
    winning: new Uint8Array(WINNING_COUNT),
    numbers: new Uint8Array(PLAYER_COUNT),
    amounts: new Uint8Array(PLAYER_COUNT),
  };
}

const pool = new Uint8Array(NUMBERS.length);
/** 0 … 44: where every composition's pool starts. */
const ALL = Uint8Array.from(pool, (_v, i) => i);

/**
 * Zones whose outcome (Article 4.3) is exactly `prizeEur`: 0 gives a losing ticket sharing no number
 * between its zones; any other prize is split into 1 … 3 matched amounts, chosen among all the ways.
 * Throws a RangeError for a prize no split of SPH1 amounts reaches.
 */
export function composeZones(prizeEur: number, rng: Rng): Zones {
  const z = indexedZones();
  composeInto(prizeEur, rng, z);
  return {
    winning: Array.from(z.winning, (i) => NUMBERS[i]),
    player: Array.from(z.numbers, (n, k): PlayerCell => ({ number: NUMBERS[n], amountEur: AMOUNTS_EUR[z.amounts[k]] })),
  };
}

/** `composeZones` into `out`, as indexes: the same draws from `rng`, the same zones. */
export function composeInto(prizeEur: number, rng: Rng, out: IndexedZones): void {
  let parts: number[] = NO_PARTS;
  if (prizeEur !== 0) {
    const splits = splitsOf(prizeEur);
    if (splits.length === 0) throw new RangeError(`${prizeEur} € cannot be made of 1 to ${MAX_PARTS} amounts`);
    parts = splits[rng.int(splits.length)];
  }
  const k = parts.length;
  const { winning, numbers, amounts } = out;
  // One partial Fisher–Yates over the 45 numbers: slots 0…5 become the winning numbers, the player's
  // unmatched numbers are then drawn from slots 6…44, which hold exactly the other numbers.
  pool.set(ALL);
  for (let i = 0; i < WINNING_COUNT; i++) swap(pool, i, i + rng.int(pool.length - i));
  for (let i = 0; i < WINNING_COUNT; i++) winning[i] = pool[i];
  let p = 0;
  for (; p < k; p++) {
    swap(pool, p, p + rng.int(WINNING_COUNT - p));
    numbers[p] = pool[p];
    amounts[p] = AMOUNTS_EUR.indexOf(parts[p]);
  }
  for (let i = WINNING_COUNT; i < WINNING_COUNT + PLAYER_COUNT - k; i++, p++) {
    swap(pool, i, i + rng.int(pool.length - i));
    // Amounts beside unmatched numbers: any of the table, small ones more often (as printed tickets do).
    amounts[p] = rng.next() < 0.75 ? rng.int(8) : rng.int(AMOUNTS_EUR.length);
    numbers[p] = pool[i];
  }
  for (let i = PLAYER_COUNT - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    swap(numbers, i, j);
    swap(amounts, i, j);
  }
}
