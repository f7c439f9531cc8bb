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
import { base45DecodeGroups, base45DecodeValid, base45DecodedLength } from './base45.ts';
import {
  BODY_LENGTH,
  CODE_BYTES,
  FORMAT_VERSION,
  GAME_SAPHIR,
  PREFIX,
  SIGNING_CONTEXT,
  parseBody,
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

/** The length of a code's text: the prefix and 159 Base45 characters. */
export const CODE_TEXT_LENGTH = PREFIX.length + (CODE_BYTES / 2) * 3;

/** Buffers `genuinePrize` reuses from code to code. */
export class CheckScratch {
  /** The signing context, then the decoded code: body, signature. */
  private readonly m = new Uint8Array(SIGNING_CONTEXT.length + CODE_BYTES);
  readonly code = this.m.subarray(SIGNING_CONTEXT.length);
  readonly signed = this.m.subarray(0, SIGNING_CONTEXT.length + BODY_LENGTH);
  readonly body = this.code.subarray(0, BODY_LENGTH);
  readonly signature = this.code.subarray(BODY_LENGTH);
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
export function genuinePrize(
  code: Uint8Array,
  opts: CheckOptions,
  s: CheckScratch,
  start = 0,
  end = code.length,
): number {
  // Only 159 Base45 characters decode to the 106 bytes of a code (any other length is E_BASE45 or
  // E_LENGTH); one pass decodes them, refusing what base45DecodedLength refuses.
  if (end - start !== CODE_TEXT_LENGTH) return -1;
  for (let i = 0; i < PREFIX.length; i++) if (code[start + i] !== PREFIX.charCodeAt(i)) return -1;
  if (!base45DecodeGroups(code, start + PREFIX.length, end, s.code)) return -1;
  const b = s.body;
  if (b[0] !== FORMAT_VERSION || getU16BE(b, 1) !== GAME_SAPHIR) return -1;
  const key = opts.keys.get(b[11]);
  if (!key) return -1;
  if (!opts.verify(s.signature, s.signed, key)) return SIGNATURE_REFUSED;
  if (getU32BE(b, 7) >= BLOCK_SIZE) return -1;
  // The zone fields read in one pass (readZones' order, MSB first from byte 12), each zone's numbers
  // kept as a set of bits (indexes < 45: two 32-bit words) to find repeats and matches: any index out
  // of range, repeat or padding is E_FIELD or E_DUPLICATE_NUMBER, -1 here whichever comes first.
  let acc = 0;
  let have = 0;
  let p = 12;
  let win0 = 0;
  let win1 = 0;
  let own0 = 0;
  let own1 = 0;
  /** Bit k set when the player's k-th number is a winning one. */
  let matched = 0;
  for (let i = 0; i < WINNING_COUNT + PLAYER_COUNT; i++) {
    if (have < 6) {
      acc = ((acc & 0xff) << 8) | b[p++];
      have += 8;
    }
    have -= 6;
    const x = (acc >>> have) & 63;
    if (x >= NUMBERS.length) return -1;
    const bit = 1 << (x & 31);
    if (i < WINNING_COUNT) {
      if (x < 32 ? win0 & bit : win1 & bit) return -1;
      if (x < 32) win0 |= bit;
      else win1 |= bit;
    } else {
      if (x < 32 ? own0 & bit : own1 & bit) return -1;
      if (x < 32) own0 |= bit;
      else own1 |= bit;
      if (x < 32 ? win0 & bit : win1 & bit) matched |= 1 << (i - WINNING_COUNT);
    }
  }
  let prize = 0;
  for (let k = 0; k <= PLAYER_COUNT; k++) {
    if (have < 4) {
      acc = ((acc & 0xff) << 8) | b[p++];
      have += 8;
    }
    have -= 4;
    const a = (acc >>> have) & 15;
    // The 21st field is the padding.
    if (k === PLAYER_COUNT) {
      if (a !== 0) return -1;
    } else if (matched & (1 << k)) prize += AMOUNTS_EUR[a];
  }
  return prize === 0 || isPrizeAmount(prize) ? prize : -1;
}
