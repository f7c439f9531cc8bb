// The real firmware bundle (firmware/dist, built if missing) in the simulator: an update written by
// `saphir flash` through the pty boots in QuickJS, the firmware confirms it after its self-test, and it
// survives a reset; the ledger is untouched.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Simulator, bootChip, ensureImage } from '../../hw-sim/sim.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { provision } from '../../rom/bootloader.ts';
import { exposeServicePort } from '../../hw-sim/pty.ts';
import { LAYOUT } from '../../rom/layout.ts';
import { MirroredLedger } from '../../src/ledger/index.ts';
import { BOARD_ID, DEV_FIRMWARE_SEED_HEX, packImage, parseImage } from '../../src/image/format.ts';
import { fromHex } from '../../src/hex.ts';
import { nodeSign } from '../../tools/node-crypto.ts';
import { onPty } from './harness.ts';
import { ServiceClient, FlashError } from '../../host/flash-client.ts';
import { requireTool } from '../helpers.ts';

const withSocat = requireTool('socat');

const BAUD = 921600;

/** The factory image's bundle repacked as `version` (same board and counter), written to a temp file. */
function nextImage(version: string) {
  const factory = ensureImage();
  const p = parseImage(factory);
  if ('error' in p) throw new Error(p.error);
  const next = packImage({
    bundle: p.bundle,
    version,
    boardId: BOARD_ID,
    securityCounter: p.header.securityCounter,
    seed: fromHex(DEV_FIRMWARE_SEED_HEX),
    sign: nodeSign,
  });
  const dir = mkdtempSync(join(tmpdir(), 'saphir-real-'));
  const file = join(dir, 'next.img');
  writeFileSync(file, next);
  return { factory, p, next, dir, file };
}

withSocat('real bundle: flash over the pty, test boot in QuickJS, firmware confirms, survives a reset', async () => {
  const { factory, p, dir, file } = nextImage('9.9.9');

  const chip = new NorFlash();
  provision(bootChip(chip), factory, p.header.securityCounter);
  const ledger = MirroredLedger.open(chip.partition(LAYOUT.ledger.offset, LAYOUT.ledger.size), {
    deviceId: 'SIM-0001',
  });
  ledger.record({ emission: 1, block: 3, number: 77, prizeEur: 50, paidAtMs: Date.UTC(2026, 5, 1) });
  ledger.record({ emission: 1, block: 3, number: 78, prizeEur: 10, paidAtMs: Date.UTC(2026, 5, 2) });
  const sim = new Simulator({ chip });
  sim.configure({});
  await sim.boot();
  assert.is(sim.booted?.version, p.versionText);
  const before = JSON.stringify(sim.ledger());
  // The simulator's service host: REBOOT (and a power cut) restart the device, `sim.restarting`.
  const pty = await exposeServicePort(sim.serviceHost(), { baud: BAUD });
  try {
    const r = await onPty(pty, BAUD, 'flash', '--lang', 'en', file);
    await sim.restarting;
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /Restarted on 9\.9\.9, confirmed/);
    assert.is(sim.booted?.version, '9.9.9');
    assert.not.ok(sim.pendingConfirm);
    await sim.reboot();
    assert.is(sim.booted?.version, '9.9.9');
    assert.is(sim.booted?.slot, 1);
    assert.is(JSON.stringify(sim.ledger()), before);
    const csv = await onPty(pty, BAUD, 'ledger export');
    assert.is(csv.code, 0, csv.stderr);
    assert.is(csv.stdout.trim().split('\n').length, 3);
  } finally {
    await pty.close();
    sim.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

withSocat('real bundle: power cut in the middle of FINISH, the old firmware runs, a re-run completes', async () => {
  const { factory, p, next, dir, file } = nextImage('9.9.8');
  const chip = new NorFlash();
  provision(bootChip(chip), factory, p.header.securityCounter);
  const sim = new Simulator({ chip });
  sim.configure({});
  await sim.boot();
  // The simulator's service host: REBOOT (and a power cut) restart the device, `sim.restarting`.
  const pty = await exposeServicePort(sim.serviceHost(), { baud: BAUD });
  try {
    const c = await ServiceClient.open(pty.path, { baud: BAUD });
    await c.identify();
    await c.begin(next);
    const have = await c.status();
    await c.upload(next, have!.received);
    chip.cutAtOp(1); // FINISH's one write: the boot-state record that marks the slot for its test boot
    const err = await c.finish(1000).then(
      () => null,
      (e: FlashError) => e,
    );
    await c.close();
    await sim.restarting;
    assert.instance(err, FlashError);
    assert.is(sim.booted?.version, p.versionText, 'the old firmware runs');
    const r = await onPty(pty, BAUD, 'flash', '--lang', 'en', file);
    await sim.restarting;
    assert.is(r.code, 0, r.stderr);
    assert.is(sim.booted?.version, '9.9.8');
    assert.not.ok(sim.pendingConfirm);
  } finally {
    await pty.close();
    sim.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
