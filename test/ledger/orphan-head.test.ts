// Found by the fault explorer (seed bench, index 176): a flipped bit in the header of a log's only
// sector left that log without a head; compaction at the next boot then wrote at a NaN offset, and
// the device halted ("ledger: flash: NaN+0 outside …") instead of taking payments.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { Ledger } from '../../src/ledger/index.ts';

test('a log whose only sector lost its header compacts into a new head and keeps its payment', () => {
  const chip = new NorFlash({ size: 8 * 4096 });
  const flash = chip.partition(0, 8 * 4096);
  const l = Ledger.open(flash, { deviceId: 'T-1' });
  l.record({ emission: 1, block: 1, number: 7, prizeEur: 15, paidAtMs: 1_790_000_000_000 });
  const sector = l.stats().headSector;
  // One bit of the sector header (its magic) cleared: the sector is an orphan, the log has no head.
  chip.write(new Uint8Array([chip.bytes[sector * 4096] & 0xfe]), sector * 4096);
  const r = Ledger.open(flash, { deviceId: 'T-1' });
  assert.ok(r.find({ emission: 1, block: 1, number: 7 }), 'the orphan sector still counts');
  assert.is(
    r.compact(() => true),
    0,
  );
  assert.ok(r.find({ emission: 1, block: 1, number: 7 }));
  const again = Ledger.open(flash, { deviceId: 'T-1' });
  assert.ok(again.find({ emission: 1, block: 1, number: 7 }), 'moved to a new head, on flash');
  again.record({ emission: 1, block: 1, number: 8, prizeEur: 5, paidAtMs: 1_790_000_000_001 });
  assert.is(Ledger.open(flash, { deviceId: 'T-1' }).count, 2);
});

test.run();
