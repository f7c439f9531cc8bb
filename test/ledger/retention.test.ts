import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { Ledger, keepWhileClaimable, type Payment } from '../../src/ledger/index.ts';

const p = (emission: number, number: number): Payment => ({
  emission,
  block: 0,
  number,
  prizeEur: 10,
  paidAtMs: 1_780_000_000_000 + number,
  deviceId: 'D1',
});

test('keepWhileClaimable keeps until the end of the deadline day, and unknown emissions always', () => {
  // emission 1 closes 2026-01-01 → deadline 2026-01-31, over at 2026-01-31T23:00Z
  const closing = { 1: '2026-01-01', 2: '2026-06-14', 3: 'garbage' };
  const before = keepWhileClaimable(closing, Date.parse('2026-01-31T22:59:59Z'));
  const after = keepWhileClaimable(closing, Date.parse('2026-01-31T23:00:00Z'));
  assert.ok(before(p(1, 1)));
  assert.ok(!after(p(1, 1)));
  assert.ok(after(p(2, 1)));
  assert.ok(after(p(3, 1)), 'a bad closing date keeps');
  assert.ok(after(p(9, 1)), 'an unknown emission keeps');
  const viaFn = keepWhileClaimable((e) => (e === 1 ? '2026-01-01' : undefined), Date.parse('2026-02-01T00:00:00Z'));
  assert.ok(!viaFn(p(1, 1)));
  assert.ok(viaFn(p(2, 1)));
});

test('compacting with it drops exactly the expired emission', () => {
  const chip = new NorFlash({ size: 8 * 256, sectorSize: 256 });
  const l = Ledger.open(chip);
  for (let i = 0; i < 20; i++) l.record(p(1 + (i % 2), i));
  const dropped = l.compact(
    keepWhileClaimable({ 1: '2026-01-01', 2: '2026-06-14' }, Date.parse('2026-03-01T00:00:00Z')),
  );
  assert.is(dropped, 10);
  const left = Ledger.open(chip).entries();
  assert.is(left.length, 10);
  assert.ok(left.every((x) => x.emission === 2));
});

test.run();
