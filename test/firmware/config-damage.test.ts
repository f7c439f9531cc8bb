// A damaged configuration, with the real bundle in QuickJS: one damaged sector leaves the other's copy
// of the same record; both damaged (or a first write torn) halts the device on an error screen instead
// of running on the defaults (no registry, demo payout limit and emissions).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boot, chipWith, flat, ledgerEntries, scanSerial, testConfig, ticket } from './harness.ts';
import { LAYOUT, SECTOR_SIZE } from '../../rom/layout.ts';

const damage = (chip: ReturnType<typeof chipWith>, sector: number) =>
  (chip.bytes[LAYOUT.config.offset + sector * SECTOR_SIZE + 40] ^= 0x10);

test('one damaged config sector: the other holds the same configuration, and the device runs on it', async () => {
  const chip = chipWith(testConfig({ payoutLimitEur: 30 }));
  damage(chip, 0);
  const sim = await boot(chip);
  try {
    assert.match(flat(sim.screen), /PRÊT/);
    assert.ok(
      sim.periph!.logs.some((l) => /^ready: .* limit 30 EUR/.test(l)),
      sim.periph!.logs.join('\n'),
    );
    await scanSerial(sim, ticket({ number: 11, prizeEur: 150 }));
    assert.match(flat(sim.screen), /centre/i, 'above the configured limit, not the demo 300');
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
});

test('both config sectors damaged: halted on ERREUR, no reset loop, scans change nothing, nothing recorded', async () => {
  const chip = chipWith(testConfig({ payoutLimitEur: 30 }));
  damage(chip, 0);
  damage(chip, 1);
  const sim = await boot(chip);
  try {
    assert.match(flat(sim.screen), /^ERREUR \| configuration \| invalide/);
    assert.ok(sim.periph!.logs.some((l) => l === 'halted: configuration invalide'));
    const boots = sim.boots;
    await sim.run(30000);
    assert.is(sim.boots, boots, 'no watchdog reset');
    await scanSerial(sim, ticket({ number: 12, prizeEur: 15 }));
    await sim.press('OK');
    assert.match(flat(sim.screen), /^ERREUR \| configuration \| invalide/);
    assert.equal(ledgerEntries(chip), []);
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
});

test.run();
