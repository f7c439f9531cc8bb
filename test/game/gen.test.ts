// The generator: a keyed bijection of the block, Article 3 exactly, compositions, determinism.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { AMOUNTS_EUR, BLOCK_SIZE, NUMBERS, hasDuplicate, outcome, type Zones } from '../../src/game/rules.ts';
import { PRIZE_TABLE } from '../../src/game/prize-table.ts';
import {
  blockGenerator,
  composeZones,
  makePermutation,
  makeRng,
  prizeOfRank,
  splitsOf,
  ticketOf,
} from '../../src/gen/index.ts';
import { foldBytes } from '../../src/gen/rng.ts';
import { encodeTicket } from '../../src/sph1/encode.ts';
import { checkCode } from '../../src/sph1/check.ts';
import { testKeyRing, TEST_KEY_SEED_HEX } from '../../src/sph1/keys.ts';
import { fromHex } from '../../src/hex.ts';
import { nodeSign, nodeVerify } from '../../tools/node-crypto.ts';
import { LINE_BYTES, RangeEncoder } from '../../host/workers/gen-core.ts';

const PRIZES = PRIZE_TABLE.rows.map((r) => r.amountEur);

test('makeRng: same bytes, same sequence; next in [0,1); int in range; different bytes differ', () => {
  const a = makeRng(new Uint8Array([1, 2, 3]));
  const b = makeRng(new Uint8Array([1, 2, 3]));
  const c = makeRng(new Uint8Array([1, 2, 4]));
  const sa: number[] = [];
  const sc: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const x = a.next();
    assert.ok(x >= 0 && x < 1);
    assert.is(x, b.next());
    sa.push(x);
    sc.push(c.next());
    const k = a.int(7);
    assert.is(k, b.int(7));
    c.int(7);
    assert.ok(Number.isInteger(k) && k >= 0 && k < 7);
  }
  assert.not.equal(sa, sc);
  const counts = new Array(10).fill(0);
  const r = makeRng(new Uint8Array(0));
  for (let i = 0; i < 10000; i++) counts[r.int(10)]++;
  assert.ok(
    counts.every((n) => n > 850 && n < 1150),
    counts.join(','),
  );
});

test('makeRng draws the sfc32 sequence one number at a time would, across its batches (src/gen/rng.ts)', () => {
  // sfc32 as first written: state in four variables, 12 draws discarded, one u32 a call.
  const reference = (seed: Uint8Array) => {
    let [a, b, c, d] = foldBytes(seed);
    const u32 = () => {
      const t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (((c << 21) | (c >>> 11)) + t) | 0;
      return t >>> 0;
    };
    for (let i = 0; i < 12; i++) u32();
    return u32;
  };
  for (const seed of [new Uint8Array(0), new Uint8Array([1, 2, 3]), new Uint8Array([255, 0, 255, 0, 7])]) {
    const r = makeRng(seed);
    const u32 = reference(seed);
    // Several batches, int and next interleaved.
    for (let i = 0; i < 1000; i++) {
      const n = (i % 45) + 1;
      if (i % 3 === 0) assert.is(r.next(), u32() / 4294967296);
      else assert.is(r.int(n), Math.floor((u32() / 4294967296) * n));
    }
  }
});

test('the permutation is a bijection (small domains, exhaustively) and its inverse undoes it', () => {
  for (const size of [1, 2, 3, 10, 100, 1000, 4097]) {
    const p = makePermutation(new Uint8Array([size, 9, 8, 7]), size);
    const seen = new Set<number>();
    for (let x = 0; x < size; x++) {
      const y = p.forward(x);
      assert.ok(y >= 0 && y < size);
      seen.add(y);
      assert.is(p.inverse(y), x);
    }
    assert.is(seen.size, size);
  }
  assert.throws(() => makePermutation(new Uint8Array([1]), 10).forward(10), RangeError);
  assert.throws(() => makePermutation(new Uint8Array([1]), 10).forward(-1), RangeError);
});

