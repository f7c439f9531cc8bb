// Provisioned trust anchors in the simulator: the first line of `saphir sim` says which keys the device
// trusts; a production device runs only images signed for it and takes its ticket keys from the
// write-once area, not from the configuration.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { Simulator, ensureImage, bootChip } from '../../hw-sim/sim.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { provision } from '../../rom/bootloader.ts';
import { transmit } from '../../hw-sim/scanners/index.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { BOARD_ID, packImage, parseImage } from '../../src/image/format.ts';
import { publicKeyOf } from '../../src/crypto/ed25519.ts';
import { nodeSign } from '../../tools/node-crypto.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { saphir as runCli, saphirIn } from '../cli/run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-provision-'));
const PROD_SEED = new Uint8Array(32).fill(7);
const PROD_KEY = toHex(publicKeyOf(PROD_SEED));
/** A production device's own technician key (the development one is refused). */
const TECH_KEY = toHex(publicKeyOf(new Uint8Array(32).fill(8)));
/** The CLI in the test's folder (test/cli/run-cli.ts). */
const saphir = (args: string[]) => {
  const r = runCli(args, undefined, {}, dir);
  return { code: r.code, out: r.stdout, err: r.stderr };
};
/** The same in this process (saphirIn): what the run says; the first case runs the process. */
const here = async (args: string[]) => {
  const r = await saphirIn(args);
  return { code: r.code, out: r.stdout, err: r.stderr };
};
/** `saphir sim` of a production device: its firmware key and its own technician key. */
const PROD_SIM = ['sim', '--lang', 'en', '--firmware-key', PROD_KEY, '--tech-key', TECH_KEY];
const scenario = (name: string, device = '') => {
  const f = join(dir, `${name}.yaml`);
  writeFileSync(f, `name: ${name}\n${device}steps:\n  - boot\n  - expect-display: PRÊT\n`);
  return f;
};

test('saphir sim: the first line names the device key: the development one, a fresh production one, or --device-key', async () => {
  const dev = saphir(['sim', '--lang', 'en', '--scenario', scenario('dk-dev')]);
  assert.match(dev.out.split('\n')[0], /device key: the published DEVELOPMENT device key/);
  const prod = await here([...PROD_SIM, '--scenario', scenario('dk-prod')]);
  const fresh = /device key ([0-9a-f]{64}) \(saphir registry devices add ID \1\)/.exec(prod.out.split('\n')[0]);
  assert.ok(fresh, prod.out);
  const seedFile = join(dir, 'device.seed');
  writeFileSync(seedFile, JSON.stringify({ seed_hex: '5a'.repeat(32) }));
  const own = await here(['sim', '--lang', 'en', '--device-key', seedFile, '--scenario', scenario('dk-own')]);
  assert.is(own.code, 0, own.err);
  assert.match(own.out.split('\n')[0], new RegExp(`device key ${toHex(publicKeyOf(new Uint8Array(32).fill(0x5a)))} `));
  writeFileSync(join(dir, 'pub.json'), JSON.stringify({ public_key_hex: PROD_KEY }));
  const pub = await here([
    'sim',
    '--lang',
    'en',
    '--device-key',
    join(dir, 'pub.json'),
    '--scenario',
    scenario('dk-pub'),
  ]);
  assert.is(pub.code, 2, pub.out);
  assert.match(pub.err, /needs the private seed/);
});

test('saphir sim: the first line says development keys, or the provisioned production key', async () => {
  const dev = await here(['sim', '--lang', 'en', '--scenario', scenario('dev')]);
  assert.is(dev.code, 0, dev.err);
  assert.match(dev.out.split('\n')[0], /^DEVELOPMENT device: it trusts the published development keys/);
  const hash = toHex(sha256(publicKeyOf(PROD_SEED))).slice(0, 16);
  const prod = await here([...PROD_SIM, '--scenario', scenario('prod')]);
  assert.match(prod.out.split('\n')[0], new RegExp(`^PRODUCTION device, provisioned: firmware key SHA-256 ${hash}`));
  // No image signed for it on a fresh chip, and no developer mode: it does not start.
  assert.is(prod.code, 1);
  assert.match(prod.out, /production device has no developer mode/);
  // The scenario's own keys, from a file beside it.
  writeFileSync(join(dir, 'fw.pub'), PROD_KEY + '\n');
  writeFileSync(join(dir, 'tech.pub'), TECH_KEY + '\n');
  const sc = await here([
    'sim',
    '--lang',
    'en',
    '--scenario',
    scenario('prod-file', 'device: { firmware-key: fw.pub, tech-key: tech.pub }\n'),
  ]);
  assert.match(sc.out, /production device has no developer mode/);
  const bad = await here(['sim', '--firmware-key', join(dir, 'missing.pub'), '--scenario', scenario('x')]);
  assert.is(bad.code, 2);
  assert.match(
    bad.err,
    /--firmware-key : « .*missing\.pub » n’est ni 64 chiffres hexadécimaux ni un fichier de clé lisible/,
  );
  // A scenario's key file that cannot serve is the same usage error, said without a stack.
  const badSc = await here([
    'sim',
    '--lang',
    'en',
    '--scenario',
    scenario('bad-file', 'device: { firmware-key: none.pub }\n'),
  ]);
  assert.is(badSc.code, 2, badSc.err);
  assert.match(
    badSc.err,
    /^saphir sim: firmware-key: '.*none\.pub' is neither 64 hex digits nor a key file that can be read \(no such file or directory\)/m,
  );
});

test('a production device boots its own image and trusts the provisioned ticket keys only', async () => {
  const p = parseImage(ensureImage());
  if ('error' in p) throw new Error(p.error);
  const img = packImage({
    bundle: p.bundle,
    version: p.versionText,
    boardId: BOARD_ID,
    securityCounter: 1,
    seed: PROD_SEED,
    sign: nodeSign,
  });
  const chip = new NorFlash();
  provision(bootChip(chip), img);
  const sim = new Simulator({
    chip,
    firmwareKey: publicKeyOf(PROD_SEED),
    techKey: fromHex(TECH_KEY),
    clockMs: Date.UTC(2027, 0, 15, 9),
  });
  // The configuration still lists the test key: the provisioned ring (no test key on production) wins.
  sim.configure({});
  await sim.boot();
  assert.match(sim.bootMode, /^image slot A/);
  await sim.run(
    sim.transmit(transmit('hid-pos', ticketCode({ emission: 1, block: 1, number: 1, prize: 0 }), {}, sim.rng)) -
      sim.now +
      10,
  );
  assert.match(sim.screen.join(' '), /NON VALIDE/);
  sim.dispose();
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
