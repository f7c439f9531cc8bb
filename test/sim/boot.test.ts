// Booting through the bootloader: a chip holding the signed image runs that image; a damaged one does
// not boot; a chip without images runs the bundle file (developer mode).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator, ensureImage, bootChip } from '../../hw-sim/sim.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { provision } from '../../rom/bootloader.ts';
import { LAYOUT } from '../../rom/layout.ts';
import { transmit } from '../../hw-sim/scanners/index.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import '../../hw-sim/node-host.ts';

test('a chip with the signed image boots it through the bootloader and shows its hash', async () => {
  const chip = new NorFlash();
  provision(bootChip(chip), ensureImage());
  const sim = new Simulator({ chip, clockMs: Date.UTC(2027, 0, 15, 9) });
  sim.configure({});
  await sim.boot();
  assert.match(sim.bootMode, /^image slot A v/);
  assert.match(sim.imageHash, /^[0-9a-f]{64}$/);
  assert.ok(sim.booted);
  assert.ok(
    sim.screens.some((s) => s.lines.join(' ').includes(sim.imageHash.slice(0, 8))),
    'the boot screen shows the image hash',
  );
  await sim.run(
    sim.transmit(transmit('hid-pos', ticketCode({ emission: 1, block: 1, number: 1, prize: 0 }), {}, sim.rng)) -
      sim.now +
      10,
  );
  assert.ok(sim.screen.join(' ').includes('PERDANT'));
  sim.dispose();
});

test('a damaged image does not boot; an empty chip runs the bundle file', async () => {
  const chip = new NorFlash();
  provision(bootChip(chip), ensureImage());
  // Clear bits in the middle of the bundle: the SHA-256 no longer matches.
  chip.write(new Uint8Array(16), LAYOUT.slotA.offset + 4096);
  const sim = new Simulator({ chip });
  let err = '';
  try {
    await sim.boot();
  } catch (e) {
    err = (e as Error).message;
  }
  assert.match(err, /bootloader: no bootable image/);
  assert.not.ok(sim.on);
  const dev = new Simulator();
  dev.configure({});
  await dev.boot();
  assert.is(dev.bootMode, 'developer');
  dev.dispose();
});

test.run();
