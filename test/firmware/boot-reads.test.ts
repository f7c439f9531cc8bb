// What a boot reads of the real ledger partition (2 × 256 sectors): a young ledger's blank sectors are
// blank-checked by the flash (`Flash.erased`, through the VM bridge), not copied whole into the VM.
// A payment in a sector that lost its header (an orphan) is still found.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LAYOUT, SECTOR_SIZE } from '../../rom/layout.ts';
import { MARK_BLOCKS } from '../../src/ledger/index.ts';
import { HEADER_SIZE, SLOT_SIZE, encodePayment } from '../../src/ledger/format.ts';
import { boot, chipWith, flat, scanSerial, ticket } from './harness.ts';

test('a boot on the real ledger partition blank-checks its blank sectors and reads no sector of its logs whole', async () => {
  const chip = chipWith();
  const logsAt = LAYOUT.ledger.offset + MARK_BLOCKS * SECTOR_SIZE;
  const inLedger = (o: number) => o >= LAYOUT.ledger.offset && o < LAYOUT.ledger.offset + LAYOUT.ledger.size;
  let checks = 0;
  let whole = 0;
  const erased = chip.erased.bind(chip);
  const read = chip.read.bind(chip);
  chip.erased = (o, n) => {
    if (inLedger(o) && n === SECTOR_SIZE) checks++;
    return erased(o, n);
  };
  chip.read = (o, n) => {
    if (inLedger(o) && n === SECTOR_SIZE && o >= logsAt) whole++;
    return read(o, n);
  };
  const sim = await boot(chip, { ledgerSectors: 0 });
  try {
    assert.match(flat(sim.screen), /PRÊT/);
    const logs = (LAYOUT.ledger.size / SECTOR_SIZE - MARK_BLOCKS) & ~1;
    assert.ok(checks >= logs, `${checks} blank checks for ${logs} sectors of logs`);
    assert.is(whole, 0, 'sectors of the logs read whole');
  } finally {
    sim.dispose();
  }
});

test('a payment in a blank-looking sector without a header (an orphan) still makes the ticket already paid', async () => {
  const chip = chipWith();
  const key = { emission: 1, block: 0, number: 4242 };
  // The last slot of the 200th sector of log A, its header erased: only a whole read would find it.
  const sector = LAYOUT.ledger.offset + (MARK_BLOCKS + 200) * SECTOR_SIZE;
  const slots = Math.floor((SECTOR_SIZE - HEADER_SIZE) / SLOT_SIZE);
  chip.write(
    encodePayment({ ...key, prizeEur: 30, paidAtMs: Date.UTC(2026, 5, 1), deviceId: 'SPH-000042' }),
    sector + HEADER_SIZE + (slots - 1) * SLOT_SIZE,
  );
  const sim = await boot(chip, { ledgerSectors: 0 });
  try {
    await scanSerial(sim, ticket({ ...key, prizeEur: 30 }));
    assert.match(flat(sim.screen), /DÉJÀ PAYÉ/);
  } finally {
    sim.dispose();
  }
});

test.run();