test('over the whole block: every rank once, and the prizes are exactly those of Article 3', () => {
  const g = blockGenerator('saphir', 1, 1);
  const seen = new Uint8Array(BLOCK_SIZE);
  const tally = new Map<number, number>();
  for (let n = 0; n < BLOCK_SIZE; n++) {
    const r = g.rankOf(n);
    assert.is(seen[r], 0);
    seen[r] = 1;
    const p = prizeOfRank(r);
    tally.set(p, (tally.get(p) ?? 0) + 1);
  }
  for (const row of PRIZE_TABLE.rows) assert.is(tally.get(row.amountEur), row.count, `${row.amountEur} €`);
  assert.is(tally.get(0), BLOCK_SIZE - 1_003_777);
  assert.is(tally.size, 10);
});

test('prizeOfRank: tiers in table order, ranks from 1 003 777 lose', () => {
  assert.is(prizeOfRank(0), 250000);
  assert.is(prizeOfRank(1), 250000);
  assert.is(prizeOfRank(2), 25000);
  assert.is(prizeOfRank(1539), 150);
  assert.is(prizeOfRank(1540), 30);
  assert.is(prizeOfRank(1_003_776), 5);
  assert.is(prizeOfRank(1_003_777), 0);
  assert.is(prizeOfRank(BLOCK_SIZE - 1), 0);
});

test('winners are spread: the big prizes differ between blocks and seeds', () => {
  const big = (seed: string, block: number) => {
    const g = blockGenerator(seed, 1, block);
    return [0, 1, 2, 3].map((r) => g.permutation.inverse(r));
  };
  assert.not.equal(big('saphir', 1), big('saphir', 2));
  assert.not.equal(big('saphir', 1), big('autre', 1));
  assert.equal(big('saphir', 1), big('saphir', 1));
  // The 250 000 € tickets carry that prize.
  const g = blockGenerator('saphir', 1, 1);
  for (const n of big('saphir', 1).slice(0, 2)) assert.is(g.prizeOf(n), 250000);
});

function checkComposition(z: Zones, prize: number) {
  assert.is(z.winning.length, 6);
  assert.is(z.player.length, 20);
  for (const n of z.winning) assert.ok(NUMBERS.includes(n));
  for (const c of z.player) {
    assert.ok(NUMBERS.includes(c.number));
    assert.ok(AMOUNTS_EUR.includes(c.amountEur));
  }
  assert.not.ok(hasDuplicate(z.winning), 'duplicate winning number');
  assert.not.ok(hasDuplicate(z.player.map((c) => c.number)), 'duplicate player number');
  const o = outcome(z);
  assert.is(o.prizeEur, prize);
  if (prize === 0) {
    for (const c of z.player) assert.not.ok(z.winning.includes(c.number), 'a losing ticket shares a number');
  } else {
    assert.ok(o.matched.length >= 1 && o.matched.length <= 3, `${o.matched.length} matches`);
  }
}

test('composeZones: any prize of the table or 0 gives that outcome, 1–3 matches, no duplicate', () => {
  fc.assert(
    fc.property(fc.constantFrom(0, ...PRIZES), fc.uint8Array({ maxLength: 16 }), (prize, seed) => {
      checkComposition(composeZones(prize, makeRng(seed)), prize);
    }),
    { numRuns: 3000 },
  );
  assert.throws(() => composeZones(7, makeRng(new Uint8Array(1))), RangeError);
});

test('splits: every prize of the table can be made, 30 € in several ways', () => {
  for (const p of PRIZES) {
    const s = splitsOf(p);
    assert.ok(s.length >= 1, `${p}`);
    for (const parts of s) {
      assert.ok(parts.length >= 1 && parts.length <= 3);
      assert.is(
        parts.reduce((a, b) => a + b, 0),
        p,
      );
      for (const a of parts) assert.ok(AMOUNTS_EUR.includes(a));
    }
  }
  const thirty = splitsOf(30).map((s) => s.join('+'));
  for (const w of ['30', '20+10', '15+15', '20+5+5']) assert.ok(thirty.includes(w), w);
});

