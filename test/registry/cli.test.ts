// `saphir registry …` as a user runs it: the real binary, PGlite in a temp folder. Each command runs once
// as a process of its own (here or, `devices list` and `revoke`, in lock.test.ts); its next runs are in this
// process (saphirIn: the same main, no start-up).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers.ts';
import { noStack, saphir, saphirIn } from '../cli/run-cli.ts';
import { postRegistry } from '../../host/registry/client.ts';
import { dev, ownKey, win } from './cases.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-reg-'));
const db = join(dir, 'db');
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('serve: a development fleet says so, answers claims, and stops on SIGTERM', async () => {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'saphir.mjs'), 'registry', 'serve', '--db', db, '--port', '0', '--lang', 'en'],
    { cwd: ROOT },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (err += b));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no URL: ${out} ${err}`)), 60_000);
    child.stdout.on('data', () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
  });
  try {
    assert.match(err, /WARNING: development fleet/);
    assert.match(err, /WARNING: the published TEST ticket key is trusted/);
    const r = await postRegistry(url, 'claim', dev('CAISSE-1'), [{ code: win(1), paid_at: Date.now() }]);
    assert.equal(r.ok && r.body.results[0].result, 'granted');
    const health = (await (await fetch(`${url}/health`)).json()) as Record<string, unknown>;
    assert.equal(health.db, 'pglite');
    // No --production, no device enrolled: a development fleet (refusals.test.ts: `production` with it).
    assert.equal(health.fleet, 'development');
    // sodium-native is a dependency: node:crypto here would mean its binding failed to load.
    assert.equal(health.crypto, 'sodium-native');
    const metrics = await (await fetch(`${url}/metrics`)).text();
    assert.match(metrics, /saphir_registry_granted_total 1/);
    assert.match(metrics, /saphir_registry_payments 1/);
    // Structured logs: one JSON object a line.
    const logLine = err.split('\n').find((l) => l.startsWith('{') && l.includes('"claim"'));
    assert.ok(logLine && JSON.parse(logLine).device_id === 'CAISSE-1', err);
  } finally {
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.kill('SIGTERM');
    assert.equal(await closed, 0);
  }
});

test('devices add / list / revoke, and report, on the same database', async () => {
  const k = ownKey('CAISSE-7');
  const add = saphir(['registry', 'devices', 'add', 'CAISSE-7', k.publicHex, '--db', db]);
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stdout, /appareil CAISSE-7 enrôlé/);
  const again = await saphirIn(['registry', 'devices', 'add', 'CAISSE-7', k.publicHex, '--db', db, '--lang', 'en']);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /already enrolled/);
  assert.ok(noStack(again.stderr));
  const list = await saphirIn(['registry', 'devices', 'list', '--json', '--db', db]);
  const rows = JSON.parse(list.stdout) as { device_id: string; revoked_at: number | null }[];
  assert.equal(
    rows.map((r) => r.device_id),
    ['CAISSE-7'],
  );
  assert.equal((await saphirIn(['registry', 'devices', 'revoke', 'CAISSE-7', '--db', db])).code, 0);
  assert.equal((await saphirIn(['registry', 'devices', 'revoke', 'CAISSE-7', '--db', db])).code, 1);
  const rep = saphir(['registry', 'report', '--json', '--db', db]);
  assert.equal(rep.code, 0, rep.stderr);
  const j = JSON.parse(rep.stdout);
  assert.equal(j.totals, { payments: 1, total_eur: 30 });
  const text = await saphirIn(['registry', 'report', '--db', db, '--lang', 'en']);
  assert.match(text.stdout, /payments: 1, total €30/);
  assert.match(text.stdout, /conflicts: 0/);
  assert.match(text.stdout, /reservations released \(.*\): 0/);
});

test('usage errors are exit 2 with the reason', async () => {
  // The first as a process (its exit code), the others in this process: the same main.
  const first = saphir(['registry']);
  assert.equal(first.code, 2);
  assert.ok(noStack(first.stderr));
  for (const args of [
    ['registry', 'devices', 'add', 'X'],
    ['registry', 'report', '--since', 'yesterday', '--db', db],
    ['registry', 'serve', '--db', db, '--postgres', 'postgres://x'],
    ['registry', 'devices', 'add', 'CAISSE-8', 'not-a-key', '--db', db],
    ['registry', 'serve', '--reservation-minutes', '0', '--db', db],
    ['registry', 'report', '--reservation-minutes', '5', '--db', db],
  ]) {
    const r = await saphirIn(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.ok(noStack(r.stderr));
  }
});

test('impossible dates and device ids are usage errors, said in the user’s language', async () => {
  const k = ownKey('CAISSE-9').publicHex;
  const since = await saphirIn(['registry', 'report', '--since', '2027-02-31', '--db', db]);
  assert.equal(since.code, 2, since.stdout + since.stderr);
  assert.match(since.stderr, /--since prend une date AAAA-MM-JJ qui existe, pas « 2027-02-31 »/);
  assert.equal((await saphirIn(['registry', 'report', '--since', '2027-13-01', '--db', db])).code, 2);
  const id = await saphirIn(['registry', 'devices', 'add', 'bad id', k, '--db', db]);
  assert.equal(id.code, 2, id.stderr);
  assert.match(id.stderr, /identifiant d’appareil « bad id » : 1 à 16 caractères ASCII imprimables/);
  const key = await saphirIn(['registry', 'devices', 'add', 'CAISSE-8', 'not-a-key', '--db', db]);
  assert.match(key.stderr, /CLÉ « not-a-key » : 64 chiffres hexadécimaux/);
  const both = await saphirIn(['registry', 'serve', '--db', db, '--postgres', 'postgres://x']);
  assert.match(both.stderr, /--db et --postgres s’excluent/);
  const again = await saphirIn(['registry', 'devices', 'add', 'CAISSE-7', k, '--db', db]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /appareil CAISSE-7 déjà enrôlé/);
  // A real day is still a date: 2028-02-29 (leap year).
  assert.equal((await saphirIn(['registry', 'report', '--since', '2028-02-29', '--json', '--db', db])).code, 0);
});

test.run();
