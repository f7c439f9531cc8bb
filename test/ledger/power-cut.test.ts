// Power cut at every flash operation of a payment and of a compaction, and random multi-cut runs:
// after powerOn and reopen, every payment whose record() returned is there, the ledger opens and
// works, and the interrupted payment is either there in full or absent.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { NorFlash, PowerCut, seeded } from '../../hw-sim/nor-flash.ts';
import { Ledger, LedgerFull, type Payment } from '../../src/ledger/index.ts';

const SECTOR = 256; // 6 slots a sector
const pay = (n: number): Payment => ({
  emission: 3 + (n % 2),
  block: n % 7,
  number: 50_000 + n,
  prizeEur: [5, 10, 15, 30, 150][n % 5],
  paidAtMs: 1_790_000_000_000 + n * 60_000,
  deviceId: `DEV-${n % 3}`,
});
const key = (p: Payment) => ({ emission: p.emission, block: p.block, number: p.number });
const clone = (c: NorFlash) => new NorFlash({ size: c.size, sectorSize: c.blockLength, bytes: c.bytes });

/** Opens, checks that `must` are all there (exactly) and nothing else but `may`; returns the ledger. */
function checkRecovered(chip: NorFlash, must: Payment[], may: Payment[], what: string): Ledger {
  const l = Ledger.open(chip);
  for (const p of must) assert.equal(l.find(key(p)), p, `${what}: payment ${p.number} lost`);
  const allowed = new Map([...must, ...may].map((p) => [p.number, p]));
  for (const e of l.entries()) assert.equal(e, allowed.get(e.number), `${what}: unexpected or altered ${e.number}`);
  assert.is(l.entries().length, l.count, what);
  return l;
}

/** Counts the flash operations `fn` makes on a copy of `chip`. */
function opsOf(chip: NorFlash, fn: (l: Ledger) => void): number {
  const c = clone(chip);
  const l = Ledger.open(c);
  const before = c.ops;
  fn(l);
  return c.ops - before;
}

function prepare(sectors: number, count: number, setup?: (l: Ledger) => void): { chip: NorFlash; paid: Payment[] } {
  const chip = new NorFlash({ size: sectors * SECTOR, sectorSize: SECTOR });
  const l = Ledger.open(chip);
  const paid: Payment[] = [];
  for (let i = 0; i < count; i++) {
    l.record(pay(i));
    paid.push(pay(i));
  }
  setup?.(l);
  return { chip, paid };
}

/** For every op n of `fn` and a few seeds: cut there, recover, check, then go on using the ledger. */
function cutEverywhere(
  name: string,
  chip: NorFlash,
  fn: (l: Ledger) => void,
  must: Payment[],
  may: Payment[],
  minOps: number,
  seeds = 4,
) {
  const total = opsOf(chip, fn);
  assert.ok(total >= minOps, `${name}: ${total} operations, expected ≥ ${minOps}`);
  for (let n = 1; n <= total; n++) {
    // several seeds: a cut write of several slots tears each of them in turn
    for (let seed = 1; seed <= seeds; seed++) {
      const c = clone(chip);
      const l = Ledger.open(c);
      c.cutAtOp(n, seeded(seed * 1000 + n));
      assert.throws(
        () => fn(l),
        (e: unknown) => e instanceof PowerCut,
        `${name}: op ${n} cut`,
      );
      c.powerOn();
      const what = `${name}, cut at op ${n}/${total} (${c.lastCut?.op}: ${c.lastCut?.detail}), seed ${seed}`;
      const r = checkRecovered(c, must, may, what);
      // the ledger still takes payments and keeps them
      const extra = pay(900 + n);
      if (r.count < r.capacity) {
        r.record(extra);
        checkRecovered(c, [...must, extra], may, `${what}, then one more`);
      } else {
        // (a cut inside the commit byte left the payment under way whole: the last slot is taken)
        assert.throws(
          () => r.record(extra),
          (e: unknown) => e instanceof LedgerFull,
          `${what}, then one more`,
        );
      }
    }
  }
  return total;
}

test('cut at every operation of a simple payment', () => {
  const { chip, paid } = prepare(4, 3);
  cutEverywhere('payment', chip, (l) => l.record(pay(100)), paid, [pay(100)], 1);
});

test('cut at every operation of a payment that opens a new sector', () => {
  const { chip, paid } = prepare(4, 6); // sector full: erase + header + the slot's body + its commit byte
  const n = cutEverywhere('payment opening a sector', chip, (l) => l.record(pay(100)), paid, [pay(100)], 4);
  assert.is(n, 4);
});

