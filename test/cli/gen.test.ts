// `saphir gen` through the real CLI: ranges, determinism, keys, worker threads, usage errors. A few cases
// run it as a process (its start, the crypto library a process picks); the others through its main here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blockGenerator } from '../../src/gen/index.ts';
import { fromHex } from '../../src/hex.ts';
import { TEST_KEY_SEED_HEX } from '../../src/sph1/keys.ts';
import { nodeSign } from '../../tools/node-crypto.ts';
import { RangeEncoder } from '../../host/workers/gen-core.ts';
import { readKeyFile, run } from '../../host/commands/gen.ts';
import { UsageError } from '../../host/args.ts';
import { noStack, readerGoesAway, saphir, saphirIn } from './run-cli.ts';
import { longTest } from '../helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-gen-test-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('a range equals the same lines of a larger generation; same seed, same output; test-key warning', async () => {
  const all = saphir(['gen', '--emission', '3', '--block', '4', '--from', '0', '--count', '12', '--seed', 'abc']);
  assert.is(all.code, 0);
  assert.match(all.stderr, /clé de TEST/);
  const lines = all.stdout.trimEnd().split('\n');
  assert.is(lines.length, 12);
  for (const l of lines) assert.match(l, /^SPH1:[0-9A-Z $%*+\-./:]{159}$/);
  // In this process (saphirIn: the same main); the run above is the process.
  const part = await saphirIn([
    'gen',
    '--emission',
    '3',
    '--block',
    '4',
    '--from',
    '5',
    '--count',
    '4',
    '--seed',
    'abc',
    '--lang',
    'en',
  ]);
  assert.is(part.stdout, lines.slice(5, 9).join('\n') + '\n');
  assert.match(part.stderr, /TEST key/);
  const other = new RangeEncoder(
    blockGenerator('abd', 3, 4),
    { keyId: 0, seed: fromHex(TEST_KEY_SEED_HEX) },
    nodeSign,
  ).encode(5, 4);
  assert.is.not(Buffer.from(other).toString('latin1'), part.stdout);
  // Every generated code is genuine.
  const check = await saphirIn(['check', '-'], all.stdout);
  assert.is(check.code, 0, check.stdout);
});

test('worker threads give the same bytes as a single thread, in ticket-number order', async () => {
  const r = await saphirIn('gen --emission 1 --block 2 --from 100 --count 8300 --jobs 2'.split(' '));
  assert.is(r.code, 0, r.stderr);
  const enc = new RangeEncoder(
    blockGenerator('saphir', 1, 2),
    { keyId: 0, seed: fromHex(TEST_KEY_SEED_HEX) },
    nodeSign,
  );
  assert.ok(r.stdout === Buffer.from(enc.encode(100, 8300)).toString('latin1'), 'worker output differs');
});

test('the same bytes as before the speed work (#14): sha-256 of two ranges, workers and one thread, either library', async () => {
  const sha = (s: string) => createHash('sha256').update(s, 'latin1').digest('hex');
  // Recorded from the generator before it composed tickets as indexes and ran in bundled workers.
  const w = await saphirIn([
    'gen',
    '--emission',
    '7',
    '--block',
    '3',
    '--from',
    '2990000',
    '--count',
    '10000',
    '--seed',
    'golden',
  ]);
  assert.is(w.code, 0, w.stderr);
  assert.is(sha(w.stdout), 'e26e09d828a6a766baefe57dcc437b4089d6cd5ed0e03d9b70e881584fd5f99d');
  const oneArgs = ['gen', '--emission', '1', '--block', '1', '--from', '0', '--count', '3000', '--jobs', '1'];
  const one = await saphirIn(oneArgs);
  assert.is(sha(one.stdout), '59f6f848b59b833e0d060630cc691a9b90ced5bf9a5f8561fe745aeac0368c1a');
  // The node:crypto path (the fallback, and the bench's reference) writes the same bytes (a process: the
  // library is chosen once in a process).
  const fallback = saphir(oneArgs, undefined, { SAPHIR_CRYPTO: 'node' });
  assert.is(sha(fallback.stdout), '59f6f848b59b833e0d060630cc691a9b90ced5bf9a5f8561fe745aeac0368c1a');
});

test('--key FILE signs with that key id; check (test key only) refuses it, audit --key accepts it', async () => {
  const seedHex = '11'.repeat(32);
  const keyFile = join(dir, 'key.json');
  writeFileSync(keyFile, JSON.stringify({ key_id: 1, seed_hex: seedHex }));
  const r = await saphirIn(['gen', '--emission', '1', '--block', '1', '--from', '0', '--count', '3', '--key', keyFile]);
  assert.is(r.code, 0);
  assert.is(r.stderr, '', 'no test-key warning');
  const check = await saphirIn(['check', '--json', '-'], r.stdout);
  assert.is(check.code, 1);
  for (const l of check.stdout.trimEnd().split('\n')) {
    const o = JSON.parse(l);
    assert.is(o.reason, 'E_KEY');
    assert.is(o.ticket.key_id, 1);
  }
  const codes = join(dir, 'k1.txt');
  writeFileSync(codes, r.stdout);
  const audit = await saphirIn(['audit', codes, '--json', '--key', keyFile]);
  const rep = JSON.parse(audit.stdout);
  assert.is(rep.genuine, 3);
  assert.is(rep.invalid.count, 0);
});

test('key files: the documented format is read, anything else is a usage error', () => {
  const f = join(dir, 'k.json');
  writeFileSync(f, JSON.stringify({ key_id: 200, seed_hex: 'ab'.repeat(32) }));
  assert.equal(readKeyFile(f).keyId, 200);
  for (const bad of [
    'nope',
    '{"key_id": 256, "seed_hex": "' + 'ab'.repeat(32) + '"}',
    '{"key_id": 1, "seed_hex": "abc"}',
    '[]',
  ]) {
    writeFileSync(f, bad);
    assert.throws(() => readKeyFile(f), /--key/);
  }
  assert.throws(() => readKeyFile(join(dir, 'missing.json')), /no such file or directory/);
});

longTest('a reader that goes away (gen | head) ends gen quietly, workers included', async () => {
  const args = ['gen', '--emission', '1', '--block', '1', '--from', '0', '--count', '30000', '--jobs', '2'];
  const { code, stderr } = await readerGoesAway(args);
  assert.is(code, 0, 'gen must stop by itself');
  assert.ok(noStack(stderr), stderr);
});

test('usage errors: a UsageError (exit 2 through the CLI), with a message and no stack trace', async () => {
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{');
  for (const args of [
    ['--block', '1', '--full'],
    ['--emission', '1', '--block', '1'],
    ['--emission', '1', '--block', '1', '--full', '--from', '0', '--count', '1'],
    ['--emission', '1', '--block', '1', '--from', '2999999', '--count', '2'],
    ['--emission', '70000', '--block', '1', '--full'],
    ['--emission', '1', '--block', '1', '--from', '0', '--count', '1', '--key', bad],
    ['--emission', '1', '--block', '1', '--full', '--jobs', '0'],
  ]) {
    try {
      await run(args);
      assert.unreachable(args.join(' '));
    } catch (e) {
      assert.instance(e, UsageError, args.join(' '));
    }
  }
  for (const args of [['gen', '--emission', 'x', '--block', '1', '--full']]) {
    const r = await saphirIn(args);
    assert.is(r.code, 2, args.join(' '));
    assert.is(r.stdout, '');
    assert.ok(r.stderr.startsWith('saphir gen: '), r.stderr);
    assert.ok(noStack(r.stderr), r.stderr);
  }
});

test.run();
