// Every key option takes 64 hex digits or a file, read by one function (tools/key-files.ts readKey, #33
// point 3): --key, --tech-key, --firmware-key, --registry-key, --registry-pub, --device-key.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publicKeyOf } from '../../src/crypto/ed25519.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { KeyFileError, publicKeyFrom, readKey, seedFrom } from '../../tools/key-files.ts';
import { saphirIn } from './run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-key-args-'));
const SEED = '5a'.repeat(32);
const PUB = toHex(publicKeyOf(fromHex(SEED)));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

test('readKey: hex, a hex file, and the JSON forms, with key_id when given', () => {
  assert.equal(readKey('--x', SEED), { bare: SEED });
  assert.equal(readKey('--x', ` ${SEED}\n`), { bare: SEED });
  assert.equal(readKey('--x', file('seed.hex', `${SEED}\n`)), { bare: SEED });
  assert.equal(readKey('--x', file('seed.json', JSON.stringify({ key_id: 3, seed_hex: SEED }))), {
    seed: SEED,
    pub: undefined,
    keyId: 3,
  });
  assert.equal(readKey('--x', file('pub.json', JSON.stringify({ public_key_hex: PUB }))).pub, PUB);
  assert.equal(readKey('--x', file('pub2.json', JSON.stringify({ key_id: 1, public_hex: PUB }))).pub, PUB);
  assert.ok(Number.isNaN(readKey('--x', file('id.json', JSON.stringify({ key_id: 300, seed_hex: SEED }))).keyId));
});

test('publicKeyFrom and seedFrom: what each kind of value gives, and the refusals in both languages', () => {
  assert.is(toHex(publicKeyFrom('--x', PUB)), PUB);
  assert.is(toHex(publicKeyFrom('--x', join(dir, 'seed.json'))), PUB, 'a seed file gives its public key');
  assert.is(seedFrom('--x', SEED.toUpperCase()), SEED);
  assert.is(seedFrom('--x', join(dir, 'seed.json')), SEED);
  const refused = (f: () => unknown): KeyFileError => {
    try {
      f();
    } catch (e) {
      if (e instanceof KeyFileError) return e;
      throw e;
    }
    throw new Error('not refused');
  };
  const pubOnly = refused(() => seedFrom('--tech-key', join(dir, 'pub.json')));
  assert.match(pubOnly.message, 'needs the private seed');
  const missing = refused(() => publicKeyFrom('--key', join(dir, 'missing')));
  assert.match(missing.message, 'is neither 64 hex digits nor a key file that can be read (no such file');
  const junk = refused(() => publicKeyFrom('--key', file('junk.txt', 'hello')));
  assert.match(junk.message, 'is no key file');
  const empty = refused(() => publicKeyFrom('--key', file('empty.json', '{}')));
  assert.match(empty.message, 'give seed_hex or public_key_hex');
});

test('the CLI: --tech-key HEX is a key, not a file name; --registry-key and --key take a file as well as hex', async () => {
  // Past the key: the port is what fails (exit 1), not the key (exit 2, "ENOENT" before).
  const hex = await saphirIn(['device', 'info', '--port', join(dir, 'no-port'), '--tech-key', SEED]);
  assert.is(hex.code, 1, hex.stderr);
  assert.match(hex.stderr, 'port série introuvable');
  const seedFile = await saphirIn([
    'ledger',
    'export',
    '--port',
    join(dir, 'no-port'),
    '--tech-key',
    join(dir, 'seed.hex'),
  ]);
  assert.is(seedFile.code, 1, seedFile.stderr);
  const pub = await saphirIn(['device', 'info', '--port', join(dir, 'no-port'), '--tech-key', PUB.slice(2)]);
  assert.is(pub.code, 2);
  assert.match(pub.stderr, '--tech-key : « ');
  const check = await saphirIn(['check', '--key', join(dir, 'pub.json'), 'SPH1:X']);
  assert.is(check.code, 2, 'a trusted key file needs its key_id');
  assert.match(check.stderr, 'key_id');
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