test('compositions are varied: ways of making a prize, amounts beside unmatched numbers', () => {
  const ways = new Set<string>();
  const decoys = new Set<number>();
  const counts = new Set<number>();
  for (let i = 0; i < 600; i++) {
    const z = composeZones(30, makeRng(new Uint8Array([i & 255, i >> 8])));
    const matched = z.player.filter((c) => z.winning.includes(c.number));
    ways.add(
      matched
        .map((c) => c.amountEur)
        .sort((a, b) => b - a)
        .join('+'),
    );
    counts.add(matched.length);
    for (const c of z.player) if (!z.winning.includes(c.number)) decoys.add(c.amountEur);
  }
  assert.ok(ways.size >= 5, [...ways].join(' '));
  assert.equal([...counts].sort(), [1, 2, 3]);
  assert.ok(decoys.size >= 14, `${decoys.size} decoy amounts`);
  // Matched numbers are not always in the same places.
  const places = new Set<number>();
  for (let i = 0; i < 50; i++) {
    const z = composeZones(5, makeRng(new Uint8Array([i])));
    places.add(z.player.findIndex((c) => z.winning.includes(c.number)));
  }
  assert.ok(places.size >= 10);
});

test('ticketOf: deterministic, the same as the block generator, and keyed by every argument', () => {
  const g = blockGenerator('s', 2, 3);
  for (const n of [0, 1, 17, 2_999_999]) {
    assert.equal(ticketOf('s', 2, 3, n), g.ticket(n));
    assert.equal(ticketOf('s', 2, 3, n), ticketOf('s', 2, 3, n));
    assert.is(ticketOf('s', 2, 3, n).prizeEur, outcome(ticketOf('s', 2, 3, n).zones).prizeEur);
  }
  const z = JSON.stringify(ticketOf('s', 2, 3, 5).zones);
  assert.is.not(JSON.stringify(ticketOf('t', 2, 3, 5).zones), z);
  assert.is.not(JSON.stringify(ticketOf('s', 1, 3, 5).zones), z);
  assert.is.not(JSON.stringify(ticketOf('s', 2, 4, 5).zones), z);
  assert.is.not(JSON.stringify(ticketOf('s', 2, 3, 6).zones), z);
});

test('generated tickets over a range are genuine, with the planned prize', () => {
  const g = blockGenerator('saphir', 4, 5);
  const seed = fromHex(TEST_KEY_SEED_HEX);
  for (let n = 1000; n < 1200; n++) {
    const t = g.ticket(n);
    checkComposition(t.zones, t.prizeEur);
    const r = checkCode(encodeTicket({ emission: 4, block: 5, number: n, keyId: 0 }, t.zones, seed, nodeSign), {
      keys: testKeyRing(),
      verify: nodeVerify,
    });
    assert.is(r.reason, null);
    assert.is(r.prizeEur, t.prizeEur);
    assert.equal(r.ticket, { game: 0x250, emission: 4, block: 5, number: n, keyId: 0 });
  }
});

test('RangeEncoder writes exactly what encodeTicket would, and a range equals the same lines of a larger one', () => {
  const seed = fromHex(TEST_KEY_SEED_HEX);
  const enc = new RangeEncoder(blockGenerator('x', 9, 8), { keyId: 0, seed }, nodeSign);
  const big = Buffer.from(enc.encode(0, 300)).toString('latin1');
  assert.is(big.length, 300 * LINE_BYTES);
  const lines = big.split('\n').slice(0, -1);
  assert.is(lines.length, 300);
  for (const n of [0, 1, 150, 299]) {
    assert.is(
      lines[n],
      encodeTicket({ emission: 9, block: 8, number: n, keyId: 0 }, ticketOf('x', 9, 8, n).zones, seed, nodeSign),
    );
  }
  const part = Buffer.from(
    new RangeEncoder(blockGenerator('x', 9, 8), { keyId: 0, seed }, nodeSign).encode(120, 40),
  ).toString('latin1');
  assert.is(part, lines.slice(120, 160).join('\n') + '\n');
  const other = new RangeEncoder(blockGenerator('x', 9, 8), { keyId: 7, seed }, nodeSign).encode(0, 1);
  assert.is(
    checkCode(Buffer.from(other).toString('latin1').trim(), { keys: testKeyRing(), verify: nodeVerify }).reason,
    'E_KEY',
  );
});

test.run();
