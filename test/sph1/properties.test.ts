// Property tests of SPH1: encode → decode round-trips, and any single change of a genuine code is refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { NUMBERS, AMOUNTS_EUR, type Zones } from '../../src/game/rules.ts';
import { base45Decode } from '../../src/sph1/base45.ts';
import { BODY_LENGTH, packBody, parseBody, zonesOf } from '../../src/sph1/body.ts';
import { checkCode } from '../../src/sph1/check.ts';
import { codeText, encodeTicket } from '../../src/sph1/encode.ts';
import { testKeyRing, TEST_KEY_SEED_HEX, BASE45_OK } from './fixtures.ts';
import { nobleVerify } from '../../src/crypto/ed25519.ts';
import { nodeSign, nodeVerify } from '../../tools/node-crypto.ts';
import { fromHex } from '../../src/hex.ts';
import { composeZones, makeRng } from '../../src/gen/index.ts';

const SEED = fromHex(TEST_KEY_SEED_HEX);
const opts = { keys: testKeyRing(), verify: nodeVerify };

const zonesArb: fc.Arbitrary<Zones> = fc.record({
  winning: fc.array(fc.constantFrom(...NUMBERS), { minLength: 6, maxLength: 6 }),
  player: fc.array(fc.record({ number: fc.constantFrom(...NUMBERS), amountEur: fc.constantFrom(...AMOUNTS_EUR) }), {
    minLength: 20,
    maxLength: 20,
  }),
});
const idArb = fc.record({
  emission: fc.integer({ min: 0, max: 0xffff }),
  block: fc.integer({ min: 0, max: 0xffff }),
  number: fc.integer({ min: 0, max: 2_999_999 }),
  keyId: fc.integer({ min: 0, max: 255 }),
});

test('encode → decode round-trips every field, whatever the zones', () => {
  fc.assert(
    fc.property(idArb, zonesArb, (id, zones) => {
      const text = encodeTicket(id, zones, SEED, nodeSign);
      assert.is(text.length, 164);
      assert.ok(BASE45_OK.test(text.slice(5)));
      const bytes = base45Decode(text, 5)!;
      const body = parseBody(bytes.subarray(0, BODY_LENGTH));
      assert.equal(body.id, { game: 0x0250, ...id });
      assert.is(body.version, 1);
      assert.is(body.raw.padding, 0);
      assert.equal(zonesOf(body.raw), JSON.parse(JSON.stringify(zones)));
    }),
    { numRuns: 300 },
  );
});

test('a genuine generated ticket decodes to its zones and its prize (noble and node:crypto agree)', () => {
  fc.assert(
    fc.property(
      idArb,
      fc.constantFrom(0, 5, 10, 15, 30, 150, 500, 2500, 25000, 250000),
      fc.uint8Array({ minLength: 8, maxLength: 8 }),
      (id, prize, s) => {
        const zones = composeZones(prize, makeRng(s));
        const text = encodeTicket({ ...id, keyId: 0 }, zones, SEED, nodeSign);
        for (const verify of [nodeVerify, nobleVerify]) {
          const r = checkCode(text, { keys: testKeyRing(), verify });
          assert.is(r.reason, null);
          assert.is(r.status, prize > 0 ? 'win' : 'lose');
          assert.is(r.prizeEur, prize);
          assert.equal(r.winning, zones.winning);
          assert.equal(r.player, zones.player);
        }
      },
    ),
    { numRuns: 60 },
  );
});

const genuine = (() => {
  const zones = composeZones(30, makeRng(new Uint8Array([1, 2, 3])));
  const body = packBody({ emission: 7, block: 3, number: 123456, keyId: 0 }, zones);
  const sig = nodeSign(new Uint8Array([...'SAPHIR-TICKET-V1'].map((c) => c.charCodeAt(0)).concat([...body])), SEED);
  return { body, sig, text: codeText(body, sig) };
})();

test('the fixture is genuine', () => {
  const r = checkCode(genuine.text, opts);
  assert.is(r.status, 'win');
  assert.is(r.prizeEur, 30);
});

test('any single changed byte of the body or the signature is refused', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 105 }), fc.integer({ min: 1, max: 255 }), (i, x) => {
      const bytes = new Uint8Array(106);
      bytes.set(genuine.body, 0);
      bytes.set(genuine.sig, 42);
      bytes[i] ^= x;
      const r = checkCode(codeText(bytes.subarray(0, 42), bytes.subarray(42)), opts);
      assert.is(r.status, 'invalid', `byte ${i} ^ ${x}`);
      assert.ok(r.reason !== null);
    }),
    { numRuns: 400 },
  );
});

test('every byte position, changed once, is refused (exhaustive over positions, noble)', () => {
  for (let i = 0; i < 106; i++) {
    const bytes = new Uint8Array(106);
    bytes.set(genuine.body, 0);
    bytes.set(genuine.sig, 42);
    bytes[i] ^= 0x40;
    const r = checkCode(codeText(bytes.subarray(0, 42), bytes.subarray(42)), {
      keys: testKeyRing(),
      verify: nobleVerify,
    });
    assert.is(r.status, 'invalid', `byte ${i}`);
  }
});

test('any single changed character of the text is refused', () => {
  const chars = fc.oneof(
    fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:abcz\u0000\u00e9\n'),
    fc.string({ minLength: 1, maxLength: 1 }),
  );
  fc.assert(
    fc.property(fc.integer({ min: 0, max: genuine.text.length - 1 }), chars, (i, c) => {
      fc.pre(genuine.text[i] !== c);
      const t = genuine.text.slice(0, i) + c + genuine.text.slice(i + 1);
      const r = checkCode(t, opts);
      assert.is(r.status, 'invalid', `char ${i} → ${JSON.stringify(c)}`);
    }),
    { numRuns: 500 },
  );
});

test('removing or adding a character is refused', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: genuine.text.length }),
      fc.constantFrom('0', 'A', ':', ' '),
      fc.boolean(),
      (i, c, add) => {
        const t = add
          ? genuine.text.slice(0, i) + c + genuine.text.slice(i)
          : genuine.text.slice(0, i) + genuine.text.slice(i + 1);
        fc.pre(t !== genuine.text);
        assert.is(checkCode(t, opts).status, 'invalid');
      },
    ),
    { numRuns: 200 },
  );
});

test('checks in the order of docs/sph1.md: a code wrong in both version and game says E_VERSION, then E_GAME, then E_KEY', () => {
  const zones = composeZones(30, makeRng(new Uint8Array([4, 5, 6])));
  const signed = (game: number, version: number, keyId = 0) => {
    const body = packBody({ emission: 7, block: 3, number: 1, keyId, game }, zones, version);
    const msg = new Uint8Array([...'SAPHIR-TICKET-V1'].map((c) => c.charCodeAt(0)).concat([...body]));
    return codeText(body, nodeSign(msg, SEED));
  };
  assert.is(checkCode(signed(0x0251, 2), opts).reason, 'E_VERSION');
  assert.is(checkCode(signed(0x0251, 1), opts).reason, 'E_GAME');
  assert.is(checkCode(signed(0x0251, 1, 200), opts).reason, 'E_GAME');
  assert.is(checkCode(signed(0x0250, 2, 200), opts).reason, 'E_VERSION');
  assert.is(checkCode(signed(0x0250, 1, 200), opts).reason, 'E_KEY');
});

test.run();
