import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saphirIn } from '../cli/run-cli.ts';
import { image } from '../flash/images.ts';
import { DEV_FIRMWARE_PUBLIC_KEY_HEX } from '../../src/image/format.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-inspect-'));
const good = image({ version: '1.2.3+4', counter: 5, size: 3000 });
const put = (name: string, b: Uint8Array) => {
  const p = join(dir, name);
  writeFileSync(p, b);
  return p;
};

test('a good image: header printed, both checks pass, exit 0', async () => {
  const r = await saphirIn(['image', 'inspect', put('good.img', good)]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /Version\s+1\.2\.3\+4/);
  assert.match(r.stdout, /Compteur de sécurité\s+5/);
  assert.match(r.stdout, /0x53480001 \(terminal SAPHIR\)/);
  assert.match(r.stdout, /conforme/);
  assert.match(r.stdout, /clé de développement publiée : valide/);
  const j = await saphirIn(['image', 'inspect', '--json', join(dir, 'good.img')]);
  const o = JSON.parse(j.stdout);
  assert.is(o.ok, true);
  assert.is(o.security_counter, 5);
  assert.is(o.signer, 'dev');
});

test('corrupted, truncated, other key: exit 1 with the reason', async () => {
  const bad = good.slice();
  bad[500] ^= 4;
  const c = await saphirIn(['image', 'inspect', '--lang', 'en', put('bad.img', bad)]);
  assert.is(c.code, 1);
  assert.match(c.stdout, /SHA-256 .* MISMATCH/);
  const t = await saphirIn(['image', 'inspect', put('t.img', good.subarray(0, 2000))]);
  assert.is(t.code, 1);
  assert.match(t.stdout, /NON VALIDE — tronquée : 2000 octets/);
  const k = await saphirIn(['image', 'inspect', '--key', '11'.repeat(32), join(dir, 'good.img')]);
  assert.is(k.code, 1);
  assert.match(k.stdout, /une autre clé : NON VALIDE/);
  const g = await saphirIn(['image', 'inspect', put('garbage.img', new Uint8Array(100).fill(7))]);
  assert.is(g.code, 1);
  assert.match(g.stdout, /signature de format 0x07070707 incorrecte/);
});

test('usage errors exit 2', async () => {
  assert.is((await saphirIn(['image'])).code, 2);
  assert.is((await saphirIn(['image', 'inspect', '--key', 'xyz', 'f'])).code, 2);
  assert.is((await saphirIn(['image', 'inspect', join(dir, 'missing.img')])).code, 1);
});

test('flash and image inspect take --key as 64 hex digits or a key file, and say what is wrong', async () => {
  for (const key of ['ab'.repeat(31), 'ab'.repeat(33), 'zz'.repeat(32)]) {
    const i = await saphirIn(['image', 'inspect', '--lang', 'en', '--key', key, join(dir, 'good.img')]);
    assert.is(i.code, 2, key);
    assert.match(i.stderr, `--key: '${key}' is neither 64 hex digits nor a key file that can be read`);
    const f = await saphirIn(['flash', '--lang', 'fr', '--port', '/dev/nope', '--key', key, join(dir, 'good.img')]);
    assert.is(f.code, 2, key);
    assert.match(f.stderr, `--key : « ${key} » n’est ni 64 chiffres hexadécimaux ni un fichier de clé lisible`);
  }
  // The development key, as hex and in the files a key option takes: the image verifies with each.
  const hex = DEV_FIRMWARE_PUBLIC_KEY_HEX;
  const files = [
    put('dev.hex', new TextEncoder().encode(`${hex}\n`)),
    put('dev.json', new TextEncoder().encode(JSON.stringify({ public_key_hex: hex }))),
    put('dev-public-hex.json', new TextEncoder().encode(JSON.stringify({ key_id: 1, public_hex: hex }))),
  ];
  for (const key of [hex, ...files]) {
    const r = await saphirIn(['image', 'inspect', '--key', key, join(dir, 'good.img')]);
    assert.is(r.code, 0, `${key}: ${r.stderr}`);
  }
  const other = await saphirIn(['image', 'inspect', '--key', 'ab'.repeat(32), join(dir, 'good.img')]);
  assert.is(other.code, 1, 'another key: the signature does not verify');
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
