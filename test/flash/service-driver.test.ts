// hw-sim/service-driver.ts, the in-process technician the scenarios and the explorer use: an upload over
// the device's own ServicePort completes and starts on trial; cut at any of its flash operations, a
// resumed upload sends only what the device lacks and completes; forged images are refused at BEGIN
// (another key) and at FINISH (bytes that are not the signed ones), leaving the running image alone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FACTORY, flashDevice, dataSnapshot } from './harness.ts';
import { image, hashOf } from './images.ts';
import { ServiceDriver } from '../../hw-sim/service-driver.ts';
import { readJournal } from '../../rom/update.ts';
import { bootChip, type Simulator } from '../../hw-sim/sim.ts';
import { CMD } from '../../src/service/packet.ts';
import { parseImage } from '../../src/image/format.ts';
import { DEV_TECH_SEED_HEX } from '../../src/service/auth.ts';
import { fromHex } from '../../src/hex.ts';
import { LONG } from '../helpers.ts';

const NEW = image({ version: '1.3.0', counter: 2, size: 150000, salt: 12 });

/** A driver on `dev` whose power cuts leave the device off (the caller boots it again). */
function driverOn(dev: Simulator, o: { techSeed?: Uint8Array } = {}): ServiceDriver {
  return new ServiceDriver(dev.serviceHost({ powerLost: () => dev.powerOff('power cut') }), {
    now: () => dev.now,
    ...o,
  });
}

async function powerBack(dev: Simulator): Promise<void> {
  dev.chip.powerOn();
  if (dev.on) dev.powerOff('reset');
  await dev.boot();
}

test('an upload completes: every chunk sent once, the new image starts on trial and confirms', async () => {
  const dev = await flashDevice();
  const data = dataSnapshot(dev);
  const ops = dev.chip.ops;
  const r = driverOn(dev).upload(NEW);
  assert.ok(r.ok, JSON.stringify(r));
  assert.is(r.ok && r.slot, 'B');
  assert.is(r.ok && r.hash, hashOf(NEW));
  assert.is(r.resumedFrom, 0);
  assert.is(r.sent, NEW.length);
  assert.is(r.writes, Math.ceil(NEW.length / 4096));
  assert.ok(dev.chip.ops - ops > r.writes * 16, 'the chunks went through the chip');
  assert.is(readJournal(bootChip(dev.chip)), null, 'FINISH forgot the journal');
  assert.ok(dev.on, 'not rebooted by the upload');
  await dev.reboot();
  assert.is(dev.booted?.slot, 1);
  assert.is(dev.booted?.version, '1.3.0');
  assert.is(dev.pendingConfirm, false, 'the modelled firmware confirmed it');
  assert.ok(dataSnapshot(dev).equals(data), 'ledger and configuration untouched');
});

// npm test: every 15th; the long tier (service-driver.long.ts) every 5th.
const STRIDE = LONG ? 5 : 15;
test(`cut at every ${STRIDE}th flash operation (and each of the last 6): a resumed upload sends only what is missing and completes`, async () => {
  const probe = await flashDevice();
  const before = probe.chip.ops;
  assert.ok(driverOn(probe).upload(NEW).ok);
  const total = probe.chip.ops - before;
  assert.ok(total > 600, `${total} flash operations`);
  const cuts = new Set<number>();
  for (let n = 1; n <= total; n += STRIDE) cuts.add(n);
  for (let n = total - 5; n <= total; n++) cuts.add(n);
  let resumed = 0;
  for (const n of cuts) {
    const dev = await flashDevice();
    const data = dataSnapshot(dev);
    dev.chip.cutAtOp(n);
    const cut = driverOn(dev).upload(NEW);
    dev.chip.cutAtOp(0);
    assert.not.ok(cut.ok, `cut at ${n} of ${total}`);
    assert.is(!cut.ok && cut.reason, 'power-cut', `cut at ${n}: ${JSON.stringify(cut)}`);
    assert.not.ok(dev.on, 'the device is off');
    await powerBack(dev);
    // The device boots whatever is valid: the factory image, or the new one when FINISH had marked it.
    assert.ok(dev.booted, `cut at ${n}: the device boots`);
    const r = driverOn(dev).upload(NEW, { resume: true });
    assert.ok(r.ok, `cut at ${n}: ${JSON.stringify(r)}`);
    assert.is(r.sent, NEW.length - r.resumedFrom, `cut at ${n}: only the missing chunks are sent`);
    if (r.resumedFrom > 0) {
      resumed++;
      assert.ok(r.sent < NEW.length);
    }
    await dev.reboot();
    assert.is(dev.booted?.version, '1.3.0', `cut at ${n}: the update runs`);
    assert.is(dev.pendingConfirm, false);
    assert.ok(dataSnapshot(dev).equals(data), `cut at ${n}: ledger and configuration untouched`);
  }
  // Past the first chunk's journal mark (op 19) and before FINISH, the device holds something.
  assert.ok(resumed >= cuts.size - 12, `${resumed} of ${cuts.size} uploads resumed`);
});

test('without resume an upload starts afresh (ABORT), and sends the whole image', async () => {
  const dev = await flashDevice();
  dev.chip.cutAtOp(300);
  assert.not.ok(driverOn(dev).upload(NEW).ok);
  dev.chip.cutAtOp(0);
  await powerBack(dev);
  assert.ok(readJournal(bootChip(dev.chip)), 'the journal kept the chunks programmed');
  const r = driverOn(dev).upload(NEW);
  assert.ok(r.ok, JSON.stringify(r));
  assert.is(r.resumedFrom, 0);
  assert.is(r.sent, NEW.length);
});

test('a forged image is refused: another key at BEGIN (nothing written), other bytes at FINISH (no trial)', async () => {
  const dev = await flashDevice();
  const other = image({ version: '1.3.0', counter: 2, size: 150000, salt: 12, seed: new Uint8Array(32).fill(7) });
  const chipBefore = Buffer.from(dev.chip.bytes);
  const r = driverOn(dev).upload(other);
  assert.not.ok(r.ok);
  assert.equal(!r.ok && [r.stage, r.reason], ['begin', 'signature']);
  assert.is(r.sent, 0);
  assert.ok(Buffer.from(dev.chip.bytes).equals(chipBefore), 'refused before a byte was written');
  // The genuine manifest with one byte of the bundle changed: BEGIN accepts it, FINISH hashes the slot.
  const tampered = NEW.slice();
  tampered[40000] ^= 0x01;
  assert.not.ok('error' in parseImage(tampered), 'the manifest still parses');
  const t = driverOn(dev).upload(tampered);
  assert.not.ok(t.ok);
  assert.equal(!t.ok && [t.stage, t.reason], ['finish', 'hash']);
  assert.is(t.sent, NEW.length);
  assert.is(readJournal(bootChip(dev.chip)), null, 'the next run starts over');
  await dev.reboot();
  assert.is(dev.booted?.slot, 0, 'the factory image still runs');
  assert.is(dev.booted?.imageHash, hashOf(FACTORY));
});

test('a driver without the technician key is refused at AUTH; BEGIN is never sent', async () => {
  const dev = await flashDevice();
  const wrong = driverOn(dev, { techSeed: new Uint8Array(32).fill(3) });
  const r = wrong.upload(NEW);
  assert.equal(!r.ok && [r.stage, r.reason], ['auth', 'auth']);
  assert.is(r.sent, 0);
  assert.is(wrong.json(CMD.STATUS)?.session, null, 'no update in progress');
  const d = driverOn(dev, { techSeed: fromHex(DEV_TECH_SEED_HEX) });
  assert.is(d.authenticate(), null);
});

test.run();
