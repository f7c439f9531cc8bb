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

class BitReader {
  private bit = 0;
  constructor(
    private readonly bytes: Uint8Array,
    offset: number,
  ) {
    this.bit = offset * 8;
  }
  take(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++, this.bit++) {
      v = (v << 1) | ((this.bytes[this.bit >> 3] >> (7 - (this.bit & 7))) & 1);
    }
    return v;
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

/** Splits a 42-byte body into its fields (no range checks). */
export function parseBody(b: Uint8Array): Body {
  const r = new BitReader(b, 12);
  const take = (count: number, bits: number) => {
    const out: number[] = [];
    for (let i = 0; i < count; i++) out.push(r.take(bits));
    return out;
  };
  const winning = take(WINNING_COUNT, 6);
  const player = take(PLAYER_COUNT, 6);
  const amounts = take(PLAYER_COUNT, 4);
  return {
    version: b[0],
    id: { game: getU16BE(b, 1), emission: getU16BE(b, 3), block: getU16BE(b, 5), number: getU32BE(b, 7), keyId: b[11] },
    raw: { winning, player, amounts, padding: r.take(4) },
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
