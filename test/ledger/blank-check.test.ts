// The flash's blank check (`Flash.erased`, src/hal.ts): the simulated chip answers exactly what reading
// the range would say, partitions and block views pass it through with their offsets, and a ledger
// that uses it to skip blank sectors without a header reads the same payments, damage and free
// sectors as one that reads them whole, orphan slots and garbage in free sectors included.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { NorFlash, seeded } from '../../hw-sim/nor-flash.ts';
import { Ledger, blockView } from '../../src/ledger/index.ts';
import { HEADER_SIZE, SLOT_SIZE, encodePayment } from '../../src/ledger/format.ts';
import { isErased } from '../../src/bytes.ts';
import type { Flash } from '../../src/hal.ts';

const SECTOR = 512;

test('the chip: erased exactly when every byte of the range reads 0xFF, at any alignment; a read without the copy', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 4 * SECTOR - 1 }),
      fc.integer({ min: 0, max: 2 * SECTOR }),
      fc.option(fc.integer({ min: 0, max: 4 * SECTOR - 1 }), { nil: undefined }),
      fc.integer({ min: 0, max: 0xfe }),
      (offset, len, at, value) => {
        const chip = new NorFlash({ size: 4 * SECTOR, sectorSize: SECTOR });
        len = Math.min(len, chip.size - offset);
        if (at !== undefined) chip.write(Uint8Array.of(value), at);
        const reads = chip.counters.reads;
        const blank = chip.erased(offset, len);
        assert.is(chip.counters.reads, reads + 1);
        assert.is(blank, isErased(chip.read(offset, len)));
        assert.is(blank, at === undefined || at < offset || at >= offset + len);
      },
    ),
    { numRuns: 400, seed: 6 },
  );
  // Every small range at every alignment, with one programmed byte at each place in and around it.
  const small = new NorFlash({ size: SECTOR, sectorSize: SECTOR });
  for (let offset = 0; offset < 8; offset++)
    for (let len = 0; len < 14; len++)
      for (let at = Math.max(0, offset - 1); at <= offset + len; at++) {
        small.bytes[at] = 0x5a;
        assert.is(small.erased(offset, len), at < offset || at >= offset + len, `${offset}+${len}, byte ${at}`);
        small.bytes[at] = 0xff;
      }
  const chip = new NorFlash({ size: 4 * SECTOR, sectorSize: SECTOR });
  assert.throws(() => chip.erased(3 * SECTOR, SECTOR + 1), /outside the chip/);
  chip.cutAtOp(1);
  assert.throws(() => chip.write(Uint8Array.of(0), 0));
  assert.throws(() => chip.erased(0, 4), /no power/);
});

test('a partition and a block view answer for their own offsets, and check their bounds', () => {
  const chip = new NorFlash({ size: 8 * SECTOR, sectorSize: SECTOR });
  chip.write(Uint8Array.of(0x7f), 5 * SECTOR + 9);
  const part = chip.partition(2 * SECTOR, 6 * SECTOR);
  const view = blockView(part, 2, 3); // chip sectors 4, 5, 6
  assert.is(part.erased(3 * SECTOR + 9, 1), false);
  assert.is(part.erased(3 * SECTOR + 10, 2 * SECTOR), true);
  assert.is(view.erased!(SECTOR, SECTOR), false);
  assert.is(view.erased!(0, SECTOR), true);
  assert.is(view.erased!(2 * SECTOR, SECTOR), true);
  assert.throws(() => part.erased(5 * SECTOR, SECTOR + 1), /outside the partition/);
  assert.throws(() => view.erased!(2 * SECTOR, SECTOR + 1), /outside/);
  // A flash without one gives a view without one: its reader reads the range itself, once.
  const plain: Flash = {
    size: part.size,
    blockLength: SECTOR,
    read: part.read,
    write: part.write,
    eraseBlock: part.eraseBlock,
  };
  assert.is(blockView(plain, 2, 3).erased, undefined);
});

/** The same flash without its blank check. */
const withoutBlankCheck = (f: Flash): Flash => ({
  size: f.size,
  blockLength: f.blockLength,
  read: (o, n) => f.read(o, n),
  write: (b, o) => f.write(b, o),
  eraseBlock: (k) => f.eraseBlock(k),
});

