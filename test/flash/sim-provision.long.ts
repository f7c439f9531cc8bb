// `saphir sim --pty --firmware-key K --tech-key T --provision signed.img`: a production device made from
// the command line (issue #35) boots the factory image and refuses a development-signed one over
// `saphir flash`, takes the production-signed update over the pty and confirms it; the chip of --flash is
// kept, and a second run leaves it as it is.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureImage } from '../../hw-sim/sim.ts';
import { BOARD_ID, DEV_FIRMWARE_SEED_HEX, packImage, parseImage } from '../../src/image/format.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { nodeSign } from '../../tools/node-crypto.ts';
import { publicKeyOf } from '../../src/crypto/ed25519.ts';
import { ROOT, requireTool } from '../helpers.ts';
import { saphir, saphirAsync } from '../cli/run-cli.ts';
import { waitFor } from './wait-for.ts';

const ptyTest = requireTool('socat');
const bin = join(ROOT, 'bin', 'saphir.mjs');
const PROD_SEED = new Uint8Array(32).fill(11);
const TECH_SEED = new Uint8Array(32).fill(13);

const p = parseImage(ensureImage());
if ('error' in p) throw new Error(p.error);
const pack = (version: string, seed: Uint8Array) =>
  packImage({ bundle: p.bundle, version, boardId: BOARD_ID, securityCounter: 1, seed, sign: nodeSign });

ptyTest('sim --provision: a production device from the command line refuses a development-signed image', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-provision-'));
  const signed = join(dir, 'signed.img');
  writeFileSync(signed, pack('3.0.0', PROD_SEED));
  const dev = join(dir, 'dev.img');
  writeFileSync(dev, pack('3.0.1', fromHex(DEV_FIRMWARE_SEED_HEX)));
  const next = join(dir, 'next.img');
  writeFileSync(next, pack('3.0.2', PROD_SEED));
  const techFile = join(dir, 'tech.json');
  writeFileSync(techFile, JSON.stringify({ seed_hex: toHex(TECH_SEED) }));
  const fw = toHex(publicKeyOf(PROD_SEED));
  const tech = toHex(publicKeyOf(TECH_SEED));
  const chipFile = join(dir, 'chip.bin');
  const link = join(dir, 'tty');
  // 921 600 baud (not the default 115 200): the promise here is the keys, and the image's ~100 KiB take 1 s, not 9.
  const baud = ['--baud', '921600'];
  const args = [
    'sim',
    '--pty',
    link,
    ...baud,
    '--flash',
    chipFile,
    '--firmware-key',
    fw,
    '--tech-key',
    tech,
    '--lang',
    'en',
  ];
  const run = async (provisionFile: string) => {
    const sim = spawn(process.execPath, [bin, ...args, '--provision', provisionFile], { cwd: ROOT });
    await waitFor(sim.stdout, /service port: /);
    return sim;
  };
  try {
    let sim = await run(signed);
    sim.stdin.write('reboot\n');
    await waitFor(sim.stdout, /image slot A v3\.0\.0/);
    const r = await saphirAsync(['flash', '--port', link, ...baud, '--tech-key', techFile, '--lang', 'en', dev], {
      timeoutMs: 60000,
    });
    assert.is(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /development-signed|production device/, r.stdout + r.stderr);
    // The right one: signed with the production key, the technician's own key, the file checked with --key.
    const ok = await saphirAsync(
      ['flash', '--port', link, ...baud, '--tech-key', techFile, '--key', fw, '--lang', 'en', next],
      {
        timeoutMs: 90000,
      },
    );
    assert.is(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /Restarted on 3\.0\.2, confirmed/, ok.stdout);
    sim.stdin.write('reboot\n');
    await waitFor(sim.stdout, /image slot B v3\.0\.2/);
    // And a development-signed one is still refused now that it runs 3.0.2.
    const dev2 = await saphirAsync(['flash', '--port', link, ...baud, '--tech-key', techFile, '--lang', 'en', dev], {
      timeoutMs: 60000,
    });
    assert.is(dev2.code, 1, dev2.stdout + dev2.stderr);
    sim.stdin.write('quit\n');
    assert.is(await new Promise((res) => sim.on('close', res)), 0);
    // The kept chip, the same image again: left as it is, still production, now running 3.0.2.
    sim = await run(signed);
    sim.stdin.write('reboot\n');
    await waitFor(sim.stdout, /image slot B v3\.0\.2/);
    sim.stdin.write('quit\n');
    await new Promise((res) => sim.on('close', res));
    // Another image on that chip: refused, nothing written.
    const other = saphir([...args, '--provision', dev]);
    assert.is(other.code, 1);
    assert.match(other.stderr, /--provision .*not programmed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
