// The flash layout (rom/layout.ts) against the device class's chip (docs/firmware.md, *Device class
// and budgets*): every partition whole sectors, inside the 4 MiB chip, none overlapping; and why the
// chip is 4 MiB, not 2: the partitions need more than 2 MiB, the mirrored ledger alone about that.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CHIP_SIZE, LAYOUT, LAYOUT_BYTES, SECTOR_SIZE } from '../../rom/layout.ts';
import { LEDGER_MIN_BLOCKS } from '../../src/ledger/mirror.ts';

const MIB = 1024 * 1024;

test('the partitions are whole sectors inside the chip, and none overlaps another', () => {
  const parts = Object.entries(LAYOUT).sort((a, b) => a[1].offset - b[1].offset);
  for (const [name, p] of parts) {
    assert.is(p.offset % SECTOR_SIZE, 0, `${name} starts on a sector`);
    assert.is(p.size % SECTOR_SIZE, 0, `${name} is whole sectors`);
    assert.ok(p.offset + p.size <= CHIP_SIZE, `${name} ends inside the chip`);
  }
  for (let i = 1; i < parts.length; i++) {
    const [prev, p] = [parts[i - 1], parts[i]];
    assert.ok(prev[1].offset + prev[1].size <= p[1].offset, `${prev[0]} overlaps ${p[0]}`);
  }
  assert.ok(LAYOUT.ledger.size / SECTOR_SIZE >= LEDGER_MIN_BLOCKS);
});

test('the device class needs a 4 MiB chip: the layout takes 3 432 KiB, more than 2 MiB', () => {
  assert.is(CHIP_SIZE, 4 * MIB);
  assert.is(LAYOUT_BYTES, 3432 * 1024);
  assert.ok(LAYOUT_BYTES > 2 * MIB);
  assert.ok(LAYOUT.ledger.size > 2 * MIB, 'the mirrored ledger alone is over 2 MiB');
});

test.run();
