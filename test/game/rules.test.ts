// The rule of Article 4.3 against an independent implementation, and the Article 3 table self-check.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { AMOUNTS_EUR, NUMBERS, hasDuplicate, outcome, type Zones } from '../../src/game/rules.ts';
import {
  PRINTED_PRIZE_TABLE,
  PRIZE_TABLE,
  checkPrizeTable,
  isPrizeAmount,
  lotsOf,
  tableFigures,
  type PrizeTable,
} from '../../src/game/prize-table.ts';

/** Article 4.3 written again, differently: a set of winning numbers, then a sum over matches. */
function simpleOutcome(winning: number[], player: { number: number; amountEur: number }[]) {
  const set = new Set(winning);
  const hits = player.filter((c) => set.has(c.number));
  return { prizeEur: hits.reduce((s, c) => s + c.amountEur, 0), matched: hits.map((c) => c.number) };
}

const zonesArb: fc.Arbitrary<Zones> = fc.record({
  winning: fc.uniqueArray(fc.constantFrom(...NUMBERS), { minLength: 6, maxLength: 6 }),
  player: fc
    .uniqueArray(fc.constantFrom(...NUMBERS), { minLength: 20, maxLength: 20 })
    .chain((ns) =>
      fc.tuple(...ns.map((n) => fc.constantFrom(...AMOUNTS_EUR).map((a) => ({ number: n, amountEur: a })))),
    ),
});

test('the 45 numbers are those of Article 4.2', () => {
  // Article 4.2 lists 1 … 49 without 5, 10, 15 and 30.
  const expected: number[] = [];
  for (let n = 1; n <= 49; n++) if (![5, 10, 15, 30].includes(n)) expected.push(n);
  assert.equal([...NUMBERS], expected);
  assert.is(NUMBERS.length, 45);
});

test('outcome agrees with an independent implementation (Article 4.3)', () => {
  fc.assert(
    fc.property(zonesArb, (z) => {
      assert.equal(outcome(z), simpleOutcome(z.winning, z.player));
    }),
    { numRuns: 2000 },
  );
});

test('outcome on concrete tickets: one match, several matches add up, none loses', () => {
  const player = NUMBERS.slice(20, 40).map((n, i) => ({ number: n, amountEur: AMOUNTS_EUR[i % 16] }));
  const base = { player };
  assert.equal(outcome({ ...base, winning: [1, 2, 3, 4, 6, 7] }), { prizeEur: 0, matched: [] });
  assert.equal(outcome({ ...base, winning: [1, 2, 3, 4, 6, player[3].number] }), {
    prizeEur: 20,
    matched: [player[3].number],
  });
  assert.equal(outcome({ ...base, winning: [player[5].number, 2, player[0].number, 4, 6, player[1].number] }), {
    prizeEur: 5 + 10 + 40,
    matched: [player[0].number, player[1].number, player[5].number],
  });
});

test('hasDuplicate agrees with a Set', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...NUMBERS), { maxLength: 20 }), (ns) => {
      assert.is(hasDuplicate(ns), new Set(ns).size !== ns.length);
    }),
  );
});

test('the corrected table passes its self-check and makes the printed totals', () => {
  assert.equal(checkPrizeTable(PRIZE_TABLE), []);
  const f = tableFigures();
  assert.is(f.lots, 1_003_777);
  assert.is(f.totalEur, 10_199_995);
  assert.equal(
    PRIZE_TABLE.rows.map((r) => r.amountEur),
    [250000, 25000, 2500, 500, 150, 30, 15, 10, 5],
  );
});

test('the self-check catches the printed slip of row 9 (35 € where the total proves 5 €)', () => {
  const errors = checkPrizeTable(PRINTED_PRIZE_TABLE);
  assert.ok(errors.length >= 1);
  assert.ok(
    errors.some((e) => e.startsWith('row 9')),
    errors.join('; '),
  );
  assert.ok(!errors.some((e) => /^row [1-8]:/.test(e)), 'only row 9 is wrong');
  assert.ok(
    errors.some((e) => e.startsWith('total')),
    'the column total no longer adds up',
  );
});

test('the self-check catches any single wrong figure', () => {
  const field = fc.constantFrom('count', 'amountEur', 'totalEur');
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 8 }), field, fc.integer({ min: 1, max: 1000 }), (row, f, delta) => {
      const t: PrizeTable = { ...PRIZE_TABLE, rows: PRIZE_TABLE.rows.map((r) => ({ ...r })) };
      (t.rows[row] as unknown as Record<string, number>)[f] += delta;
      assert.ok(checkPrizeTable(t).length > 0);
    }),
  );
  assert.ok(checkPrizeTable({ ...PRIZE_TABLE, totalLots: 1_003_776 }).length > 0);
  assert.ok(checkPrizeTable({ ...PRIZE_TABLE, totalEur: 10_199_996 }).length > 0);
});

test('derived figures: 68 % paid back, 1 chance in 2.99', () => {
  const f = tableFigures();
  assert.is(f.salesEur, 15_000_000);
  assert.is((f.payoutRatio * 100).toFixed(0), '68');
  assert.ok(Math.abs(f.payoutRatio - 0.68) < 0.0001);
  assert.is(f.oddsOneIn.toFixed(2), '2.99');
});

test('prize amounts and lots per amount', () => {
  for (const a of [250000, 25000, 2500, 500, 150, 30, 15, 10, 5]) assert.ok(isPrizeAmount(a), String(a));
  for (const a of [0, 35, 20, 40, 1000, 5000]) assert.not.ok(isPrizeAmount(a), String(a));
  assert.is(lotsOf(5), 415_904);
  assert.is(lotsOf(35), 0);
  assert.is(lotsOf(35, PRINTED_PRIZE_TABLE), 415_904);
});

test.run();
