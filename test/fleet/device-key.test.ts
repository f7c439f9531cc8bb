// The device's registry key is provisioned in the write-once area beside its other trust anchors
// (rom/provision.ts): a provisioned device signs with it, across simulators on the same chip, and a
// production registry refuses it until it is enrolled.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator, bootChip } from '../../hw-sim/sim.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { decodeTrust, isDevDeviceKey, provisionTrust, readTrust } from '../../rom/provision.ts';
import { LAYOUT } from '../../rom/layout.ts';
import { transmit } from '../../hw-sim/scanners/index.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { publicKeyOf } from '../../src/crypto/ed25519.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { DEV_DEVICE_PUBLIC_KEY_HEX } from '../../src/registry/protocol.ts';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../host/registry/embedded.ts';
import '../../hw-sim/node-host.ts';

const SEED = '5a'.repeat(32);
const PUB = toHex(publicKeyOf(fromHex(SEED)));
const CLOCK = Date.UTC(2027, 0, 12, 10, 0, 0);

test('the record carries the device key; blank and keyless records mean the development key', () => {
  const blank = readTrust(bootChip(new NorFlash()));
  assert.ok(!('error' in blank) && isDevDeviceKey(blank.deviceKey.publicKey));

  const chip = bootChip(new NorFlash());
  provisionTrust(chip, { deviceKey: { publicKey: fromHex(PUB), seed: fromHex(SEED) } });
  const t = readTrust(chip);
  assert.ok(!('error' in t));
  assert.is(toHex(t.deviceKey.publicKey), PUB);
  assert.is(toHex(t.deviceKey.seed), SEED);

  // A record written without a device key (as before this field) reads as the development key.
  const old = bootChip(new NorFlash());
  provisionTrust(old, { production: false });
  const o = readTrust(old);
  assert.ok(!('error' in o) && toHex(o.deviceKey.publicKey) === DEV_DEVICE_PUBLIC_KEY_HEX);

  // One bit of the device key flipped: the record is damaged (its CRC covers the key).
  const raw = chip.read(LAYOUT.otp.offset, LAYOUT.otp.size).slice();
  raw[92 + 33 + 3] ^= 1;
  assert.ok('error' in decodeTrust(raw));
  // A seed that is not the public key's is refused at provisioning.
  assert.throws(
    () =>
      provisionTrust(bootChip(new NorFlash()), { deviceKey: { publicKey: fromHex(PUB), seed: new Uint8Array(32) } }),
    /not the seed/,
  );
});

test('a production device provisioned without a device key gets its own, kept across provisionings', () => {
  const chip = bootChip(new NorFlash());
  const fw = publicKeyOf(fromHex('11'.repeat(32)));
  const techKey = publicKeyOf(fromHex('22'.repeat(32)));
  const t = provisionTrust(chip, { firmwareKey: fw, techKey, production: true });
  assert.not.ok(isDevDeviceKey(t.deviceKey.publicKey));
  assert.is(toHex(publicKeyOf(t.deviceKey.seed)), toHex(t.deviceKey.publicKey));
  // The same provisioning again (sim --flash FILE --firmware-key K twice) finds the same record.
  const again = provisionTrust(chip, { firmwareKey: fw, techKey, production: true });
  assert.is(toHex(again.deviceKey.publicKey), toHex(t.deviceKey.publicKey));
  const other = bootChip(new NorFlash());
  const t2 = provisionTrust(other, { firmwareKey: fw, techKey, production: true });
  assert.is.not(toHex(t2.deviceKey.publicKey), toHex(t.deviceKey.publicKey));
});

let reg: EmbeddedRegistry;
const sims: Simulator[] = [];
test.after.each(() => {
  for (const s of sims.splice(0)) s.dispose();
});
test.after(async () => {
  await reg?.close();
});

async function device(o: { chip?: NorFlash; seedHex?: string }, logs: string[]): Promise<Simulator> {
  const sim = new Simulator({
    registry: reg.url,
    deviceId: 'CAISSE-9',
    clockMs: CLOCK,
    chip: o.chip,
    deviceSeedHex: o.seedHex,
    seed: 'dk',
    events: { log: (l) => void logs.push(l) },
  });
  sims.push(sim);
  sim.configure({ deviceId: 'CAISSE-9', registryTimeoutMs: 2000 });
  await sim.boot();
  await sim.run(300);
  return sim;
}

async function payOnce(sim: Simulator, number: number): Promise<string> {
  const done = sim.transmit(transmit('serial', ticketCode({ emission: 1, block: 5, number, prize: 30 }), {}, sim.rng));
  await sim.run(done - sim.now + 300);
  await sim.press('OK');
  await sim.run(3000);
  return sim.screen.map((l) => l.trim()).join(' ');
}

test('a provisioned device signs with its provisioned key: refused by a production registry until enrolled', async () => {
  reg = await startEmbeddedRegistry({ production: true });
  const logs: string[] = [];
  const a = await device({ seedHex: SEED }, logs);
  assert.is(toHex(a.deviceKey.publicKey), PUB);
  // The key is on the chip, where the firmware's HAL reads it; the firmware names it at boot.
  const onChip = readTrust(bootChip(a.chip));
  assert.ok(!('error' in onChip) && toHex(onChip.deviceKey.publicKey) === PUB);
  assert.ok(
    logs.some((l) => l.includes(`device key ${PUB.slice(0, 16)}`) && !l.includes('DEVELOPMENT')),
    logs.join('\n'),
  );

  const first = await payOnce(a, 1);
  assert.match(first, /refusé par le registre/, first + '\n' + logs.join('\n'));
  assert.is(a.ledger().length, 0);
  assert.is((await reg.report()).counts.payments, 0);

  await reg.addDevice('CAISSE-9', PUB);
  assert.match(await payOnce(a, 1), /PAYÉ/);
  const held = (await reg.report()).holders;
  assert.equal(
    held.map((h) => `${h.number} ${h.device_id}`),
    ['1 CAISSE-9'],
  );

  // A new simulator on the same chip, given no key: it signs with the one provisioned there.
  const chip = a.chip;
  a.dispose();
  const b = await device({ chip }, []);
  assert.is(toHex(b.deviceKey.publicKey), PUB);
  assert.match(await payOnce(b, 2), /PAYÉ/);

  // The same id on a device with the development key: refused (the registry knows CAISSE-9's key).
  const devLogs: string[] = [];
  const c = await device({}, devLogs);
  assert.ok(
    // The firmware logs the key's first 16 hex digits; the host says it is the development one.
    devLogs.some((l) => l.includes(`device key ${DEV_DEVICE_PUBLIC_KEY_HEX.slice(0, 16)}`)),
    devLogs.join('\n'),
  );
  assert.match(await payOnce(c, 3), /refusé par le registre/);
  assert.is((await reg.report()).counts.payments, 2);
});

test.run();
