// A block of 3 000 000 tickets (Article 2) whose prizes are exactly those of Article 3: a keyed
// permutation gives every ticket number a rank; ranks 0 … 1 003 776 win by tier, largest first.
import { sha256 } from '@noble/hashes/sha2.js';
import { BLOCK_SIZE, type Zones } from '../game/rules.ts';
import { PRIZE_TABLE, type PrizeTable } from '../game/prize-table.ts';
import { makePermutation, type Permutation } from './permutation.ts';
import { Sfc32, reseedMixed } from './rng.ts';
import { utf8Encode } from '../utf8.ts';
import { composeInto, composeZones, type IndexedZones } from './compose.ts';
import { getU32BE } from '../bytes.ts';

/** Default seed of `saphir gen`. */
export const DEFAULT_SEED = 'saphir';

/** Upper rank bounds (exclusive) and the prize of each tier, from the table. */
export function tiersOf(table: PrizeTable = PRIZE_TABLE): { end: number; eur: number }[] {
  const tiers: { end: number; eur: number }[] = [];
  let end = 0;
  for (const r of table.rows) {
    end += r.count;
    tiers.push({ end, eur: r.amountEur });
  }
  return tiers;
}

const TIERS = tiersOf();

/** The prize of a rank (0 for the losing ranks). */
export function prizeOfRank(rank: number): number {
  for (const t of TIERS) if (rank < t.end) return t.eur;
  return 0;
}

function keyOf(domain: string, seed: string, emission: number, block: number): Uint8Array {
  const s = utf8Encode(seed);
  const m = new Uint8Array(domain.length + 1 + s.length + 4);
  for (let i = 0; i < domain.length; i++) m[i] = domain.charCodeAt(i);
  let o = domain.length + 1;
  m.set(s, o);
  o += s.length;
  m[o] = emission >> 8;
  m[o + 1] = emission & 0xff;
  m[o + 2] = block >> 8;
  m[o + 3] = block & 0xff;
  return sha256(m);
}

export interface BlockGenerator {
  readonly seed: string;
  readonly emission: number;
  readonly block: number;
  readonly permutation: Permutation;
  /** The rank a ticket number gets. */
  rankOf(number: number): number;
  prizeOf(number: number): number;
  ticket(number: number): { zones: Zones; prizeEur: number };
  /** `ticket` as indexes into `out` (no allocation but the generator's own); returns the prize. */
  ticketInto(number: number, out: IndexedZones): number;
}

/** Everything a block's tickets derive from; build once per block, then call `ticket` per number. */
export function blockGenerator(seed: string, emission: number, block: number): BlockGenerator {
  const permutation = makePermutation(keyOf('saphir-gen-rank', seed, emission, block), BLOCK_SIZE);
  const ticketKey = keyOf('saphir-gen-ticket', seed, emission, block);
  const words: number[] = [];
  for (let i = 0; i < 4; i++) words.push(getU32BE(ticketKey, 4 * i));
  const rankOf = (n: number) => permutation.forward(n);
  const prizeOf = (n: number) => prizeOfRank(rankOf(n));
  // One generator reseeded for each ticket: a composition uses it up before the next one starts.
  const rng = new Sfc32(0, 0, 0, 0);
  const rngOf = (n: number) => reseedMixed(rng, words, n);
  return {
    seed,
    emission,
    block,
    permutation,
    rankOf,
    prizeOf,
    ticket(number) {
      const prizeEur = prizeOf(number);
      return { zones: composeZones(prizeEur, rngOf(number)), prizeEur };
    },
    ticketInto(number, out) {
      const prizeEur = prizeOf(number);
      composeInto(prizeEur, rngOf(number), out);
      return prizeEur;
    },
  };
}

let last: BlockGenerator | null = null;

/** The ticket `number` of (seed, emission, block): the same whatever range it is generated in. */
export function ticketOf(
  seed: string,
  emission: number,
  block: number,
  number: number,
): { zones: Zones; prizeEur: number } {
  if (!last || last.seed !== seed || last.emission !== emission || last.block !== block) {
    last = blockGenerator(seed, emission, block);
  }
  return last.ticket(number);
}
