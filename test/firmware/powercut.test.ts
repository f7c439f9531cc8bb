// Power cut at every flash operation of a payment and of a compaction, with the real bundle in
// QuickJS: after reboot the ledger holds every payment whose PAYÉ was shown, and the app is ready.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { MirroredLedger as Ledger, type Payment } from '../../src/ledger/index.ts';
import { boot, chipWith, flat, ledgerEntries, partitionOf, scanSerial, testConfig, ticket } from './harness.ts';

const keyOf = (p: { emission: number; block: number; number: number }) => `${p.emission}-${p.block}-${p.number}`;

function copy(chip: NorFlash): NorFlash {
  return new NorFlash({ size: chip.size, sectorSize: chip.blockLength, bytes: chip.bytes });
}

/** Pays `numbers` through the app; returns the keys whose PAYÉ was shown. */
async function payThroughApp(chip: NorFlash, numbers: number[]): Promise<string[]> {
  const sim = await boot(chip);
  const shown: string[] = [];
  try {
    for (const number of numbers) {
      await scanSerial(sim, ticket({ number, prizeEur: 150 }));
      await sim.press('OK');
      if (/^PAYÉ/.test(flat(sim.screen))) shown.push(keyOf({ emission: 1, block: 0, number }));
    }
  } finally {
    sim.dispose();
  }
  return shown;
}

async function rebootChecks(chip: NorFlash, mustHold: string[]): Promise<void> {
  chip.powerOn();
  const held = new Set(ledgerEntries(chip).map(keyOf));
  for (const k of mustHold) assert.ok(held.has(k), `payment ${k} lost`);
  const sim = await boot(chip);
  try {
    assert.match(flat(sim.screen), /PRÊT/, flat(sim.screen));
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
}

for (const before of [0, 3]) {
  test(`power cut at every flash operation of a payment (${before} payments before)`, async () => {
    const base = chipWith();
    const earlier = await payThroughApp(
      base,
      Array.from({ length: before }, (_, i) => 100 + i),
    );
    assert.is(earlier.length, before);
    let cuts = 0;
    for (let n = 1; ; n++) {
      const chip = copy(base);
      const sim = await boot(chip);
      let payeShown: boolean;
      try {
        await scanSerial(sim, ticket({ number: 7, prizeEur: 150 }));
        assert.match(flat(sim.screen), /^GAGNANT/);
        const ops = chip.ops;
        const shown = sim.screens.length;
        chip.cutAtOp(n);
        await sim.press('OK');
        // Every screen since OK: a cut powers the device off at once, so the last one is not enough.
        payeShown = sim.screens.slice(shown).some((s) => /^PAYÉ/.test(flat(s.lines)));
        if (chip.powered) {
          // No cut happened: the payment took fewer than n operations.
          assert.ok(payeShown);
          assert.ok(chip.ops - ops < n);
          chip.cutAtOp(0);
          break;
        }
        cuts++;
        assert.not.ok(sim.on, 'the cut powered the device off');
        // PAYÉ before the cut only once the record was whole (the check journal's entry comes after it):
        // the reboot below then finds the payment.
      } finally {
        sim.dispose();
      }
      await rebootChecks(chip, payeShown ? [...earlier, '1-0-7'] : earlier);
    }
    assert.ok(cuts >= 1, 'a payment writes flash');
  });
}

test('power cut at every flash operation of a compaction at boot', async () => {
  const cfg = testConfig({ compactFreeSectors: 65535 });
  const base = chipWith(cfg);
  const l = Ledger.open(partitionOf(base, 'ledger'), { deviceId: 'SPH-000042' });
  const kept: Payment[] = [];
  // Paid within clockJumpDays of the device's clock (2026-06-15), so that clock is believed at boot.
  const t0 = Date.UTC(2026, 4, 5);
  // Payments of the open emission 1 and of the expired emission 9 (few: every cut point boots twice).
  for (let i = 0; i < 10; i++) {
    const p = { emission: i % 3 === 0 ? 9 : 1, block: 0, number: i, prizeEur: 10, paidAtMs: t0 + i * 1000 };
    l.record(p);
    if (p.emission === 1) kept.push({ ...p, deviceId: 'SPH-000042' });
  }
  const mustHold = kept.map(keyOf);
  let cuts = 0;
  for (let n = 1; ; n++) {
    const chip = copy(base);
    chip.cutAtOp(n);
    const sim = await boot(chip);
    sim.dispose();
    if (chip.powered) {
      chip.cutAtOp(0);
      const after = ledgerEntries(chip);
      assert.is(after.length, kept.length, 'the compaction dropped the expired emission');
      assert.ok(after.every((p) => p.emission === 1));
      break;
    }
    cuts++;
    await rebootChecks(chip, mustHold);
  }
  assert.ok(cuts >= 3, `a compaction takes several operations (${cuts})`);
});

test('an implausible clock (far future) is not believed: every payment is kept', async () => {
  const base = chipWith(testConfig({ compactFreeSectors: 65535 }));
  const l = Ledger.open(partitionOf(base, 'ledger'), { deviceId: 'SPH-000042' });
  for (let i = 0; i < 6; i++)
    l.record({ emission: i % 2 ? 9 : 1, block: 0, number: i, prizeEur: 10, paidAtMs: Date.UTC(2026, 0, 5) });
  const sim = await boot(base, { clockMs: Date.UTC(2150, 0, 1) });
  try {
    assert.ok(
      sim.periph!.logs.some((l) => /clock: RTC .* not believed/.test(l)),
      sim.periph!.logs.join('\n'),
    );
    assert.is(ledgerEntries(base).length, 6);
  } finally {
    sim.dispose();
  }
});

test.run();
