// genuinePrize (audit's hot path, on bytes and indexes) gives checkCode's verdict: the same prize and
// ticket for a genuine code, SIGNATURE_REFUSED exactly when checkCode says E_SIGNATURE, -1 for every
// other refusal. Mutated genuine codes, and crafted bodies signed with the test key so that the checks
// after the signature (fields, padding, duplicates, prizes outside the table) are reached.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { CheckScratch, SIGNATURE_REFUSED, checkCode, genuinePrize } from '../../src/sph1/check.ts';
import { BODY_LENGTH, idOf, packBody, signedMessage } from '../../src/sph1/body.ts';
import { codeText } from '../../src/sph1/encode.ts';
import { BASE45_ALPHABET } from '../../src/sph1/base45.ts';
import { AMOUNTS_EUR, BLOCK_SIZE, NUMBERS } from '../../src/game/rules.ts';
import { TEST_KEY_SEED_HEX, testKeyRing } from '../../src/sph1/keys.ts';
import { blockGenerator } from '../../src/gen/index.ts';
import { fromHex } from '../../src/hex.ts';
import { hostVerify, nodeSign } from '../../tools/node-crypto.ts';
import { RangeEncoder } from '../../host/workers/gen-core.ts';

const seed = fromHex(TEST_KEY_SEED_HEX);
const opts = { keys: testKeyRing(), verify: hostVerify };
const scratch = new CheckScratch();
const verdicts = new Map<string, number>();

function agree(text: string): void {
  const r = checkCode(text, opts);
  const g = genuinePrize(Buffer.from(text, 'latin1'), opts, scratch);
  const what = r.reason ?? 'genuine';
  verdicts.set(what, (verdicts.get(what) ?? 0) + 1);
  if (r.status !== 'invalid') {
    assert.is(g, r.prizeEur, text);
    assert.equal(idOf(scratch.body), r.ticket, text);
  } else if (r.reason === 'E_SIGNATURE') {
    assert.is(g, SIGNATURE_REFUSED, text);
    assert.equal(idOf(scratch.body), r.ticket, text);
  } else assert.is(g, -1, `${text}: ${r.reason}`);
}

// Genuine codes with every kind of prize the first 1 000 tickets of a block hold.
const codes = Buffer.from(new RangeEncoder(blockGenerator('agree', 1, 1), { keyId: 0, seed }, nodeSign).encode(0, 1000))
  .toString('latin1')
  .trimEnd()
  .split('\n');

test('genuine codes: the same prize and ticket', () => {
  for (const c of codes) agree(c);
  assert.ok(codes.some((c) => checkCode(c, opts).prizeEur > 0));
});

test('mutated codes (replaced, inserted, deleted characters, any byte): the same verdict', () => {
  const chars = BASE45_ALPHABET + 'a\t\x00\x7f\x80\xe9\xff';
  fc.assert(
    fc.property(
      fc.nat(codes.length - 1),
      fc.nat(170),
      fc.constantFrom('replace', 'insert', 'delete', 'truncate'),
      fc.nat(chars.length - 1),
      (n, at, how, ci) => {
        const c = codes[n];
        const i = at % (c.length + 1);
        const ch = chars[ci];
        const text =
          how === 'replace'
            ? c.slice(0, i) + ch + c.slice(i + 1)
            : how === 'insert'
              ? c.slice(0, i) + ch + c.slice(i)
              : how === 'delete'
                ? c.slice(0, i) + c.slice(i + 1)
                : c.slice(0, i);
        agree(text);
      },
    ),
    { numRuns: 500 },
  );
});

/** A body with the given zone indexes (any 6-bit value; numbers may repeat), signed with the test key. */
function crafted(
  winning: number[],
  player: number[],
  amounts: number[],
  o: { number: number; padding: number; version: number; keyId: number; flip: number },
): string {
  const body = packBody(
    { emission: 1, block: 2, number: o.number, keyId: o.keyId },
    { winning: [], player: [] },
    o.version,
  );
  // The zones bit by bit, MSB first from byte 12 (packBody takes only numbers of the game).
  let bit = 12 * 8;
  const put = (width: number, v: number) => {
    for (let i = width - 1; i >= 0; i--, bit++) if ((v >> i) & 1) body[bit >> 3] |= 0x80 >> (bit & 7);
  };
  for (const i of [...winning, ...player]) put(6, i);
  for (const a of amounts) put(4, a);
  body[BODY_LENGTH - 1] |= o.padding;
  const sig = nodeSign(signedMessage(body), seed);
  // Sometimes a byte of the body changes after signing: E_SIGNATURE, or an earlier check.
  if (o.flip > 0) body[o.flip % BODY_LENGTH] ^= 1 << (o.flip % 8);
  return codeText(body, sig);
}

test('crafted bodies signed with the test key: fields, padding, duplicates, prize table, version, key', () => {
  const idx = fc.oneof({ arbitrary: fc.nat(NUMBERS.length - 1), weight: 60 }, { arbitrary: fc.nat(63), weight: 1 });
  const often = <T>(usual: T, other: fc.Arbitrary<T>) =>
    fc.oneof({ arbitrary: fc.constant(usual), weight: 6 }, { arbitrary: other, weight: 1 });
  // Distinct numbers in each zone (matches between zones are then frequent, prizes often outside the
  // table), or any numbers (duplicates).
  const zone = (n: number) =>
    fc.oneof(
      { arbitrary: fc.uniqueArray(idx, { minLength: n, maxLength: n }), weight: 4 },
      { arbitrary: fc.array(idx, { minLength: n, maxLength: n }), weight: 1 },
    );
  fc.assert(
    fc.property(
      zone(6),
      zone(20),
      fc.array(fc.nat(AMOUNTS_EUR.length - 1), { minLength: 20, maxLength: 20 }),
      fc.record({
        number: fc.oneof(
          { arbitrary: fc.nat(BLOCK_SIZE - 1), weight: 6 },
          { arbitrary: fc.integer({ min: BLOCK_SIZE, max: 2 ** 32 - 1 }), weight: 1 },
        ),
        padding: often(0, fc.nat(15)),
        version: often(1, fc.nat(255)),
        keyId: often(0, fc.nat(255)),
        flip: often(0, fc.nat(400)),
      }),
      (w, p, a, o) => agree(crafted(w, p, a, o)),
    ),
    { numRuns: 1500 },
  );
  // Every verdict was reached, genuine included.
  for (const v of [
    'genuine',
    'E_PREFIX',
    'E_BASE45',
    'E_LENGTH',
    'E_VERSION',
    'E_KEY',
    'E_SIGNATURE',
    'E_FIELD',
    'E_DUPLICATE_NUMBER',
    'E_PRIZE_NOT_IN_TABLE',
  ])
    assert.ok((verdicts.get(v) ?? 0) > 0, `${v} never reached: ${JSON.stringify([...verdicts])}`);
});

test.run();