test('cut at every operation of a payment that must first reclaim dead slots', () => {
  // full ledger with a torn slot: record() compacts (keep all) then writes
  const { chip, paid } = prepare(5, 17);
  const c = clone(chip);
  c.cutAtOp(1, seeded(5));
  assert.throws(
    () => Ledger.open(c).record(pay(17)),
    (e: unknown) => e instanceof PowerCut,
  );
  c.powerOn();
  assert.ok(Ledger.open(c).stats().deadSlots >= 1);
  const l = Ledger.open(c);
  assert.is(l.count, 17);
  cutEverywhere('payment with reclaim', c, (x) => x.record(pay(18)), paid, [pay(17), pay(18)], 5);
});

test('the same Ledger object recovers after powerOn without reopening', () => {
  const { chip, paid } = prepare(4, 6);
  const l = Ledger.open(chip);
  chip.cutAtOp(2, seeded(3)); // the header write after the erase
  assert.throws(
    () => l.record(pay(50)),
    (e: unknown) => e instanceof PowerCut,
  );
  chip.powerOn();
  for (const p of paid) assert.equal(l.find(key(p)), p);
  l.record(pay(51));
  checkRecovered(chip, [...paid, pay(51)], [pay(50)], 'same object');
});

test('cut at every operation of a compaction that drops some payments', () => {
  const { chip, paid } = prepare(6, 20);
  const keep = (p: Payment) => p.emission === 3; // even numbers
  const kept = paid.filter(keep);
  const dropped = paid.filter((p) => !keep(p));
  const total = cutEverywhere('compaction', chip, (l) => l.compact(keep), kept, dropped, 10, 16);
  // and a finished compaction after a cut gives the intended result
  const c = clone(chip);
  c.cutAtOp(Math.floor(total / 2), seeded(9));
  assert.throws(
    () => Ledger.open(c).compact(keep),
    (e: unknown) => e instanceof PowerCut,
  );
  c.powerOn();
  Ledger.open(c).compact(keep);
  checkRecovered(c, kept, [], 'compaction finished after a cut');
});

test('cut at every operation of a compaction of the head, and of a compaction dropping everything', () => {
  const { chip, paid } = prepare(4, 4);
  cutEverywhere(
    'head compaction',
    chip,
    (l) => l.compact((p) => p.number !== 50_001),
    paid.filter((p) => p.number !== 50_001),
    [pay(1)],
    3,
  );
  const full = prepare(5, 18);
  cutEverywhere('drop all', full.chip, (l) => l.compact(() => false), [], full.paid, 3);
});

test('cut at every operation of a compaction of a full ledger whose oldest sector lost its header', () => {
  const { chip, paid } = prepare(6, 18);
  chip.bytes[9] ^= 0x10; // sector 0's sequence number: that sector becomes an orphan
  const l = Ledger.open(chip);
  assert.is(l.count, 18);
  cutEverywhere('orphan compaction', chip, (x) => x.compact(() => true), paid, [], 4, 16);
});

test('a second cut at every operation of the compaction that follows a cut compaction', () => {
  const { chip, paid } = prepare(6, 20);
  const keep = (p: Payment) => p.number % 3 !== 0;
  const kept = paid.filter(keep);
  const dropped = paid.filter((p) => !keep(p));
  const first = opsOf(chip, (l) => l.compact(keep));
  let pairs = 0;
  for (let n1 = 1; n1 <= first; n1++) {
    const c1 = clone(chip);
    c1.cutAtOp(n1, seeded(n1));
    assert.throws(
      () => Ledger.open(c1).compact(keep),
      (e: unknown) => e instanceof PowerCut,
    );
    c1.powerOn();
    const second = opsOf(c1, (l) => l.compact(keep));
    for (let n2 = 1; n2 <= second; n2++) {
      const c2 = clone(c1);
      c2.cutAtOp(n2, seeded(1000 * n1 + n2));
      assert.throws(
        () => Ledger.open(c2).compact(keep),
        (e: unknown) => e instanceof PowerCut,
      );
      c2.powerOn();
      const what = `cuts at ${n1} then ${n2}`;
      checkRecovered(c2, kept, dropped, what);
      Ledger.open(c2).compact(keep);
      const done = checkRecovered(c2, kept, [], `${what}, compacted`);
      assert.is(done.count, kept.length, what);
      pairs++;
    }
  }
  assert.ok(pairs > 100, `${pairs} pairs`);
});

