// `registry serve --key HEX|FILE [--production]`: the ticket keys the registry trusts. A production
// registry never trusts the published test key (anyone can sign with it) and grants tickets of the
// production key; serving production without a key is a usage error.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noStack, saphirAsync, saphirIn, type CliResult } from '../cli/run-cli.ts';
import { postRegistry } from '../../host/registry/client.ts';
import { publicKeyOf } from '../../src/crypto/ed25519.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { TEST_PUBLIC_KEY_HEX } from '../../src/sph1/keys.ts';
import { DEV_REGISTRY_SEED_HEX } from '../../src/registry/protocol.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { ticketKeys } from '../../host/commands/registry.ts';
import { UsageError } from '../../host/args.ts';
import { ownKey } from './cases.ts';
import { serve } from './serve-cli.ts';
import '../../hw-sim/node-host.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-keys-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** The production key of these tests: hw-sim/tickets.ts's `other` key, under key id 1. */
const PROD_SEED = '0f'.repeat(32);
const PROD_PUB = toHex(publicKeyOf(fromHex(PROD_SEED)));
const prodTicket = (number: number) => ticketCode({ emission: 9, block: 1, number, prize: 30, key: 'other', keyId: 1 });
const testTicket = (number: number) => ticketCode({ emission: 9, block: 1, number, prize: 30 });

test('--production: test-key tickets are refused (E_KEY), production-key tickets granted', async () => {
  const keyFile = join(dir, 'prod.json');
  writeFileSync(keyFile, JSON.stringify({ key_id: 1, public_hex: PROD_PUB }));
  const db = join(dir, 'prod');
  const k = ownKey('CAISSE-5');
  assert.equal((await saphirIn(['registry', 'devices', 'add', 'CAISSE-5', k.publicHex, '--db', db])).code, 0);
  const srv = await serve(['--db', db, '--production', '--key', keyFile, '--registry-key', '1e'.repeat(32)]);
  try {
    assert.not.match(srv.err(), /TEST ticket key/);
    const bad = await postRegistry(srv.url, 'claim', k, [{ code: testTicket(1), paid_at: Date.now() }]);
    assert.equal(bad.ok && bad.body.results[0], { result: 'invalid', reason: 'E_KEY' });
    const good = await postRegistry(srv.url, 'claim', k, [{ code: prodTicket(2), paid_at: Date.now() }]);
    assert.equal(good.ok && good.body.results[0].result, 'granted');
  } finally {
    assert.equal(await srv.stop(), 0);
  }
});

test('--key replaces the test key (a bare key stands for every key id)', async () => {
  const db = join(dir, 'dev');
  const k = ownKey('CAISSE-6');
  assert.equal((await saphirIn(['registry', 'devices', 'add', 'CAISSE-6', k.publicHex, '--db', db])).code, 0);
  const srv = await serve(['--db', db, '--key', PROD_PUB]);
  try {
    const t = await postRegistry(srv.url, 'claim', k, [{ code: testTicket(3), paid_at: Date.now() }]);
    assert.equal(t.ok && t.body.results[0], { result: 'invalid', reason: 'E_SIGNATURE' });
    const p = await postRegistry(srv.url, 'claim', k, [{ code: prodTicket(4), paid_at: Date.now() }]);
    assert.equal(p.ok && p.body.results[0].result, 'granted');
  } finally {
    await srv.stop();
  }
  assert.match(srv.err(), /trusted ticket key\(s\): 1/);
});

test('--production without a key, with the test key, or without its own registry key, is a usage error; --key is serve’s', async () => {
  const db = join(dir, 'usage');
  // The first as a process, killed rather than waited for if a server starts anyway (the bug); the others
  // in this process (saphirIn, the same main), a server that starts anyway failing the test after 30 s.
  const serveIt = ['registry', 'serve', '--db', db, '--port', '0'];
  const ownRegistryKey = ['--registry-key', '1e'.repeat(32)];
  const here = async (args: string[]) => {
    const out = process.stdout.write;
    const err = process.stderr.write;
    let t: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<CliResult>((r) => {
      t = setTimeout(() => {
        // A server that started keeps saphirIn's capture: this file's own output must go on.
        process.stdout.write = out;
        process.stderr.write = err;
        r({ code: -1, stdout: '', stderr: 'still running after 30 s' });
      }, 30_000);
    });
    const r = await Promise.race([saphirIn(args), late]);
    clearTimeout(t);
    return r;
  };
  const all = [
    [...serveIt, '--production', ...ownRegistryKey],
    [...serveIt, '--production', '--key', TEST_PUBLIC_KEY_HEX, ...ownRegistryKey],
    [...serveIt, '--production', '--key', PROD_PUB],
    [...serveIt, '--production', '--key', PROD_PUB, '--registry-key', DEV_REGISTRY_SEED_HEX],
    [...serveIt, '--key', 'no-such-file.json'],
    ['registry', 'report', '--db', db, '--key', PROD_PUB],
  ];
  const first = saphirAsync(all[0], { timeoutMs: 30_000 });
  const runs: { args: string[]; r: CliResult }[] = [];
  for (const args of all.slice(1)) runs.push({ args, r: await here(args) });
  runs.unshift({ args: all[0], r: await first });
  for (const { args, r } of runs) {
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.ok(noStack(r.stderr), r.stderr);
  }
  assert.match(runs[0].r.stderr, /--production demande la clé/);
  // the registry's own key: absent, or the published development one
  assert.match(runs[2].r.stderr, /--production demande la clé du registre central : --registry-key/);
  assert.match(runs[3].r.stderr, /--production demande la clé du registre central/);
});

test('ticketKeys: several --key values make one ring; production drops key id 0 as the device does', () => {
  const f = join(dir, 'k2.json');
  writeFileSync(f, JSON.stringify({ key_id: 2, seed_hex: '11'.repeat(32) }));
  const ring = ticketKeys([PROD_PUB, f], true);
  assert.is(ring.has(0), false);
  assert.is(toHex(ring.get(1)!), PROD_PUB);
  assert.is(toHex(ring.get(2)!), toHex(publicKeyOf(fromHex('11'.repeat(32)))));
  assert.is(toHex(ticketKeys(undefined, false).get(0)!), TEST_PUBLIC_KEY_HEX);
  assert.throws(
    () => ticketKeys([PROD_PUB, '22'.repeat(32)], false),
    (e: unknown) => e instanceof UsageError && /two different keys/.test(e.message),
  );
  const t0 = join(dir, 'k0.json');
  writeFileSync(t0, JSON.stringify({ key_id: 0, public_hex: TEST_PUBLIC_KEY_HEX }));
  assert.throws(
    () => ticketKeys([PROD_PUB, t0], true),
    (e: unknown) => e instanceof UsageError && /never trusted/.test(e.message),
  );
});

test.run();
