// Issue #35 item 4 with the real bundle in QuickJS: a bad block in the ledger (the chip reports an erase
// or a program failed). A new head goes elsewhere and the payment is made; a failed slot program
// refuses the payment with a clear reason (never PAYÉ for a payment not on flash).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LAYOUT, SECTOR_SIZE } from '../../rom/layout.ts';
import { MARK_BLOCKS, MirroredLedger } from '../../src/ledger/index.ts';
import { TEST_LEDGER_SECTORS, boot, chipWith, flat, partitionOf, scanSerial, ticket } from './harness.ts';

const LOG = (TEST_LEDGER_SECTORS - MARK_BLOCKS) / 2;
const chipSector = (log: number, s: number) => LAYOUT.ledger.offset / SECTOR_SIZE + MARK_BLOCKS + log * LOG + s;

async function payOnce(chip: ReturnType<typeof chipWith>, number: number) {
  const sim = await boot(chip);
  try {
    await scanSerial(sim, ticket({ emission: 1, number, prizeEur: 150 }));
    assert.match(flat(sim.screen), /^GAGNANT/);
    await sim.press('OK');
    assert.equal(sim.faults, []);
    return { screen: flat(sim.screen), logs: sim.periph!.logs.join('\n') };
  } finally {
    sim.dispose();
  }
}

test("the first head's erase fails in either log: the payment goes to another sector, PAYÉ, held in both logs", async () => {
  for (const log of [0, 1]) {
    const chip = chipWith();
    chip.markBad(chipSector(log, 0));
    const r = await payOnce(chip, 21);
    assert.match(r.screen, /^PAYÉ/, r.screen);
    const m = MirroredLedger.open(partitionOf(chip, 'ledger'));
    assert.is(m.logs[0].count, 1);
    assert.is(m.logs[1].count, 1);
  }
});

test('the head goes bad after a payment: the next one is refused (paiement non enregistré), nothing held for it', async () => {
  const chip = chipWith();
  assert.match((await payOnce(chip, 22)).screen, /^PAYÉ/);
  chip.markBad(chipSector(0, 0));
  const r = await payOnce(chip, 23);
  assert.match(r.screen, /^ERREUR \| paiement non \| enregistré/, r.screen);
  assert.match(r.logs, /payment of 1-0-23 failed: flash: program failed/);
  const m = MirroredLedger.open(partitionOf(chip, 'ledger'));
  assert.is(m.find({ emission: 1, block: 0, number: 23 }), undefined);
  assert.ok(m.find({ emission: 1, block: 0, number: 22 }));
});

test.run();
