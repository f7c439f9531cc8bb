// The hot loop of `saphir gen`: tickets of a range → signed SPH1 lines, written straight into bytes
// (the same output as packBody + encodeTicket, checked by test/game/gen.test.ts, without their strings).
import { BASE45_ALPHABET } from '../../sph1/base45.ts';
import { BODY_LENGTH, FORMAT_VERSION, GAME_SAPHIR, PREFIX, SIGNING_CONTEXT } from '../../sph1/body.ts';
import type { Signer } from '../../crypto/ed25519.ts';
import { indexedZones, type BlockGenerator } from '../../gen/index.ts';

/** "SPH1:" + 159 Base45 characters + LF. */
export const LINE_BYTES = PREFIX.length + 159 + 1;

const ALPHABET = Uint8Array.from(BASE45_ALPHABET, (c) => c.charCodeAt(0));
const PREFIX_BYTES = Uint8Array.from(PREFIX, (c) => c.charCodeAt(0));

export interface SigningKey {
  keyId: number;
  seed: Uint8Array;
}

export class RangeEncoder {
  private readonly msg = new Uint8Array(SIGNING_CONTEXT.length + BODY_LENGTH);
  private readonly b0 = SIGNING_CONTEXT.length;
  private readonly zones = indexedZones();

  constructor(
    private readonly gen: BlockGenerator,
    private readonly key: SigningKey,
    private readonly sign: Signer,
  ) {
    const m = this.msg;
    const o = this.b0;
    m.set(SIGNING_CONTEXT, 0);
    m[o] = FORMAT_VERSION;
    m[o + 1] = GAME_SAPHIR >> 8;
    m[o + 2] = GAME_SAPHIR & 0xff;
    m[o + 3] = gen.emission >> 8;
    m[o + 4] = gen.emission & 0xff;
    m[o + 5] = gen.block >> 8;
    m[o + 6] = gen.block & 0xff;
    m[o + 11] = key.keyId;
  }

  /** The lines of tickets from … from+count-1, in order. */
  encode(from: number, count: number): Uint8Array {
    const out = new Uint8Array(count * LINE_BYTES);
    const m = this.msg;
    const o = this.b0;
    let w = 0;
    for (let n = from; n < from + count; n++) {
      m[o + 7] = n >>> 24;
      m[o + 8] = (n >>> 16) & 0xff;
      m[o + 9] = (n >>> 8) & 0xff;
      m[o + 10] = n & 0xff;
      this.gen.ticketInto(n, this.zones);
      // 26 × 6 bits of number indexes, 20 × 4 bits of amount indexes, 4 zero bits: 30 bytes.
      const { winning, numbers, amounts } = this.zones;
      let acc = 0;
      let bits = 0;
      let p = o + 12;
      for (let i = 0; i < 46; i++) {
        const width = i < 26 ? 6 : 4;
        const v = i < 6 ? winning[i] : i < 26 ? numbers[i - 6] : amounts[i - 26];
        acc = (acc << width) | v;
        bits += width;
        if (bits >= 8) {
          bits -= 8;
          m[p++] = (acc >>> bits) & 0xff;
          acc &= (1 << bits) - 1;
        }
      }
      m[p] = acc << 4; // the last 4 bits of the last amount, then the 4 padding bits
      const sig = this.sign(m, this.key.seed);
      out.set(PREFIX_BYTES, w);
      w += PREFIX_BYTES.length;
      w = base45Pairs(m, o, o + BODY_LENGTH, out, w);
      w = base45Pairs(sig, 0, sig.length, out, w);
      out[w++] = 10;
    }
    return out;
  }
}

/** Base45 of the byte pairs of src[start…end) (an even count), into out at w; returns the new w. */
function base45Pairs(src: Uint8Array, start: number, end: number, out: Uint8Array, w: number): number {
  for (let i = start; i < end; i += 2) {
    let v = src[i] * 256 + src[i + 1];
    const c = v % 45;
    v = (v - c) / 45;
    const d = v % 45;
    out[w] = ALPHABET[c];
    out[w + 1] = ALPHABET[d];
    out[w + 2] = ALPHABET[(v - d) / 45];
    w += 3;
  }
  return w;
}
