import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NorFlash, PowerCut, seeded } from '../../hw-sim/nor-flash.ts';
import { CHIP_SIZE, LAYOUT, SECTOR_SIZE } from '../../rom/layout.ts';
import '../../hw-sim/node-host.ts';

const small = () => new NorFlash({ size: 4 * 256, sectorSize: 256 });

test('a new chip is erased and has the layout geometry', () => {
  const c = new NorFlash();
  assert.is(c.size, CHIP_SIZE);
  assert.is(c.blockLength, SECTOR_SIZE);
  assert.ok(c.read(0, 64).every((b) => b === 0xff));
  assert.ok(c.read(CHIP_SIZE - 16, 16).every((b) => b === 0xff));
});

test('write clears bits only: the result is old & new', () => {
  const c = small();
  c.write(new Uint8Array([0xf0, 0x0f, 0xaa]), 10);
  assert.equal([...c.read(10, 3)], [0xf0, 0x0f, 0xaa]);
  c.write(new Uint8Array([0x3c, 0xff, 0x55]), 10);
  assert.equal([...c.read(10, 3)], [0x30, 0x0f, 0x00]);
});

test('erase sets exactly one sector back to 0xFF', () => {
  const c = small();
  c.write(new Uint8Array(512), 0); // sectors 0 and 1 to zero
  c.eraseBlock(1);
  assert.ok(c.read(0, 256).every((b) => b === 0));
  assert.ok(c.read(256, 256).every((b) => b === 0xff));
  assert.is(c.wear[1], 1);
  assert.is(c.wear[0], 0);
});

test('read returns a copy', () => {
  const c = small();
  const r = c.read(0, 4);
  r[0] = 0;
  assert.is(c.read(0, 1)[0], 0xff);
});

test('counters count every operation', () => {
  const c = small();
  c.read(0, 10);
  c.write(new Uint8Array(5), 0);
  c.eraseBlock(0);
  assert.equal(c.counters, { reads: 1, writes: 1, erases: 1, bytesRead: 10, bytesWritten: 5, busyMs: 45.4 });
  assert.is(c.ops, 2);
  c.write(new Uint8Array(2), 255); // across a page boundary: two page programs
  assert.ok(Math.abs(c.counters.busyMs - 46.2) < 1e-9);
});

test('out-of-range and malformed operations throw RangeError', () => {
  const c = small();
  assert.throws(() => c.read(1020, 8), RangeError);
  assert.throws(() => c.read(-1, 1), RangeError);
  assert.throws(() => c.write(new Uint8Array(8), 1020), RangeError);
  assert.throws(() => c.eraseBlock(4), RangeError);
  assert.throws(() => c.eraseBlock(0.5), RangeError);
  assert.throws(() => c.write([1, 2] as unknown as Uint8Array, 0), TypeError);
  assert.throws(() => new NorFlash({ size: 1000, sectorSize: 256 }), RangeError);
});

test('partition: offsets and blocks are relative and bounded', () => {
  const c = new NorFlash();
  const p = c.partition(LAYOUT.ledger.offset, LAYOUT.ledger.size);
  assert.is(p.size, LAYOUT.ledger.size);
  assert.is(p.blockLength, SECTOR_SIZE);
  p.write(new Uint8Array([1, 2, 3]), 5);
  assert.equal([...c.read(LAYOUT.ledger.offset + 5, 3)], [1, 2, 3]);
  c.write(new Uint8Array(SECTOR_SIZE), LAYOUT.ledger.offset + SECTOR_SIZE);
  p.eraseBlock(1);
  assert.ok(c.read(LAYOUT.ledger.offset + SECTOR_SIZE, SECTOR_SIZE).every((b) => b === 0xff));
  assert.throws(() => p.read(LAYOUT.ledger.size - 1, 2), RangeError);
  assert.throws(() => p.write(new Uint8Array(1), LAYOUT.ledger.size), RangeError);
  assert.throws(() => p.eraseBlock(LAYOUT.ledger.size / SECTOR_SIZE), RangeError);
  assert.throws(() => c.partition(100, SECTOR_SIZE), RangeError);
  assert.throws(() => c.partition(CHIP_SIZE - SECTOR_SIZE, 2 * SECTOR_SIZE), RangeError);
});

test('a cut write programs a prefix, at most part of one more byte, then throws PowerCut', () => {
  for (let seed = 1; seed <= 50; seed++) {
    const c = small();
    const data = new Uint8Array(40).map((_, i) => i); // every byte clears some bit except none at 0xff
    c.cutAtOp(1, seeded(seed));
    assert.throws(
      () => c.write(data, 100),
      (e: unknown) => e instanceof PowerCut,
    );
    assert.is(c.lastCut?.op, 'write');
    c.powerOn();
    const got = c.read(100, 40);
    let k = 0;
    while (k < 40 && got[k] === data[k]) k++;
    assert.ok(k < 40, 'never complete');
    // byte k: between old (0xff) and new, bits only cleared where new clears them
    assert.is(got[k] & data[k], data[k]);
    for (let i = k + 1; i < 40; i++) assert.is(got[i], 0xff);
  }
});

