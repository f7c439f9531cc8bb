// Issue #35 item 1 with the real bundle in QuickJS: one sector lost in each log (different sectors)
// before a boot leaves the counts equal, yet the logs differ; the boot repairs by content, so every
// payment is still there and a later third lost sector still makes no paid ticket payable. The same
// damage in both copies cannot be repaired: no win is paid, and the screen says why.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NorFlash, PowerCut, seeded } from '../../hw-sim/nor-flash.ts';
import { LAYOUT, SECTOR_SIZE } from '../../rom/layout.ts';
import { MARK_BLOCKS, MirroredLedger, type Payment } from '../../src/ledger/index.ts';
import { HEADER_SIZE, SLOT_SIZE } from '../../src/ledger/format.ts';
import { boot, chipWith, flat, partitionOf, scanSerial, ticket } from './harness.ts';

const SECTORS = 24;
const LOG = (SECTORS - MARK_BLOCKS) / 2;
const N = 303; // 102 slots a sector: three sectors of each log
const DEVICE = 'SPH-000042';
const T0 = Date.UTC(2026, 5, 1, 9);
const payments: Payment[] = Array.from({ length: N }, (_, i) => ({
  emission: 1,
  block: 3,
  number: i,
  prizeEur: 150,
  paidAtMs: T0 + i * 60000,
  deviceId: DEVICE,
}));
const T42 = payments[42]; // in each log's first sector

function base(): NorFlash {
  const chip = chipWith();
  const l = MirroredLedger.open(partitionOf(chip, 'ledger', SECTORS), { deviceId: DEVICE });
  for (const p of payments) l.record(p);
  return chip;
}
const sectorAt = (log: number, s: number) => LAYOUT.ledger.offset + (MARK_BLOCKS + log * LOG + s) * SECTOR_SIZE;
const erase = (chip: NorFlash, at: number) => chip.bytes.fill(0xff, at, at + SECTOR_SIZE);
const open = (chip: NorFlash) => MirroredLedger.open(partitionOf(chip, 'ledger', SECTORS));

async function scanned(chip: NorFlash, p: { block: number; number: number }) {
  const sim = await boot(chip, { ledgerSectors: SECTORS });
  try {
    const count = sim.vm!.eval('saphir.ledger.count') as number;
    await scanSerial(sim, ticket({ emission: 1, block: p.block, number: p.number, prizeEur: 150 }));
    const screen = flat(sim.screen);
    await sim.press('OK');
    assert.equal(sim.faults, []);
    return { count, screen, after: flat(sim.screen), logs: sim.periph!.logs.join('\n') };
  } finally {
    sim.dispose();
  }
}

test('one sector lost in each log, different sectors: 303 payments, repaired at boot; a third lost sector leaves 1-3-42 DÉJÀ PAYÉ', async () => {
  const chip = base();
  erase(chip, sectorAt(0, 0)); // payments 0–101 in log A
  erase(chip, sectorAt(1, 1)); // payments 102–203 in log B
  const l = open(chip);
  assert.is(l.logs[0].count, 201);
  assert.is(l.logs[1].count, 201);
  assert.is(l.count, N, 'the union, though the counts are equal');
  assert.not.ok(l.agree);
  const r = await scanned(chip, T42);
  assert.is(r.count, N);
  assert.match(r.screen, /^DÉJÀ PAYÉ/, r.screen);
  // Logged: what went back into B (102–203), then into A (0–101).
  assert.match(r.logs, /ledger: 0 damaged, repaired 1-3-102 [^\n]* 1-3-203 1-3-0 [^\n]* 1-3-101\n/);
  const after = open(chip);
  assert.is(after.logs[0].count, N);
  assert.is(after.logs[1].count, N);
  assert.ok(after.agree);
  // The sector holding 1-3-42 in log B goes too: log A's copy (moved by the repair) remains.
  erase(chip, sectorAt(1, 0));
  const r2 = await scanned(chip, T42);
  assert.match(r2.screen, /^DÉJÀ PAYÉ/, r2.screen);
  assert.is(r2.count, N);
});

test('the same slot damaged in both copies: no win is paid (NON PAYABLE, journal endommagé), boot after boot', async () => {
  const chip = base();
  const slot = HEADER_SIZE + 42 * SLOT_SIZE + 12; // a byte of 1-3-42's prize, in both logs
  chip.bytes[sectorAt(0, 0) + slot] ^= 0x10;
  chip.bytes[sectorAt(1, 0) + slot] ^= 0x01;
  assert.ok(open(chip).doubtful);
  assert.is(open(chip).find(T42), undefined, 'lost in both');
  for (const p of [T42, { block: 3, number: 9999 }]) {
    const r = await scanned(chip, p);
    assert.match(r.screen, /^NON PAYABLE \| journal endommagé/, r.screen);
    assert.match(r.logs, /ledger: damaged, 1-3-(42|9999) not payable/);
    assert.match(r.after, /PRÊT/, 'OK records nothing');
  }
  assert.ok(open(chip).doubtful, 'the damage stays on flash: no compaction took it away');
  assert.is(open(chip).count, N - 1);
});

test('a flipped bit in one log, then a cut at each flash operation of a payment (tearing either log): a new win is still paid', async () => {
  const base0 = base();
  base0.bytes[sectorAt(0, 0) + HEADER_SIZE + 42 * SLOT_SIZE + 12] ^= 0x10;
  const paying: Payment = { ...payments[0], number: 5000, paidAtMs: T0 + N * 60000 };
  // the payment: per log the slot's body, then its type byte (the commit): 4 operations
  for (let op = 1; op <= 4; op++)
    for (const seed of [1, 2]) {
      const chip = new NorFlash({ size: base0.size, sectorSize: base0.blockLength, bytes: base0.bytes });
      chip.cutAtOp(op, seeded(op * 10 + seed));
      assert.throws(
        () => open(chip).record(paying),
        (e: unknown) => e instanceof PowerCut,
      );
      chip.powerOn();
      assert.not.ok(open(chip).doubtful, `cut at op ${op}: ${chip.lastCut?.detail}`);
      const r = await scanned(chip, { block: 3, number: 9000 + op * 10 + seed });
      assert.match(r.screen, /GAGNANT/, `cut at op ${op}, seed ${seed}: ${r.screen}`);
      assert.match(r.after, /PAYÉ/, r.after);
    }
});

test('damage in one log only still pays a new win', async () => {
  const chip = base();
  chip.bytes[sectorAt(0, 0) + HEADER_SIZE + 42 * SLOT_SIZE + 12] ^= 0x10;
  const r = await scanned(chip, { block: 3, number: 9999 });
  assert.match(r.screen, /GAGNANT/, r.screen);
  assert.match(r.after, /PAYÉ/, r.after);
});

test.run();
