// `saphir flash` checks the file itself before asking the device anything (the reproduction of issue
// #12: a file signed by another key, with the hash of the image the device runs, was "nothing to do").
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';

import { FACTORY, flashDevice, onPty, withPty, ptyTest } from './harness.ts';
import { image, hashOf, tempFiles } from './images.ts';

const BAUD = 921600;
const { dir, file } = tempFiles('saphir-host-check-');

ptyTest('a file signed by another key with the running image hash is refused, before the device is asked', async () => {
  // FACTORY's header and bundle, signed by another key: the same SHA-256.
  const forged = image({ version: '1.0.0', counter: 1, size: 30000, salt: 1, seed: new Uint8Array(32).fill(7) });
  assert.is(hashOf(forged), hashOf(FACTORY));
  const dev = await flashDevice();
  await withPty(dev, BAUD, async (pty) => {
    const before = Buffer.from(dev.chip.bytes);
    let received = 0;
    const receive = pty.port.receive.bind(pty.port);
    pty.port.receive = (b: Uint8Array) => {
      received += b.length;
      receive(b);
    };
    const r = await onPty(pty, BAUD, 'flash', file('forged.img', forged));
    assert.is(r.code, 1, r.stdout);
    assert.match(r.stderr, /signature refusée/);
    assert.not.match(r.stdout, /rien à faire/);
    assert.is(received, 0, 'the device was not even asked');
    assert.ok(Buffer.from(dev.chip.bytes).equals(before));
  });
});

ptyTest('--force reinstalls the running image; a same-number build with another hash is not "identique"', async () => {
  const dev = await flashDevice();
  await withPty(dev, BAUD, async (pty) => {
    const same = await onPty(pty, BAUD, 'flash', file('factory.img', FACTORY));
    assert.is(same.code, 0);
    assert.match(same.stdout, /rien à faire \(--force pour la réinstaller\)/);
    assert.match(same.stdout, /1\.0\.0.*1\.0\.0\s+identique/);
    const forced = await onPty(pty, BAUD, 'flash', '--lang', 'en', '--force', file('factory.img', FACTORY));
    assert.is(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /written to slot B and verified/);
    assert.match(forced.stdout, /Restarted on 1\.0\.0, confirmed/);
    assert.is(dev.booted?.slot, 1);
    assert.is(dev.booted?.imageHash, hashOf(FACTORY));
    const rebuild = image({ version: '1.0.0', counter: 1, size: 30000, salt: 99 });
    const dry = await onPty(pty, BAUD, 'flash', '--dry-run', file('rebuild.img', rebuild));
    assert.is(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /même numéro, autre image/);
  });
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
