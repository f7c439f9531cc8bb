// The explorer reads the device's ledger after nearly every step; a log whose sectors nothing erased,
// programmed or damaged since the last read is taken from the last read (NorFlash.generation). Every way
// the chip changes must reach it: a payment programmed, sectors erased, the explorer's own damage.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator } from '../../hw-sim/sim.ts';
import { readDeviceLedger } from '../../hw-sim/explore/explore.ts';
import { LAYOUT, SECTOR_SIZE } from '../../rom/layout.ts';
import { MirroredLedger } from '../../src/ledger/index.ts';

const SECTORS = 18;
const count = (sim: Simulator) => {
  const r = readDeviceLedger(sim);
  if (!Array.isArray(r)) throw new Error(r.error);
  return r.length;
};

test('the cached read follows programs, erases and damage', () => {
  const sim = new Simulator({ ledgerSectors: SECTORS });
  const part = () => sim.chip.partition(LAYOUT.ledger.offset, SECTORS * SECTOR_SIZE);
  const ledger = MirroredLedger.open(part(), { deviceId: 'SIM-0001' });
  assert.is(count(sim), 0);
  for (let i = 0; i < 3; i++)
    ledger.record({ emission: 1, block: 2, number: 100 + i, prizeEur: 10, paidAtMs: Date.UTC(2027, 0, 1 + i) });
  assert.is(count(sim), 3, 'programs');
  assert.is(count(sim), 3, 'unchanged: the same answer');
  // The explorer's damage writes the chip's bytes directly: every used sector lost, log A's and log B's.
  for (let i = 0; i < 8; i++) sim.damageLedger('lose-sector', 0);
  assert.is(count(sim), 0, 'sectors lost by damageLedger');
  const again = MirroredLedger.open(part(), { deviceId: 'SIM-0001' });
  again.record({ emission: 1, block: 2, number: 200, prizeEur: 10, paidAtMs: Date.UTC(2027, 1, 1) });
  assert.is(count(sim), 1);
  // Erases through the chip (a compaction, a firmware that wipes its partition).
  for (let s = 2; s < SECTORS; s++) sim.chip.eraseBlock(LAYOUT.ledger.offset / SECTOR_SIZE + s);
  assert.is(count(sim), 0, 'erases');
  sim.dispose();
});

test.run();
