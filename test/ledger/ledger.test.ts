import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { LAYOUT } from '../../rom/layout.ts';
import { Ledger, LedgerError, LedgerFull, MARK_BLOCKS, blockView, type Payment } from '../../src/ledger/index.ts';
import { HEADER_SIZE, SLOT_SIZE, encodePayment, decodePayment, slotState } from '../../src/ledger/format.ts';
import { crc32, crc32Range } from '../../src/crc32.ts';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { seeded } from '../../hw-sim/nor-flash.ts';

/** 5 sectors of 256 bytes: 6 slots a sector, two kept free: capacity 18. */
const smallChip = () => new NorFlash({ size: 5 * 256, sectorSize: 256 });
const pay = (n: number, over: Partial<Payment> = {}): Payment => ({
  emission: 12,
  block: n % 5,
  number: 1000 + n,
  prizeEur: 10 + (n % 3) * 5,
  paidAtMs: 1_780_000_000_000 + n * 1000,
  deviceId: 'SAPH-0042',
  ...over,
});
const key = (p: Payment) => ({ emission: p.emission, block: p.block, number: p.number });
/** One of the two logs of the device's ledger partition (after the time-mark sectors; src/ledger/mirror.ts). */
const deviceLog = (chip: NorFlash) =>
  blockView(chip.partition(LAYOUT.ledger.offset, LAYOUT.ledger.size), MARK_BLOCKS, 256);

test('format: a payment slot round-trips, extremes included', () => {
  for (const p of [
    pay(1),
    {
      emission: 65535,
      block: 65535,
      number: 0xffffffff,
      prizeEur: 0xffffffff,
      paidAtMs: 2 ** 48 - 1,
      deviceId: '~'.repeat(16),
    },
    { emission: 0, block: 0, number: 0, prizeEur: 0, paidAtMs: 0, deviceId: '' },
  ]) {
    const b = encodePayment(p);
    assert.is(b.length, SLOT_SIZE);
    assert.is(slotState(b, 0), 'ok');
    assert.equal(decodePayment(b, 0), p);
  }
});

