// FULL refuses to pay, with the real bundle in QuickJS on the mirrored ledger: the till says so,
// nothing is written in either log, and the ticket is still payable once room is made.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MirroredLedger } from '../../src/ledger/index.ts';
import { boot, bundleText, chipWith, flat, partitionOf, scanSerial, testConfig, ticket } from './harness.ts';
import { Simulator } from '../../hw-sim/sim.ts';
import { partitionFlash } from '../../hw-sim/device.ts';
import { attacker } from '../../hw-sim/attacker.ts';
import { Outbox } from '../../src/registry/outbox.ts';
import { DEV_REGISTRY_SEED_HEX } from '../../src/registry/protocol.ts';
import { fromHex } from '../../src/hex.ts';

/** 2 mark sectors and two logs of 3 sectors: each log holds (3 - 2) × 102 = 102 payments. */
const SECTORS = 8;

test('a full ledger: ERREUR journal plein, nothing written, both logs unchanged', async () => {
  const chip = chipWith(testConfig({ compactFreeSectors: 0 }));
  const part = () => partitionOf(chip, 'ledger', SECTORS);
  const l = MirroredLedger.open(part(), { deviceId: 'SPH-000042' });
  assert.is(l.capacity, 102);
  for (let i = 0; i < 102; i++)
    l.record({ emission: 1, block: 1, number: i, prizeEur: 150, paidAtMs: Date.UTC(2026, 5, 14) + i });
  const before = Buffer.from(chip.bytes);
  const sim = await boot(chip, { ledgerSectors: SECTORS });
  try {
    assert.match(flat(sim.screen), /PRÊT/);
    await scanSerial(sim, ticket({ number: 500, prizeEur: 150 }));
    assert.match(flat(sim.screen), /^GAGNANT/);
    const writes = chip.counters.writes + chip.counters.erases;
    await sim.press('OK');
    assert.match(flat(sim.screen), /^ERREUR \| journal plein/);
    assert.is(chip.counters.writes + chip.counters.erases, writes, 'no flash operation');
    await sim.run(10000);
    await scanSerial(sim, ticket({ number: 500, prizeEur: 150 }));
    assert.match(flat(sim.screen), /^GAGNANT/, 'still unpaid');
    await scanSerial(sim, ticket({ block: 1, number: 7, prizeEur: 150 }));
    assert.match(flat(sim.screen), /^DÉJÀ PAYÉ/);
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
  const after = MirroredLedger.open(part());
  assert.is(after.logs[0].count, 102);
  assert.is(after.logs[1].count, 102);
  assert.is(after.find({ emission: 1, block: 0, number: 500 }), undefined);
  assert.ok(
    Buffer.from(chip.bytes)
      .subarray(0x110000 + 2 * 4096, 0x110000 + SECTORS * 4096)
      .equals(before.subarray(0x110000 + 2 * 4096, 0x110000 + SECTORS * 4096)),
  );
});

test('a fleet device with a full ledger: journal plein before the registry is asked, so it never holds a ticket this device could not pay', async () => {
  const chip = chipWith(
    testConfig({ compactFreeSectors: 0, registryUrl: 'http://127.0.0.1:9/', syncIntervalMs: 60_000 }),
  );
  const l = MirroredLedger.open(partitionOf(chip, 'ledger', SECTORS), { deviceId: 'SPH-000042' });
  for (let i = 0; i < l.capacity; i++)
    l.record({ emission: 1, block: 1, number: i, prizeEur: 150, paidAtMs: Date.UTC(2026, 5, 14) + i });
  const sim = new Simulator({
    chip,
    bundle: await bundleText(),
    deviceId: 'SPH-000042',
    ledgerSectors: SECTORS,
    registry: 'http://127.0.0.1:9/',
  });
  // A registry that grants every claim (the development registry key the simulator provisions).
  sim.network!.mitm = attacker('fake', fromHex(DEV_REGISTRY_SEED_HEX));
  try {
    await sim.boot();
    assert.match(flat(sim.screen), /PRÊT/);
    await scanSerial(sim, ticket({ number: 500, prizeEur: 150 }));
    assert.match(flat(sim.screen), /^GAGNANT/);
    await sim.press('OK');
    await sim.run(3000);
    assert.match(flat(sim.screen), /^ERREUR \| journal plein/);
    assert.equal(
      sim.network!.sent.filter((r) => r.path === '/v1/claim'),
      [],
      'the registry was not asked',
    );
    assert.is(Outbox.open(partitionFlash(chip, 'outbox', SECTORS)).pending.length, 0, 'nothing waits to be confirmed');
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
});

test.run();
