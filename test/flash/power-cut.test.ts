// Power cuts during an update driven over the service protocol (in process, unpaced, no pty: the
// pty path is covered by pty.test.ts and resume.test.ts): at seeded points of the transfer (bytes on
// the wire, or the slot's erases, programs and journal marks), of FINISH's boot-state write, of the test
// boot and of the confirm. Afterwards the device always boots a valid image, old or
// new, the ledger is intact, and a re-run completes the update.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ServiceClient, FlashError } from '../../host/flash-client.ts';
import { FACTORY, flashDevice, dataSnapshot, portLink } from './harness.ts';
import { Simulator } from '../../hw-sim/sim.ts';
import { image, hashOf } from './images.ts';
import { PowerCut, seeded } from '../../hw-sim/nor-flash.ts';
import { LONG } from '../helpers.ts';

const NEW = image({ version: '1.1.0', counter: 2, size: 24000, salt: 9 });
const OLD_HASH = hashOf(FACTORY);
const NEW_HASH = hashOf(NEW);

/** A link to the device's service port that dies with the device's power. */
function connect(dev: Simulator, opts: { cutAfterBytes?: number } = {}) {
  let bytes = 0;
  // A cut the port meets is seen below (the chip unpowered) and handled by powerFail.
  const { link, lose } = portLink(dev.serviceHost({ powerLost: () => {} }));
  let dead = false;
  const powerFail = () => {
    dead = true;
    lose(new Error('device lost power'));
    dev.chip.powerOn();
    void dev.reboot(); // the modelled firmware boots at once
  };
  const write = link.write.bind(link);
  link.write = (b) => {
    if (dead) return;
    bytes += b.length;
    if (opts.cutAfterBytes !== undefined && bytes >= opts.cutAfterBytes) {
      // Power fails while these bytes are on the wire: the RAM session is gone.
      queueMicrotask(powerFail);
      return;
    }
    try {
      write(b);
    } catch (e) {
      // A cut in the reset that follows REBOOT.
      if (!(e instanceof PowerCut)) throw e;
    }
    if (!dev.chip.powered) queueMicrotask(powerFail);
  };
  return new ServiceClient(link, 921600);
}

async function update(dev: Simulator, opts: { cutAfterBytes?: number } = {}): Promise<void> {
  const c = connect(dev, opts);
  await c.flash(NEW);
  await c.reboot();
  await dev.reboot(); // and one more reset after the confirm
}

// npm test cuts at 60 of them, npm run test:long at all 220 (power-cut.long.ts).
const CUTS = LONG ? 220 : 60;
test(`power cut at ${CUTS} seeded points of transfer and swap: always a valid image, ledger intact, re-run completes`, async () => {
  // Flash operations of one whole update, and bytes on the wire.
  const probe = await flashDevice();
  const ops0 = probe.chip.ops;
  await update(probe);
  const totalOps = probe.chip.ops - ops0;
  assert.is(probe.booted?.imageHash, NEW_HASH);
  assert.ok(totalOps > 50, `${totalOps} flash operations`);

  const ENTRIES = JSON.stringify(probe.ledger());
  assert.is(JSON.parse(ENTRIES).length, 5);
  const counts = { old: 0, new: 0, transfer: 0, flash: 0 };
  for (let seed = 1; seed <= CUTS; seed++) {
    const ts = performance.now();
    const rnd = seeded(seed);
    const dev = await flashDevice();
    const data = dataSnapshot(dev);
    let err: unknown;
    if (seed % 4 === 0) {
      counts.transfer++;
      err = await update(dev, { cutAfterBytes: 1 + Math.floor(rnd() * NEW.length) }).then(
        () => null,
        (e) => e,
      );
    } else {
      counts.flash++;
      dev.chip.cutAtOp(1 + Math.floor(rnd() * totalOps), rnd);
      err = await update(dev).then(
        () => null,
        (e) => e,
      );
    }
    if (err !== null && !(err instanceof FlashError) && !(err instanceof PowerCut)) throw err;
    if (err instanceof PowerCut) {
      // Cut in the last reset (outside the protocol): power comes back.
      dev.chip.powerOn();
      await dev.reboot();
    }
    dev.chip.cutAtOp(0);
    for (let r = 0; r < 2; r++) {
      await dev.reboot();
      const h = dev.booted?.imageHash;
      assert.ok(h === OLD_HASH || h === NEW_HASH, `seed ${seed}: boots ${h}`);
      if (h === NEW_HASH) counts.new++;
      else counts.old++;
    }
    assert.ok(dataSnapshot(dev).equals(data), `seed ${seed}: ledger and config untouched`);
    if (seed % 20 === 0) assert.is(JSON.stringify(dev.ledger()), ENTRIES);
    if (seed % 10 === 0 || dev.booted?.imageHash !== NEW_HASH) {
      if (dev.booted?.imageHash !== NEW_HASH) await update(dev);
      assert.is(dev.booted?.imageHash, NEW_HASH, `seed ${seed}: re-run completes`);
      assert.not.ok(dev.booted?.pendingConfirm);
    }
    if (process.env.FLASH_TIMING && performance.now() - ts > 100)
      process.stderr.write(`seed ${seed}: ${Math.round(performance.now() - ts)} ms ${String(err)}\n`);
  }
  assert.ok(counts.old > 0 && counts.new > 0, JSON.stringify(counts));
});

test.run();