test('any flipped bit anywhere hides at most the one payment whose slot it lands in', () => {
  const { chip, paid } = prepare(5, 16);
  const r = seeded(11);
  for (let byte = 0; byte < chip.size; byte++) {
    const c = clone(chip);
    c.bytes[byte] ^= 1 << Math.floor(r() * 8);
    const l = Ledger.open(c);
    const missing = paid.filter((p) => l.find(key(p)) === undefined);
    assert.ok(missing.length <= 1, `byte ${byte}: ${missing.length} missing`);
    for (const e of l.entries()) assert.equal(e, paid[e.number - 50_000], `byte ${byte}`);
    if (missing.length === 1) {
      // it was that payment's slot: the others still take payments and compaction cleans up
      l.compact(() => true);
      assert.is(Ledger.open(c).count, 15);
    }
  }
});

test('device geometry (4 KiB sectors, 102 slots): cut at every operation of a compaction', () => {
  const chip = new NorFlash({ size: 6 * 4096, sectorSize: 4096 });
  const l = Ledger.open(chip);
  const paid: Payment[] = [];
  for (let i = 0; i < 3 * 102 + 60; i++) {
    l.record(pay(i));
    paid.push(pay(i));
  }
  assert.is(l.capacity, 4 * 102);
  const keep = (p: Payment) => p.number % 3 !== 1;
  cutEverywhere(
    '4 KiB compaction',
    chip,
    (x) => x.compact(keep),
    paid.filter(keep),
    paid.filter((p) => !keep(p)),
    12,
    8,
  );
});

// Random runs: payments, compactions and cuts in any order; a model of what must be there.
test('random sequences of payments, compactions and power cuts never lose a recorded payment', () => {
  const stats = { cuts: 0, full: 0 };
  const action = fc.oneof(
    fc.record({ kind: fc.constant('pay' as const), count: fc.integer({ min: 1, max: 12 }) }),
    fc.record({ kind: fc.constant('compact' as const), mod: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant('step' as const), mod: fc.integer({ min: 2, max: 4 }) }),
    fc.record({
      kind: fc.constant('cut' as const),
      after: fc.integer({ min: 1, max: 8 }),
      seed: fc.integer({ min: 1, max: 1e6 }),
    }),
  );
  fc.assert(
    fc.property(
      fc.array(action, { minLength: 1, maxLength: 30 }),
      fc.integer({ min: 3, max: 6 }),
      (actions, sectors) => {
        const chip = new NorFlash({ size: sectors * SECTOR, sectorSize: SECTOR });
        let l = Ledger.open(chip);
        const must = new Map<number, Payment>(); // recorded and not dropped
        const may = new Map<number, Payment>(); // interrupted, or dropped
        let next = 0;
        let cuts = 0;
        let full = 0;
        const recover = () => {
          chip.powerOn();
          l = Ledger.open(chip);
          const all = new Map([...may, ...must]);
          for (const p of must.values()) assert.equal(l.find(key(p)), p);
          for (const e of l.entries()) assert.equal(e, all.get(e.number));
        };
        for (const a of actions) {
          try {
            if (a.kind === 'cut') chip.cutAtOp(a.after, seeded(a.seed));
            else if (a.kind === 'pay') {
              for (let i = 0; i < a.count; i++) {
                const p = pay(next++);
                may.set(p.number, p);
                try {
                  l.record(p);
                } catch (e) {
                  if (e instanceof PowerCut) throw e;
                  assert.is((e as Error).name, 'LedgerFull');
                  full++;
                  continue;
                }
                must.set(p.number, p);
              }
            } else {
              const keep = (p: Payment) => p.number % a.mod !== 0;
              for (const p of must.values()) if (!keep(p)) must.delete(p.number);
              try {
                if (a.kind === 'step') l.compactStep(keep);
                else l.compact(keep);
              } catch (e) {
                if (e instanceof PowerCut) throw e;
                assert.is((e as Error).name, 'LedgerFull');
              }
            }
          } catch (e) {
            if (!(e instanceof PowerCut)) throw e;
            cuts++;
            recover();
          }
        }
        chip.cutAtOp(0);
        recover();
        // never stuck: compaction completes, and below capacity one more payment is taken
        l.compact(() => true);
        stats.cuts += cuts;
        stats.full += full;
        if (l.count < l.capacity) {
          const p = pay(next);
          l.record(p);
          assert.equal(Ledger.open(chip).find(key(p)), p);
        }
      },
    ),
    { numRuns: 600, seed: 20261130 },
  );
  if (process.env.LEDGER_STATS) console.log(stats);
  // the runs do reach power cuts and a full ledger
  assert.ok(stats.cuts > 300, `cuts: ${stats.cuts}`);
  assert.ok(stats.full > 50, `full: ${stats.full}`);
});

test.run();
