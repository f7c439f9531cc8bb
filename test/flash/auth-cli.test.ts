// `saphir flash`, `device info`, `ledger export` with technician keys, over a real pseudo-terminal.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';

import { sha256 } from '@noble/hashes/sha2.js';
import { flashDevice, onPty, withPty, ptyTest } from './harness.ts';
import { saphirIn } from '../cli/run-cli.ts';
import { image, tempFiles } from './images.ts';
import { publicKeyOf } from '../../src/crypto/ed25519.ts';
import { toHex } from '../../src/hex.ts';
import { ServiceClient, FlashError } from '../../host/flash-client.ts';

const BAUD = 921600;
const { dir, file } = tempFiles('saphir-auth-cli-');
const PROD_SEED = new Uint8Array(32).fill(7);
const TECH_SEED = new Uint8Array(32).fill(9);
const PROD_FACTORY = image({ version: '1.0.0', counter: 1, size: 20000, salt: 4, seed: PROD_SEED });
const DEV_NEW = image({ version: '1.1.0', counter: 2, size: 20000, salt: 3 });
const techFile = file('tech.json', JSON.stringify({ seed_hex: toHex(TECH_SEED) }));
const production = () =>
  flashDevice({
    provisioned: { firmwareKey: publicKeyOf(PROD_SEED), techKey: publicKeyOf(TECH_SEED), production: true },
    factory: PROD_FACTORY,
  });

ptyTest('a development device says it is one; the default technician key works with a warning', async () => {
  const dev = await flashDevice();
  await withPty(dev, BAUD, async (pty) => {
    const r = await onPty(pty, BAUD, 'device info', '--lang', 'en');
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /Kind\s+development device \(published development keys\)/);
    assert.match(r.stdout, /Service access\s+granted/);
    assert.match(r.stderr, /DEVELOPMENT technician key/);
    const l = await onPty(pty, BAUD, 'ledger export');
    assert.is(l.code, 0, l.stderr);
    assert.is(l.stdout.trim().split('\n').length, 6);
  });
});

ptyTest('a production device: shows its key hash; refuses the dev technician key and dev-signed images', async () => {
  const dev = await production();
  const before = Buffer.from(dev.chip.bytes);
  await withPty(dev, BAUD, async (pty) => {
    const info = await onPty(pty, BAUD, 'device info', '--lang', 'en');
    assert.is(info.code, 0, info.stderr);
    assert.match(info.stdout, /Kind\s+PRODUCTION device/);
    assert.ok(info.stdout.includes(toHex(sha256(publicKeyOf(PROD_SEED)))), info.stdout);
    assert.match(info.stdout, /Service access\s+refused/);
    const withKey = await onPty(pty, BAUD, 'device info', '--lang', 'en', '--tech-key', techFile);
    assert.match(withKey.stdout, /Service access\s+granted/);
    assert.not.match(withKey.stderr, /DEVELOPMENT/);

    const noKey = await onPty(pty, BAUD, 'ledger export', '--lang', 'en');
    assert.is(noKey.code, 1);
    assert.match(noKey.stderr, /service access refused/);
    // An image signed for it, but the development technician key: no session, nothing written.
    const prodImg = file('prod.img', image({ version: '1.1.0', counter: 2, size: 20000, salt: 6, seed: PROD_SEED }));
    const f1 = await onPty(pty, BAUD, 'flash', '--lang', 'en', '--key', toHex(publicKeyOf(PROD_SEED)), prodImg);
    assert.is(f1.code, 1);
    assert.match(f1.stderr, /service access refused/);
    const img = file('dev.img', DEV_NEW);
    const f2 = await onPty(pty, BAUD, 'flash', '--lang', 'en', '--tech-key', techFile, img);
    assert.is(f2.code, 1);
    assert.match(f2.stderr, /refused: image signed with the DEVELOPMENT key: a production device refuses it/);
    assert.match(f2.stdout, /Nothing was written/);
    assert.ok(Buffer.from(dev.chip.bytes).equals(before), 'nothing written');
    assert.is(dev.boots, 1);
  });
});

ptyTest(
  'issue 9 item 4 over the pty: fragmenting WRITEs are cut off, device info still answers, flash completes',
  async () => {
    const dev = await flashDevice();
    await withPty(dev, BAUD, async (pty) => {
      const big = image({ version: '1.3.0', counter: 2, size: 120000, salt: 11 });
      const c = await ServiceClient.open(pty.path, { baud: BAUD });
      await c.identify();
      await c.begin(big);
      // "Already held": everything but every other byte of the first 4 000: one-byte WRITEs at alternating offsets.
      const have: [number, number][] = [];
      for (let o = 40; o < 4040; o += 2) have.push([o + 1, o + 2]);
      have.unshift([0, 41]);
      have.push([4041, big.length]);
      const err = await c.upload(big, have, { chunk: 1 }).then(
        () => null,
        (e: FlashError) => e,
      );
      await c.close();
      assert.instance(err, FlashError);
      assert.match(err!.message, /not a whole chunk/);
      const id = pty.port.identify();
      assert.ok(JSON.stringify(id).length < 4000, `IDENTIFY ${JSON.stringify(id).length} bytes`);
      const info = await onPty(pty, BAUD, 'device info', '--lang', 'en');
      assert.is(info.code, 0, info.stderr);
      assert.match(info.stdout, /Interrupted transfer/);
      const f = await onPty(pty, BAUD, 'flash', '--lang', 'en', file('big.img', big));
      assert.is(f.code, 0, f.stderr);
      assert.match(f.stdout, /Restarted on 1\.3\.0/);
    });
  },
);

test('a bad --tech-key file is a usage error', async () => {
  const r = await saphirIn(['ledger', 'export', '--port', '/nonexistent', '--tech-key', file('bad.json', '{"x":1}')]);
  assert.is(r.code, 2);
  assert.match(r.stderr, /--tech-key/);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