/** What a ledger opened on `f` knows. */
function seen(f: Flash) {
  const l = Ledger.open(f, { deviceId: 'T-1' });
  return { count: l.count, damage: l.damage, stats: l.stats(), entries: l.entries(), latest: l.latestPaidAtMs };
}

test('a ledger with the blank check reads what one without it reads: orphan slots, garbage, torn headers', () => {
  const sectors = 12;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 40 }),
      fc.array(
        fc.record({
          sector: fc.integer({ min: 0, max: sectors - 1 }),
          kind: fc.constantFrom('header', 'orphan', 'garbage', 'last-byte'),
          at: fc.nat(),
        }),
        { maxLength: 4 },
      ),
      fc.integer({ min: 1, max: 2 ** 31 }),
      (payments, damage, seed) => {
        const chip = new NorFlash({ size: sectors * SECTOR, sectorSize: SECTOR });
        const flash = chip.partition(0, chip.size);
        const l = Ledger.open(flash, { deviceId: 'T-1' });
        for (let i = 0; i < payments; i++)
          l.record({ emission: 3, block: 1, number: i, prizeEur: 5, paidAtMs: 1_790_000_000_000 + i });
        const random = seeded(seed);
        for (const d of damage) {
          const base = d.sector * SECTOR;
          if (d.kind === 'header') {
            // a header bit cleared: its slots become an orphan, or a free sector holds garbage
            chip.write(Uint8Array.of(0xff & ~(1 << (d.at % 8))), base + (d.at % HEADER_SIZE));
          } else if (d.kind === 'orphan') {
            // a whole valid slot in a sector whose header is erased (if it is)
            const slot = d.at % Math.floor((SECTOR - HEADER_SIZE) / SLOT_SIZE);
            const o = base + HEADER_SIZE + slot * SLOT_SIZE;
            if (isErased(chip.read(o, SLOT_SIZE)))
              chip.write(
                encodePayment({
                  emission: 9,
                  block: 9,
                  number: d.at,
                  prizeEur: 1,
                  paidAtMs: 1_790_000_000_000,
                  deviceId: 'X',
                }),
                o,
              );
          } else {
            // one byte programmed: anywhere, or the sector's very last
            const o = d.kind === 'last-byte' ? base + SECTOR - 1 : base + (d.at % SECTOR);
            chip.write(Uint8Array.of(Math.floor(random() * 0xff)), o);
          }
        }
        const fast = seen(flash);
        const slow = seen(withoutBlankCheck(flash));
        assert.equal(fast, slow);
      },
    ),
    { numRuns: 150, seed: 6 },
  );
});

test('an orphan slot alone in the last byte range of a free sector is found, and blank sectors are not read whole', () => {
  const chip = new NorFlash({ size: 8 * SECTOR, sectorSize: SECTOR });
  const flash = chip.partition(0, chip.size);
  // The last slot of sector 6, in a sector without a header: an orphan the blank check must not skip.
  const slots = Math.floor((SECTOR - HEADER_SIZE) / SLOT_SIZE);
  const p = { emission: 4, block: 2, number: 77, prizeEur: 20, paidAtMs: 1_790_000_000_000, deviceId: 'T-1' };
  chip.write(encodePayment(p), 6 * SECTOR + HEADER_SIZE + (slots - 1) * SLOT_SIZE);
  const reads: number[] = [];
  const checks: number[] = [];
  const traced: Flash = {
    ...withoutBlankCheck(flash),
    read: (o, n) => (reads.push(n), flash.read(o, n)),
    erased: (o, n) => (checks.push(o / SECTOR), flash.erased(o, n)),
  };
  const l = Ledger.open(traced, { deviceId: 'T-1' });
  const opening = reads.slice();
  assert.equal(l.find({ emission: 4, block: 2, number: 77 }), p);
  // A blank check of every sector; of the blank ones nothing read, not even a header; sector 6's header
  // then the whole sector.
  assert.equal(checks, [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(opening, [HEADER_SIZE, SECTOR]);
});

test.run();