test('the one CRC-32 (src/crc32.ts): of a range, whole, continued over pieces, as zlib computes it', () => {
  const r = seeded(3);
  const b = new Uint8Array(300).map(() => Math.floor(r() * 256));
  for (let o = 0; o < 40; o += 3) {
    for (let n = 0; n <= 70; n += 1) assert.is(crc32Range(b, o, n), zlibCrc32(b.subarray(o, o + n)), `${o}+${n}`);
  }
  for (const cut of [0, 1, 3, 4, 5, 150, 300])
    assert.is(crc32(b.subarray(cut), crc32(b.subarray(0, cut))), zlibCrc32(b), `cut ${cut}`);
  assert.is(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
});

test('a new ledger is empty; capacity of one log of the device partition', () => {
  const chip = new NorFlash();
  const l = Ledger.open(deviceLog(chip));
  assert.is(l.count, 0);
  assert.is(l.capacity, 254 * 102);
  assert.equal(l.entries(), []);
  assert.is(l.find({ emission: 1, block: 2, number: 3 }), undefined);
});

test('record, find, entries; a reopened ledger holds the same', () => {
  const chip = smallChip();
  const l = Ledger.open(chip, { deviceId: 'DEFAULT' });
  const ps = [pay(1), pay(2), pay(3, { deviceId: undefined as unknown as string })];
  for (const p of ps) l.record(p);
  ps[2] = { ...ps[2], deviceId: 'DEFAULT' };
  assert.is(l.count, 3);
  for (const p of ps) assert.equal(l.find(key(p)), p);
  assert.is(l.find({ emission: 12, block: 1, number: 9999 }), undefined);
  assert.equal(l.entries(), ps);
  const again = Ledger.open(chip);
  assert.equal(again.entries(), ps);
  assert.equal(Ledger.readEntries(chip), ps);
});

test('forEach and some walk the payments without building a list, and stop early', () => {
  const chip = smallChip();
  const l = Ledger.open(chip);
  for (let i = 0; i < 14; i++) l.record(pay(i));
  const seen: number[] = [];
  l.forEach((p) => {
    seen.push(p.number);
  });
  assert.equal(
    seen.sort(),
    Array.from({ length: 14 }, (_, i) => 1000 + i),
  );
  let calls = 0;
  assert.ok(l.some((p) => (calls++, p.number === 1003)));
  assert.is(calls, 4);
  assert.not.ok(l.some((p) => p.prizeEur > 1000));
  calls = 0;
  l.forEach(() => ++calls < 5);
  assert.is(calls, 5);
});

test('a ticket is recorded once: DUPLICATE', () => {
  const l = Ledger.open(smallChip());
  l.record(pay(1));
  try {
    l.record(pay(1, { prizeEur: 500 }));
    assert.unreachable();
  } catch (e) {
    assert.instance(e, LedgerError);
    assert.is((e as LedgerError).code, 'DUPLICATE');
  }
  assert.is(l.count, 1);
  assert.is(l.find(key(pay(1)))!.prizeEur, pay(1).prizeEur);
});

test('malformed payments are refused with a reason, nothing written', () => {
  const chip = smallChip();
  const l = Ledger.open(chip);
  const bad: unknown[] = [
    null,
    42,
    {},
    pay(1, { emission: -1 }),
    pay(1, { block: 70000 }),
    pay(1, { number: 1.5 }),
    pay(1, { prizeEur: NaN }),
    pay(1, { paidAtMs: 2 ** 48 }),
    pay(1, { deviceId: 'x'.repeat(17) }),
    pay(1, { deviceId: 'é' }),
    pay(1, { deviceId: 7 as unknown as string }),
  ];
  for (const p of bad) {
    try {
      l.record(p as Payment);
      assert.unreachable(JSON.stringify(p));
    } catch (e) {
      assert.instance(e, LedgerError);
      assert.is((e as LedgerError).code, 'INVALID');
      assert.match((e as Error).message, /payment/);
    }
  }
  assert.is(chip.ops, 0);
  assert.is(l.find(null as never), undefined);
  assert.is(l.find({ emission: 'a', block: 1, number: 1 } as never), undefined);
  assert.throws(
    () => Ledger.open(chip, { deviceId: 'x'.repeat(20) }),
    (e: unknown) => e instanceof LedgerError,
  );
  assert.throws(
    () => l.compact('no' as never),
    (e: unknown) => e instanceof LedgerError,
  );
});

test('a flash too small for three blocks is refused', () => {
  assert.throws(
    () => Ledger.open(new NorFlash({ size: 512, sectorSize: 256 })),
    (e: unknown) => (e as LedgerError).code === 'FLASH',
  );
  assert.is(Ledger.open(new NorFlash({ size: 768, sectorSize: 256 })).capacity, 6);
  assert.throws(
    () => Ledger.open(new NorFlash({ size: 64, sectorSize: 32 })),
    (e: unknown) => (e as LedgerError).code === 'FLASH',
  );
});

test('full ledger: LedgerFull, nothing lost, room again after compaction', () => {
  const chip = smallChip();
  const l = Ledger.open(chip);
  assert.is(l.capacity, 18);
  for (let i = 0; i < 18; i++) l.record(pay(i));
  const ops = chip.ops;
  try {
    l.record(pay(18));
    assert.unreachable();
  } catch (e) {
    assert.instance(e, LedgerFull);
    assert.is((e as LedgerFull).code, 'FULL');
    assert.match((e as Error).message, /full/);
  }
  assert.is(chip.ops, ops, 'nothing written');
  assert.is(l.count, 18);
  const reopened = Ledger.open(chip);
  assert.is(reopened.count, 18);
  for (let i = 0; i < 18; i++) assert.equal(reopened.find(key(pay(i))), pay(i));
  assert.is(
    reopened.compact((p) => p.number % 2 === 0),
    9,
  );
  assert.is(reopened.count, 9);
  for (let i = 18; i < 27; i++) reopened.record(pay(i));
  const after = Ledger.open(chip);
  assert.is(after.count, 18);
  for (let i = 0; i < 27; i++) assert.is(after.find(key(pay(i))) !== undefined, i >= 18 || i % 2 === 0, `payment ${i}`);
});

test('compaction keeps the content of what it keeps, entries stay in payment order of what it keeps; keep-all changes nothing', () => {
  const chip = smallChip();
  const l = Ledger.open(chip);
  for (let i = 0; i < 15; i++) l.record(pay(i));
  assert.is(
    l.compact(() => true),
    0,
  );
  assert.equal(
    l.entries(),
    Array.from({ length: 15 }, (_, i) => pay(i)),
  );
  assert.is(
    l.compact((p) => p.block !== 2),
    3,
  );
  const want = Array.from({ length: 15 }, (_, i) => pay(i)).filter((p) => p.block !== 2);
  assert.equal(l.entries(), want);
  assert.equal(Ledger.open(chip).entries(), want);
  assert.is(Ledger.open(chip).stats().deadSlots, 0);
});

test('compactStep: a sector a step, the same result as compact', () => {
  const build = () => {
    const chip = new NorFlash({ size: 8 * 256, sectorSize: 256 });
    const l = Ledger.open(chip);
    for (let i = 0; i < 36; i++) l.record(pay(i));
    return { chip, l };
  };
  const keep = (p: Payment) => p.number % 4 !== 1;
  const a = build();
  const droppedAll = a.l.compact(keep);
  const b = build();
  let dropped = 0;
  let steps = 0;
  for (;;) {
    const erases = b.chip.counters.erases;
    const r = b.l.compactStep(keep);
    assert.ok(b.chip.counters.erases - erases <= 2, 'at most one new head and one erased sector a step');
    dropped += r.dropped;
    if (r.done) break;
    steps++;
    assert.ok(steps < 50);
  }
  assert.is(dropped, droppedAll);
  assert.is(dropped, 9);
  assert.is(steps, 6, 'the six sectors holding a dropped payment');
  assert.equal(Ledger.open(b.chip).entries(), Ledger.open(a.chip).entries());
  assert.equal(b.l.compactStep(keep), { dropped: 0, done: true });
  assert.throws(
    () => b.l.compactStep(null as never),
    (e: unknown) => e instanceof LedgerError,
  );
});

test('compactStep reads a bounded number of clean sectors a call', () => {
  const chip = new NorFlash({ size: 48 * 256, sectorSize: 256 });
  const l = Ledger.open(chip);
  for (let i = 0; i < 40 * 6; i++) l.record(pay(i));
  const calls: number[] = [];
  for (let r = { done: false }; !r.done;) {
    const reads = chip.counters.reads;
    r = l.compactStep(() => true);
    calls.push(chip.counters.reads - reads);
    assert.ok(calls.length < 10);
  }
  assert.is(calls.length, 3, `${calls}`); // 16 + 16 + the last 8 sectors
  assert.equal(calls, [16, 16, 8], 'one read a sector');
  assert.is(chip.counters.erases, 40, 'nothing moved: one erase a sector, when it was opened');
});

test('a payment into a full ledger with dead slots reclaims only what it needs', () => {
  const chip = new NorFlash({ size: 6 * 256, sectorSize: 256 });
  const l = Ledger.open(chip);
  for (let i = 0; i < 24; i++) l.record(pay(i));
  for (let s = 0; s < 4; s++) chip.bytes[s * 256 + HEADER_SIZE + 2 * SLOT_SIZE + 7] ^= 0x80; // slot 2 of sectors 0–3
  const r = Ledger.open(chip);
  assert.is(r.count, 20);
  const erases = chip.counters.erases;
  r.record(pay(100));
  assert.ok(chip.counters.erases - erases <= 2, `${chip.counters.erases - erases} erases`);
  assert.is(Ledger.open(chip).count, 21);
  for (let i = 101; i < 104; i++) r.record(pay(i));
  assert.is(Ledger.open(chip).count, 24);
  assert.throws(
    () => r.record(pay(104)),
    (e: unknown) => e instanceof LedgerFull,
  );
});

test('the head sector is compacted too', () => {
  const chip = smallChip();
  const l = Ledger.open(chip);
  for (let i = 0; i < 4; i++) l.record(pay(i)); // all in one sector, the head
  assert.is(
    l.compact((p) => p.number !== 1001),
    1,
  );
  assert.equal(Ledger.open(chip).entries(), [pay(0), pay(2), pay(3)]);
  assert.is(
    l.compact(() => false),
    3,
  );
  assert.is(Ledger.open(chip).count, 0);
  l.record(pay(9));
  assert.equal(Ledger.open(chip).entries(), [pay(9)]);
});

test('a flipped bit in a record hides that record only; dead slots are reclaimed', () => {
  const chip = smallChip();
  const l = Ledger.open(chip);
  for (let i = 0; i < 12; i++) l.record(pay(i));
  // payment 3: sector 0, slot 3
  chip.bytes[HEADER_SIZE + 3 * SLOT_SIZE + 8] ^= 0x04;
  const r = Ledger.open(chip);
  assert.is(r.count, 11);
  assert.is(r.find(key(pay(3))), undefined);
  for (let i = 0; i < 12; i++) if (i !== 3) assert.equal(r.find(key(pay(i))), pay(i));
  assert.is(r.stats().deadSlots, 1);
  // filling up reclaims the dead slot instead of refusing
  for (let i = 12; i < 19; i++) r.record(pay(i));
  assert.is(r.count, 18);
  assert.throws(
    () => r.record(pay(40)),
    (e: unknown) => e instanceof LedgerFull,
  );
  assert.is(Ledger.open(chip).count, 18);
});

test('a damaged sector header does not hide its records, and its sector is not reused blindly', () => {
  const chip = smallChip();
  const l = Ledger.open(chip);
  for (let i = 0; i < 8; i++) l.record(pay(i)); // sector 0 full (6), sector 1 has 2
  chip.bytes[9] ^= 0x01; // sequence number of sector 0
  const r = Ledger.open(chip);
  assert.is(r.count, 8);
  for (let i = 8; i < 18; i++) r.record(pay(i));
  const again = Ledger.open(chip);
  assert.is(again.count, 18);
  for (let i = 0; i < 18; i++) assert.equal(again.find(key(pay(i))), pay(i));
});

// 1 byte a slot of the partition (26 112 on one log of the device's).
const FULL_INDEX = 26_112;

test('the index never outgrows 1 byte a slot of the partition, even after compactions', () => {
  const chip = new NorFlash();
  const l = Ledger.open(deviceLog(chip));
  let n = 0;
  const fill = () => {
    for (;;) {
      try {
        l.record(pay(n++));
      } catch (e) {
        if (e instanceof LedgerFull) return;
        throw e;
      }
    }
  };
  fill();
  assert.is(l.count, l.capacity);
  assert.is(l.stats().indexBytes, FULL_INDEX);
  l.compact((p) => p.number % 3 !== 0); // number = 1000 + i
  fill();
  assert.is(l.count, l.capacity);
  assert.is(l.stats().indexBytes, FULL_INDEX);
  for (let i = 0; i < n; i += 501)
    assert.is(l.find(key(pay(i))) !== undefined, i >= 25908 || (1000 + i) % 3 !== 0, `payment ${i}`);
});

test('the index stays small: it covers the sectors used so far', () => {
  const chip = new NorFlash();
  const l = Ledger.open(deviceLog(chip));
  for (let i = 0; i < 3000; i++) l.record(pay(i));
  // 30 sectors of 102 slots, grown by an eighth of the log at a time
  assert.ok(l.stats().indexBytes <= 4 * 3264, `${l.stats().indexBytes} bytes`);
  assert.is(Ledger.open(deviceLog(chip)).stats().indexBytes, 30 * 102, 'a reopened log: the sectors in use');
  for (let i = 0; i < 3000; i += 97) assert.equal(l.find(key(pay(i))), pay(i));
});

test.run();
