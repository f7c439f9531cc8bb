// Tickets for scenarios: generated zones of a chosen prize, signed with the SPH1 test key (or forged
// with another key). The same fields always give the same code, so a ticket can be scanned twice.
import { composeZones, makeRng } from '../src/gen/index.ts';
import { utf8Encode } from '../src/utf8.ts';
import { encodeTicket } from '../src/sph1/encode.ts';
import { TEST_KEY_ID, TEST_KEY_SEED_HEX } from '../src/sph1/keys.ts';
import { fromHex } from '../src/hex.ts';
import { simHost } from './host.ts';
import { isPrizeAmount } from '../src/game/prize-table.ts';

export interface TicketSpec {
  emission: number;
  block: number;
  number: number;
  /** Euros; 0 loses. */
  prize: number;
  /** `test` (default) signs with the published test key; `other` forges with an unknown key. */
  key?: 'test' | 'other';
  /** The key id written in the code (default the test key's, 0). */
  keyId?: number;
}

/** A seed no validator trusts, signing under key id 0: the signature check fails. */
const OTHER_SEED = fromHex('0f'.repeat(32));

export function ticketProblem(t: TicketSpec): string | null {
  if (!Number.isInteger(t.emission) || t.emission < 0 || t.emission > 0xffff) return 'emission must be 0 … 65535';
  if (!Number.isInteger(t.block) || t.block < 0 || t.block > 0xffff) return 'block must be 0 … 65535';
  if (!Number.isInteger(t.number) || t.number < 0 || t.number >= 3_000_000) return 'number must be 0 … 2999999';
  if (t.prize !== 0 && !isPrizeAmount(t.prize)) return `prize ${t.prize} is neither 0 nor an amount of the prize table`;
  if (t.keyId !== undefined && !(Number.isInteger(t.keyId) && t.keyId >= 0 && t.keyId <= 255))
    return 'key id must be 0 … 255';
  return null;
}

export function ticketCode(t: TicketSpec): string {
  const problem = ticketProblem(t);
  if (problem) throw new RangeError(problem);
  const rng = makeRng(utf8Encode(`sim:${t.emission}/${t.block}/${t.number}/${t.prize}`));
  const zones = composeZones(t.prize, rng);
  const seed = t.key === 'other' ? OTHER_SEED : fromHex(TEST_KEY_SEED_HEX);
  return encodeTicket(
    { emission: t.emission, block: t.block, number: t.number, keyId: t.keyId ?? TEST_KEY_ID },
    zones,
    seed,
    simHost().sign,
  );
}
