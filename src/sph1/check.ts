// SPH1 decoding and verification, checks in the order of docs/sph1.md: the first that fails is the reason.
import { hasDuplicate, outcome, type PlayerCell } from '../game/rules.ts';
import { isPrizeAmount } from '../game/prize-table.ts';
import { BLOCK_SIZE } from '../game/rules.ts';
import { base45Decode, base45DecodedLength } from './base45.ts';
import {
  BODY_LENGTH,
  CODE_BYTES,
  FORMAT_VERSION,
  GAME_SAPHIR,
  PREFIX,
  parseBody,
  signedMessage,
  zonesOf,
  type TicketId,
} from './body.ts';
import type { KeyRing } from './keys.ts';
import type { Verifier } from '../crypto/ed25519.ts';

export const REASONS = [
  'E_PREFIX',
  'E_BASE45',
  'E_LENGTH',
  'E_VERSION',
  'E_GAME',
  'E_KEY',
  'E_SIGNATURE',
  'E_FIELD',
  'E_DUPLICATE_NUMBER',
  'E_PRIZE_NOT_IN_TABLE',
] as const;
export type Reason = (typeof REASONS)[number];
export type Status = 'win' | 'lose' | 'invalid';

export interface CheckResult {
  status: Status;
  /** The prize of a genuine winning ticket; 0 otherwise. */
  prizeEur: number;
  reason: Reason | null;
  /** Present once the code decoded to 106 bytes. */
  ticket?: TicketId;
  /** Present when every number index is in range. */
  winning?: number[];
  player?: PlayerCell[];
  matched?: number[];
}

export interface CheckOptions {
  keys: KeyRing;
  verify: Verifier;
}

const invalid = (reason: Reason, extra?: Partial<CheckResult>): CheckResult => ({
  status: 'invalid',
  prizeEur: 0,
  reason,
  ...extra,
});

/** Checks one code text (transport prefix/suffix already stripped). Never throws. */
export function checkCode(text: string, opts: CheckOptions): CheckResult {
  if (text.length < PREFIX.length || text.slice(0, PREFIX.length) !== PREFIX) return invalid('E_PREFIX');
  const n = base45DecodedLength(text, PREFIX.length);
  if (n < 0) return invalid('E_BASE45');
  if (n !== CODE_BYTES) return invalid('E_LENGTH');
  const bytes = base45Decode(text, PREFIX.length) as Uint8Array;
  const body = bytes.subarray(0, BODY_LENGTH);
  const signature = bytes.subarray(BODY_LENGTH);
  const parsed = parseBody(body);
  const zones = zonesOf(parsed.raw);
  const decoded: Partial<CheckResult> = { ticket: parsed.id };
  if (zones) {
    decoded.winning = zones.winning;
    decoded.player = zones.player;
    decoded.matched = outcome(zones).matched;
  }
  if (parsed.version !== FORMAT_VERSION) return invalid('E_VERSION', decoded);
  if (parsed.id.game !== GAME_SAPHIR) return invalid('E_GAME', decoded);
  const key = opts.keys.get(parsed.id.keyId);
  if (!key) return invalid('E_KEY', decoded);
  if (!opts.verify(signature, signedMessage(body), key)) return invalid('E_SIGNATURE', decoded);
  if (parsed.id.number >= BLOCK_SIZE || !zones || parsed.raw.padding !== 0) return invalid('E_FIELD', decoded);
  if (hasDuplicate(zones.winning) || hasDuplicate(zones.player.map((c) => c.number))) {
    return invalid('E_DUPLICATE_NUMBER', decoded);
  }
  const { prizeEur } = outcome(zones);
  if (prizeEur !== 0 && !isPrizeAmount(prizeEur)) return invalid('E_PRIZE_NOT_IN_TABLE', decoded);
  return { status: prizeEur > 0 ? 'win' : 'lose', prizeEur, reason: null, ...decoded };
}
