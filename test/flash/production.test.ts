// Issue 9, item 3 reproduced with the real bundle in the simulator: a development-signed firmware that
// erases the ledger at boot. A development device runs it (the ledger is gone: the control); a
// production-provisioned device refuses it over the service port and at boot, and keeps its payments.
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
import { fromHex, toHex } from '../../src/hex.ts';
import { nodeSign } from '../../tools/node-crypto.ts';
import { publicKeyOf } from '../../src/crypto/ed25519.ts';
import { utf8Encode } from '../../src/utf8.ts';
import { onPty, ptyTest } from './harness.ts';
import { ServiceClient, FlashError } from '../../host/flash-client.ts';
import '../../hw-sim/node-host.ts';

const BAUD = 921600;
const PROD_SEED = new Uint8Array(32).fill(7);
const TECH_SEED = new Uint8Array(32).fill(9);
const ERASE_LEDGER =
  'var f=new device.Flash({partition:"ledger"});for(var i=0;i<f.size/f.blockLength;i++)f.eraseBlock(i);\n';

const factory = ensureImage();
const fp = (() => {
  const p = parseImage(factory);
  if ('error' in p) throw new Error(p.error);
  return p;
})();
const pack = (bundle: Uint8Array, version: string, seed: Uint8Array) =>
  packImage({ bundle, version, boardId: BOARD_ID, securityCounter: fp.header.securityCounter, seed, sign: nodeSign });
const evilBundle = new Uint8Array([...utf8Encode(ERASE_LEDGER), ...fp.bundle]);
const EVIL = pack(evilBundle, '6.6.6', fromHex(DEV_FIRMWARE_SEED_HEX));

async function device(o: { production: boolean }) {
  const chip = new NorFlash();
  const sim = new Simulator(
    o.production ? { chip, firmwareKey: publicKeyOf(PROD_SEED), techKey: publicKeyOf(TECH_SEED) } : { chip },
  );
  provision(
    bootChip(chip),
    o.production ? pack(fp.bundle, fp.versionText, PROD_SEED) : factory,
    fp.header.securityCounter,
  );
  const ledger = MirroredLedger.open(chip.partition(LAYOUT.ledger.offset, LAYOUT.ledger.size), {
    deviceId: 'SIM-0001',
  });
  ledger.record({ emission: 1, block: 3, number: 77, prizeEur: 50, paidAtMs: Date.UTC(2026, 5, 1) });
  sim.configure({});
  await sim.boot();
  return { chip, sim };
}

/** Writes `img` over slot A by other means than the service port (a flash programmer on the board). */
function overwriteSlotA(chip: NorFlash, img: Uint8Array) {
  for (let o = 0; o < img.length; o += 4096) chip.eraseBlock((LAYOUT.slotA.offset + o) / 4096);
  chip.write(img, LAYOUT.slotA.offset);
}

test('control: a development device boots the ledger-erasing development image', async () => {
  const { chip, sim } = await device({ production: false });
  try {
    assert.is(sim.ledger().length, 1);
    overwriteSlotA(chip, EVIL);
    await sim.reboot();
    assert.is(sim.booted?.version, '6.6.6');
    assert.is(sim.ledger().length, 0, 'the payment is forgotten');
  } finally {
    sim.dispose();
  }
});

ptyTest('a production device refuses it over the service port and at boot; the payment stays', async () => {
  const { chip, sim } = await device({ production: true });
  const dir = mkdtempSync(join(tmpdir(), 'saphir-prod-'));
  const img = join(dir, 'evil.img');
  writeFileSync(img, EVIL);
  const tech = join(dir, 'tech.json');
  writeFileSync(tech, JSON.stringify({ seed_hex: toHex(TECH_SEED) }));
  const pty = await exposeServicePort(sim.serviceHost(), { baud: BAUD });
  try {
    assert.is(sim.booted?.version, fp.versionText);
    const open = await onPty(pty, BAUD, 'flash', '--lang', 'en', img);
    assert.is(open.code, 1);
    assert.match(open.stderr, /DEVELOPMENT key: a production device refuses it/);
    const keyed = await onPty(pty, BAUD, 'flash', '--lang', 'en', '--tech-key', tech, img);
    assert.is(keyed.code, 1);
    assert.match(keyed.stderr, /production device/);
    // The device's own check at BEGIN, past the host's.
    const c = await ServiceClient.open(pty.path, { baud: BAUD, techSeed: TECH_SEED });
    const err = await c.begin(EVIL).then(
      () => null,
      (e: FlashError) => e,
    );
    await c.close();
    assert.instance(err, FlashError);
    assert.is(err!.detail.reason, 'signature');
    assert.match(err!.message, /development-signed image: this is a production device/);
    await sim.restarting;
    assert.is(sim.booted?.version, fp.versionText);
    // At boot: the image in the confirmed slot is refused, nothing runs, the ledger is intact.
    overwriteSlotA(chip, EVIL);
    const bootErr = await sim.reboot().then(
      () => null,
      (e: Error) => e,
    );
    assert.match(String(bootErr?.message), /production device/);
    assert.not.ok(sim.on);
    assert.is(sim.ledger().length, 1);
  } finally {
    await pty.close();
    sim.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
