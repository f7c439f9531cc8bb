// The 42-byte SPH1 body: fixed fields, then the two zones bit-packed MSB first (docs/sph1.md).
import { AMOUNTS_EUR, NUMBERS, PLAYER_COUNT, WINNING_COUNT, type Zones } from '../game/rules.ts';
import { getU16BE, getU32BE, putU16BE, putU32BE } from '../bytes.ts';

export const BODY_LENGTH = 42;
export const SIGNATURE_LENGTH = 64;
export const CODE_BYTES = BODY_LENGTH + SIGNATURE_LENGTH;
export const FORMAT_VERSION = 1;
export const GAME_SAPHIR = 0x0250;
export const PREFIX = 'SPH1:';
/** ASCII "SAPHIR-TICKET-V1": the signature covers this followed by the body. */
export const SIGNING_CONTEXT = new Uint8Array([
  0x53, 0x41, 0x50, 0x48, 0x49, 0x52, 0x2d, 0x54, 0x49, 0x43, 0x4b, 0x45, 0x54, 0x2d, 0x56, 0x31,
]);

export interface TicketId {
  game: number;
  emission: number;
  block: number;
  number: number;
  keyId: number;
}

/** The raw zone fields: indexes, not yet mapped to numbers and euros. */
export interface RawZones {
  winning: number[];
  player: number[];
  amounts: number[];
  padding: number;
}

export interface Body {
  version: number;
  id: TicketId;
  raw: RawZones;
}

/** MSB-first bit fields of at most 24 bits, a byte at a time. */
class BitReader {
  private pos: number;
  private acc = 0;
  private have = 0;
  constructor(
    private readonly bytes: Uint8Array,
    offset: number,
  ) {
    this.pos = offset;
  }
  take(n: number): number {
    while (this.have < n) {
      this.acc = (this.acc << 8) | this.bytes[this.pos++];
      this.have += 8;
    }
    this.have -= n;
    return (this.acc >>> this.have) & ((1 << n) - 1);
  }
}

class BitWriter {
  private bit = 0;
  constructor(
    private readonly bytes: Uint8Array,
    offset: number,
  ) {
    this.bit = offset * 8;
  }
  put(n: number, v: number): void {
    for (let i = n - 1; i >= 0; i--, this.bit++) {
      if ((v >> i) & 1) this.bytes[this.bit >> 3] |= 0x80 >> (this.bit & 7);
    }
  }
}

/** Zone fields of a body: 6 winning and 20 player number indexes, 20 amount indexes, the padding. */
export const ZONE_FIELDS = WINNING_COUNT + 2 * PLAYER_COUNT + 1;

/** The zone fields of a body, in that order, into `out` (no range checks, no allocation). */
export function readZones(b: Uint8Array, out: Uint8Array): void {
  const r = new BitReader(b, 12);
  let i = 0;
  for (; i < WINNING_COUNT + PLAYER_COUNT; i++) out[i] = r.take(6);
  for (; i < ZONE_FIELDS; i++) out[i] = r.take(4);
}

export function idOf(b: Uint8Array): TicketId {
  return {
    game: getU16BE(b, 1),
    emission: getU16BE(b, 3),
    block: getU16BE(b, 5),
    number: getU32BE(b, 7),
    keyId: b[11],
  };
}

/** Splits a 42-byte body into its fields (no range checks). */
export function parseBody(b: Uint8Array): Body {
  const f = new Uint8Array(ZONE_FIELDS);
  readZones(b, f);
  const list = (from: number, count: number) => Array.from(f.subarray(from, from + count));
  return {
    version: b[0],
    id: idOf(b),
    raw: {
      winning: list(0, WINNING_COUNT),
      player: list(WINNING_COUNT, PLAYER_COUNT),
      amounts: list(WINNING_COUNT + PLAYER_COUNT, PLAYER_COUNT),
      padding: f[ZONE_FIELDS - 1],
    },
  };
}

/** Maps raw indexes to numbers and euros; null if a number index is out of range. */
export function zonesOf(raw: RawZones): Zones | null {
  if (raw.winning.some((i) => i >= NUMBERS.length) || raw.player.some((i) => i >= NUMBERS.length)) return null;
  return {
    winning: raw.winning.map((i) => NUMBERS[i]),
    player: raw.player.map((i, k) => ({ number: NUMBERS[i], amountEur: AMOUNTS_EUR[raw.amounts[k]] })),
  };
}

/** Packs a body. Numbers and euros must belong to the lists of docs/sph1.md. */
export function packBody(
  id: Omit<TicketId, 'game'> & { game?: number },
  zones: Zones,
  version = FORMAT_VERSION,
): Uint8Array {
  const b = new Uint8Array(BODY_LENGTH);
  const game = id.game ?? GAME_SAPHIR;
  b[0] = version;
  putU16BE(b, 1, game);
  putU16BE(b, 3, id.emission);
  putU16BE(b, 5, id.block);
  putU32BE(b, 7, id.number);
  b[11] = id.keyId;
  const w = new BitWriter(b, 12);
  const index = (n: number) => {
    const i = NUMBERS.indexOf(n);
    if (i < 0) throw new RangeError(`${n} is not a SAPHIR number`);
    return i;
  };
  for (const n of zones.winning) w.put(6, index(n));
  for (const c of zones.player) w.put(6, index(c.number));
  for (const c of zones.player) {
    const a = AMOUNTS_EUR.indexOf(c.amountEur);
    if (a < 0) throw new RangeError(`${c.amountEur} € is not a SAPHIR amount`);
    w.put(4, a);
  }
  return b;
}

export function signedMessage(body: Uint8Array): Uint8Array {
  const m = new Uint8Array(SIGNING_CONTEXT.length + body.length);
  m.set(SIGNING_CONTEXT, 0);
  m.set(body, SIGNING_CONTEXT.length);
  return m;
}
