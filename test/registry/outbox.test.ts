// The device's outbox of offline payments: durable, in order, reclaimed once heard, safe across cuts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NorFlash, PowerCut } from '../../hw-sim/nor-flash.ts';
import { Outbox, OutboxFull } from '../../src/registry/outbox.ts';

const part = () => {
  const chip = new NorFlash({ size: 4 * 4096 });
  return { chip, flash: chip.partition(0, 4 * 4096) };
};
const entry = (n: number) => ({
  emission: 1,
  block: 2,
  number: n,
  paidAtMs: 1_790_000_000_000 + n,
  code: `SPH1:CODE-${n}`,
});

test('entries survive a reopen, in order, and marked ones are gone for good', () => {
  const { flash } = part();
  const o = Outbox.open(flash);
  for (let i = 0; i < 5; i++) o.add(entry(i));
  const r = Outbox.open(flash);
  assert.equal(
    r.pending.map((e) => e.number),
    [0, 1, 2, 3, 4],
  );
  assert.equal(r.pending[3].paidAtMs, 1_790_000_000_003);
  assert.equal(r.pending[3].code, 'SPH1:CODE-3');
  r.markSynced(r.pending.slice(0, 2));
  assert.equal(
    Outbox.open(flash).pending.map((e) => e.number),
    [2, 3, 4],
  );
});

test('full: nothing written; once heard, the space comes back (the log wraps around)', () => {
  const { chip, flash } = part();
  const o = Outbox.open(flash);
  let n = 0;
  try {
    for (;;) o.add(entry(n++));
  } catch (e) {
    assert.instance(e, OutboxFull);
  }
  const held = o.pending.length;
  assert.equal(held, o.capacity);
  const before = chip.bytes.slice();
  assert.throws(
    () => o.add(entry(9999)),
    (e: unknown) => e instanceof OutboxFull,
  );
  assert.equal(chip.bytes, before);
  for (let round = 0; round < 5; round++) {
    // Space comes back a sector (16 slots) at a time: two sectors' worth heard, two written.
    o.markSynced(o.pending.slice(0, 32));
    for (let i = 0; i < 32; i++) o.add(entry(n++));
    const again = Outbox.open(flash);
    assert.equal(
      again.pending.map((e) => e.number),
      o.pending.map((e) => e.number),
    );
    assert.equal(again.pending.length, held);
  }
});

test('a power cut at any flash operation loses no committed entry and leaves the outbox usable', () => {
  for (let cut = 1; cut <= 40; cut++) {
    const { chip, flash } = part();
    const o = Outbox.open(flash);
    let committed = 0;
    // An entry whose mark is cut may count as heard (the registry had answered): it may go.
    let marking = -1;
    chip.cutAtOp(cut);
    try {
      for (let i = 0; i < 30; i++) {
        o.add(entry(i));
        committed = i + 1;
        if (i % 3 === 2) {
          marking = o.pending[0].number;
          o.markSynced(o.pending.slice(0, 1));
          marking = -1;
        }
      }
    } catch (e) {
      assert.instance(e, PowerCut);
    }
    chip.powerOn();
    const r = Outbox.open(flash);
    const nums = r.pending.map((e) => e.number);
    // Every committed, unmarked entry is there, in order; the one being written may or may not be.
    const expected = o.pending.map((e) => e.number).filter((x) => x !== marking);
    for (const x of expected) assert.ok(nums.includes(x), `cut ${cut}: lost ${x}`);
    assert.ok(
      nums.every((x) => x <= committed),
      `cut ${cut}: invented`,
    );
    assert.equal(
      nums,
      [...nums].sort((a, b) => a - b),
    );
    r.add(entry(100));
    assert.equal(Outbox.open(flash).pending.at(-1)?.number, 100);
  }
});

test('garbage and bad input are refused, not crashed on', () => {
  const { chip, flash } = part();
  chip.bytes.fill(0x5a, 0, 4096);
  const o = Outbox.open(flash);
  assert.equal(o.pending.length, 0);
  assert.throws(() => o.add({ ...entry(1), code: 'x'.repeat(300) }), RangeError);
  assert.throws(() => o.add({ ...entry(1), code: 'é' }), RangeError);
});

test.run();