test('after a cut every operation is refused until powerOn', () => {
  const c = small();
  c.cutAtOp(2);
  c.write(new Uint8Array([0]), 0); // op 1 completes
  assert.throws(
    () => c.eraseBlock(0),
    (e: unknown) => e instanceof PowerCut,
  );
  assert.throws(
    () => c.read(0, 1),
    (e: unknown) => e instanceof PowerCut,
  );
  assert.throws(
    () => c.write(new Uint8Array([0]), 1),
    (e: unknown) => e instanceof PowerCut,
  );
  assert.throws(
    () => c.eraseBlock(1),
    (e: unknown) => e instanceof PowerCut,
  );
  c.powerOn();
  assert.is(c.read(0, 1)[0], 0);
  c.eraseBlock(1); // no cut pending any more
});

test('a cut erase leaves the sector partly erased, the others untouched', () => {
  const kinds = new Set<string>();
  let mixed = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const c = small();
    c.write(new Uint8Array(1024).fill(0x00), 0);
    c.cutAtOp(1, seeded(seed));
    assert.throws(
      () => c.eraseBlock(2),
      (e: unknown) => e instanceof PowerCut,
    );
    c.powerOn();
    kinds.add(
      c
        .lastCut!.detail.replace(/[\d.()=]+/g, '')
        .split(' ')
        .slice(0, 2)
        .join(' '),
    );
    assert.ok(c.read(0, 512).every((b) => b === 0));
    assert.ok(c.read(768, 256).every((b) => b === 0));
    const s = c.read(512, 256);
    if (!s.every((b) => b === 0xff) && !s.every((b) => b === 0)) mixed++;
    // every bit is either erased or as it was: old bits were 0, so only set bits can appear; and
    // the prefix mode erases in address order
    if (c.lastCut!.detail.startsWith('first')) {
      const done = Number(c.lastCut!.detail.split(' ')[1]);
      assert.ok(s.subarray(0, done).every((b) => b === 0xff) && s.subarray(done).every((b) => b === 0));
    }
  }
  assert.ok(mixed >= 30, `most cuts leave a half-erased sector (${mixed}/40)`);
  assert.is(kinds.size, 3, `the three kinds of partial erase: ${[...kinds]}`);
});

test('cutAtOp(0) cancels; reads do not count as operations', () => {
  const c = small();
  c.cutAtOp(1);
  c.cutAtOp(0);
  c.write(new Uint8Array([1]), 0);
  c.cutAtOp(2);
  c.read(0, 1);
  c.read(0, 1);
  c.write(new Uint8Array([1]), 1);
  assert.throws(
    () => c.write(new Uint8Array([1]), 2),
    (e: unknown) => e instanceof PowerCut,
  );
});

test('the same seed gives the same cut', () => {
  const run = () => {
    const c = small();
    c.write(new Uint8Array(256), 0);
    c.cutAtOp(1, seeded(7));
    try {
      c.eraseBlock(0);
    } catch {
      // the cut, expected
    }
    c.powerOn();
    return [...c.read(0, 256)];
  };
  assert.equal(run(), run());
});

test('save and load keep every byte; a missing file gives an erased chip', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nor-'));
  try {
    const path = join(dir, 'chip.bin');
    const fresh = NorFlash.load(path, { size: 1024, sectorSize: 256 });
    assert.ok(fresh.read(0, 1024).every((b) => b === 0xff));
    fresh.write(new Uint8Array([9, 8, 7]), 1000);
    fresh.save(path);
    const again = NorFlash.load(path, { size: 1024, sectorSize: 256 });
    assert.equal([...again.read(1000, 3)], [9, 8, 7]);
    assert.throws(() => NorFlash.load(path, { size: 2048, sectorSize: 256 }), RangeError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a recycled chip refuses every operation, and the next new chip is erased whatever it held', () => {
  const size = 8 * SECTOR_SIZE;
  const used = new NorFlash({ size, writeOnce: [] });
  used.write(new Uint8Array(size), 0);
  used.recycle();
  assert.throws(() => used.read(0, 1), /recycled/);
  assert.throws(() => used.write(new Uint8Array(1), 0), /recycled/);
  assert.throws(() => used.eraseBlock(0), /recycled/);
  used.powerOn();
  assert.throws(() => used.read(0, 1), /recycled/);
  const next = new NorFlash({ size, writeOnce: [] });
  assert.is(next.bytes.buffer, used.bytes.buffer, 'the buffer is reused');
  assert.ok(next.bytes.every((b) => b === 0xff));
  assert.ok(next.powered);
});

test('peek shows the bytes read would copy, without the copy, and counts as a read', () => {
  const c = new NorFlash();
  c.write(Uint8Array.of(1, 2, 3), 100);
  const v = c.peek(100, 4);
  assert.equal([...v], [...c.read(100, 4)]);
  assert.equal([...v], [1, 2, 3, 0xff]);
  c.write(Uint8Array.of(0), 103);
  assert.is(v[3], 0, 'a view: it changes with the chip');
  assert.is(c.counters.reads, 2);
  assert.throws(() => c.peek(CHIP_SIZE - 1, 2), RangeError);
});

test.run();
