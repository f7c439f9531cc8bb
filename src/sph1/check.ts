// SPH1 decoding and verification, checks in the order of docs/sph1.md: the first that fails is the reason.
import {
  AMOUNTS_EUR,
  NUMBERS,
  PLAYER_COUNT,
  WINNING_COUNT,
  hasDuplicate,
  outcome,
  type PlayerCell,
} from '../game/rules.ts';
import { isPrizeAmount } from '../game/prize-table.ts';
import { BLOCK_SIZE } from '../game/rules.ts';
import { base45DecodeValid, base45DecodedLength } from './base45.ts';
import {
  BODY_LENGTH,
  CODE_BYTES,
  FORMAT_VERSION,
  GAME_SAPHIR,
  PREFIX,
  SIGNING_CONTEXT,
  ZONE_FIELDS,
  parseBody,
  readZones,
  signedMessage,
  zonesOf,
  type TicketId,
} from './body.ts';
import type { KeyRing } from './keys.ts';
import type { Verifier } from '../crypto/ed25519.ts';
import { getU16BE, getU32BE } from '../bytes.ts';

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
  if (!text.startsWith(PREFIX)) return invalid('E_PREFIX');
  const n = base45DecodedLength(text, PREFIX.length);
  if (n < 0) return invalid('E_BASE45');
  if (n !== CODE_BYTES) return invalid('E_LENGTH');
  const bytes = base45DecodeValid(text, PREFIX.length, n);
  const body = bytes.subarray(0, BODY_LENGTH);
  const signature = bytes.subarray(BODY_LENGTH);
  const parsed = parseBody(body);
  const zones = zonesOf(parsed.raw);
  const decoded: Partial<CheckResult> = { ticket: parsed.id };
  let prizeEur = 0;
  if (zones) {
    const o = outcome(zones);
    decoded.winning = zones.winning;
    decoded.player = zones.player;
    decoded.matched = o.matched;
    prizeEur = o.prizeEur;
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
  if (prizeEur !== 0 && !isPrizeAmount(prizeEur)) return invalid('E_PRIZE_NOT_IN_TABLE', decoded);
  return { status: prizeEur > 0 ? 'win' : 'lose', prizeEur, reason: null, ...decoded };
}

/** Buffers `genuinePrize` reuses from code to code. */
export class CheckScratch {
  /** The signing context, then the decoded code: body, signature. */
  private readonly m = new Uint8Array(SIGNING_CONTEXT.length + CODE_BYTES);
  readonly code = this.m.subarray(SIGNING_CONTEXT.length);
  readonly signed = this.m.subarray(0, SIGNING_CONTEXT.length + BODY_LENGTH);
  readonly body = this.code.subarray(0, BODY_LENGTH);
  readonly signature = this.code.subarray(BODY_LENGTH);
  readonly zones = new Uint8Array(ZONE_FIELDS);
  constructor() {
    this.m.set(SIGNING_CONTEXT, 0);
  }
}

/** `genuinePrize` for a code checkCode refuses with E_SIGNATURE (verifying it once is enough). */
export const SIGNATURE_REFUSED = -2;

/**
 * checkCode's verdict on a code given as ASCII bytes, when it is genuine: the prize (0 for a losing
 * ticket), the body left in `s.body`; SIGNATURE_REFUSED when that is checkCode's reason (the body is
 * there too); -1 for any other verdict, whose reason checkCode tells. The same
 * checks as checkCode on indexes rather than objects (NUMBERS has no repeated number, so indexes
 * repeat and match exactly when numbers do), for `saphir audit`'s hot path;
 * test/sph1/genuine-prize.test.ts holds the two to the same answers on mutated and crafted codes.
 */
export function genuinePrize(code: Uint8Array, opts: CheckOptions, s: CheckScratch): number {
  for (let i = 0; i < PREFIX.length; i++) if (code[i] !== PREFIX.charCodeAt(i)) return -1;
  if (base45DecodedLength(code, PREFIX.length) !== CODE_BYTES) return -1;
  base45DecodeValid(code, PREFIX.length, CODE_BYTES, s.code);
  const b = s.body;
  if (b[0] !== FORMAT_VERSION || getU16BE(b, 1) !== GAME_SAPHIR) return -1;
  const key = opts.keys.get(b[11]);
  if (!key) return -1;
  if (!opts.verify(s.signature, s.signed, key)) return SIGNATURE_REFUSED;
  if (getU32BE(b, 7) >= BLOCK_SIZE) return -1;
  const z = s.zones;
  readZones(b, z);
  const P = WINNING_COUNT;
  const A = WINNING_COUNT + PLAYER_COUNT;
  for (let i = 0; i < A; i++) if (z[i] >= NUMBERS.length) return -1;
  if (z[ZONE_FIELDS - 1] !== 0) return -1;
  const winning = z.subarray(0, P);
  if (hasDuplicate(winning) || hasDuplicate(z.subarray(P, A))) return -1;
  let prize = 0;
  for (let k = 0; k < PLAYER_COUNT; k++) if (winning.indexOf(z[P + k]) >= 0) prize += AMOUNTS_EUR[z[A + k]];
  return prize === 0 || isPrizeAmount(prize) ? prize : -1;
}
