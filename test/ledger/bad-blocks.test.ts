// Issue #35 item 4: the NOR model's bad blocks (an erase or a program the chip reports failed) and bit
// rot (programmed bits leaking back to 1 over time, seeded), and what the ledger does with them: a new
// head goes to another sector when its erase fails, a failed slot program is an error (never a payment
// said recorded that is not), and rot is caught by the CRCs and repaired from the other log.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FlashFailure, NorFlash, seeded } from '../../hw-sim/nor-flash.ts';
import { MARK_BLOCKS, MirroredLedger, type Payment } from '../../src/ledger/index.ts';

const SECTOR = 256; // 6 slots a sector
const LOG = 8;
const chip = () => new NorFlash({ size: (MARK_BLOCKS + 2 * LOG) * SECTOR, sectorSize: SECTOR });
const pay = (n: number): Payment => ({
  emission: 4,
  block: n % 3,
  number: 700 + n,
  prizeEur: 10,
  paidAtMs: 1_790_000_000_000 + n * 1000,
  deviceId: 'DEV-1',
});
const sectorOf = (log: number, s: number) => MARK_BLOCKS + log * LOG + s;

test('the NOR model: a bad sector fails every erase and program (FlashFailure), others work; rot only sets bits', () => {
  const c = chip();
  c.markBad(3);
  assert.throws(
    () => c.eraseBlock(3),
    (e: unknown) => e instanceof FlashFailure && /erase failed/.test(String(e)),
  );
  assert.throws(
    () => c.write(new Uint8Array(4), 3 * SECTOR + 8),
    (e: unknown) => e instanceof FlashFailure,
  );
  assert.throws(
    () => c.write(new Uint8Array(4), 3 * SECTOR - 2),
    (e: unknown) => e instanceof FlashFailure,
  );
  c.eraseBlock(4);
  c.write(new Uint8Array(SECTOR), 4 * SECTOR);
  const before = c.bytes.slice();
  const at = c.rot(20, seeded(5), 4 * SECTOR, SECTOR);
  assert.is(at.length, 20);
  let set = 0;
  for (let i = 0; i < c.size; i++) {
    assert.is(c.bytes[i] & before[i], before[i], 'rot never clears a bit');
    if (c.bytes[i] !== before[i]) set++;
  }
  assert.ok(set > 0 && set <= 20);
  assert.equal(c.rot(5, seeded(5), 0, SECTOR), [], 'nothing programmed there: nothing to rot');
});

test('a new head whose erase fails goes to the next free sector, in either log; nothing is lost', () => {
  for (const log of [0, 1]) {
    const c = chip();
    c.markBad(sectorOf(log, 1)); // the second head of that log
    const m = MirroredLedger.open(c);
    for (let n = 0; n < 20; n++) m.record(pay(n));
    const again = MirroredLedger.open(c);
    assert.is(again.logs[0].count, 20, `log ${log} bad`);
    assert.is(again.logs[1].count, 20, `log ${log} bad`);
    for (let n = 0; n < 20; n++) assert.equal(again.find(pay(n)), pay(n));
  }
});

test('a slot program that fails is an error: the payment is not said recorded, and it is not half there', () => {
  const c = chip();
  const m = MirroredLedger.open(c);
  m.record(pay(0));
  c.markBad(sectorOf(0, 0)); // log A's head goes bad
  assert.throws(
    () => m.record(pay(1)),
    (e: unknown) => e instanceof FlashFailure,
  );
  const again = MirroredLedger.open(c);
  assert.equal(again.find(pay(0)), pay(0));
  const p1 = again.find(pay(1));
  assert.ok(p1 === undefined, 'log B was not written after log A failed');
  assert.is(again.logs[1].count, 1);
});

test('bit rot, 6 seeded flips over a written partition, 30 seeds: every payment is found intact, or damage in both logs is reported (doubtful)', () => {
  let whole = 0;
  for (let seed = 1; seed <= 30; seed++) {
    const c = chip();
    const m = MirroredLedger.open(c);
    for (let n = 0; n < 30; n++) m.record(pay(n));
    c.rot(6, seeded(seed));
    const r = MirroredLedger.open(c);
    r.repair();
    const lost = Array.from({ length: 30 }, (_, n) => n).filter((n) => {
      const p = r.find(pay(n));
      return !p || JSON.stringify(p) !== JSON.stringify(pay(n));
    });
    if (lost.length === 0) whole++;
    else assert.ok(r.doubtful, `seed ${seed}: ${lost.join(' ')} lost without both logs damaged`);
    // Repaired: both logs hold what the union held.
    const after = MirroredLedger.open(c);
    assert.is(after.count, 30 - lost.length, `seed ${seed}`);
  }
  assert.ok(whole >= 20, `${whole} of 30 seeds kept everything`);
});

test.run();
