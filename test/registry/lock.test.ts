// A PGlite registry directory is one process's: `registry serve` holds it, and every other process
// (devices add/revoke, report, a second serve) is refused with the holder's pid and what to do. Real
// separate processes: the lock is between processes (the set-up and the checks after run in this one).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers.ts';
import { noStack, saphir, saphirIn } from '../cli/run-cli.ts';
import { postRegistry } from '../../host/registry/client.ts';
import { LOCK_FILE } from '../../host/registry/dir-lock.ts';
import { ownKey, win } from './cases.ts';
import { serve } from './serve-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-lock-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('while serve runs, devices add/revoke, report and a second serve are refused; after it stops they work', async () => {
  const db = join(dir, 'db');
  const k = ownKey('CAISSE-3');
  const other = ownKey('CAISSE-4');
  assert.equal((await saphirIn(['registry', 'devices', 'add', 'CAISSE-3', k.publicHex, '--db', db])).code, 0);
  const srv = await serve(['--db', db]);
  try {
    const pid = String(srv.child.pid);
    // The first refused as a process (its exit code), the others in this process (saphirIn, the same main).
    for (const [i, args] of [
      ['registry', 'devices', 'revoke', 'CAISSE-3', '--db', db],
      ['registry', 'devices', 'add', 'CAISSE-4', other.publicHex, '--db', db, '--lang', 'en'],
      ['registry', 'report', '--db', db],
    ].entries()) {
      const r = i === 0 ? saphir(args) : await saphirIn(args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stdout} ${r.stderr}`);
      assert.match(r.stderr, args.includes('en') ? `in use by process ${pid}` : `utilisée par le processus ${pid}`);
      assert.match(r.stderr, /registry serve/);
      assert.match(r.stderr, /PostgreSQL/);
      assert.ok(noStack(r.stderr), r.stderr);
    }
    // A second server on the same directory would grant the tickets the first one grants.
    const second = spawnSync(
      process.execPath,
      ['bin/saphir.mjs', 'registry', 'serve', '--db', db, '--port', '0', '--lang', 'en'],
      { cwd: ROOT, timeout: 60_000 },
    );
    assert.equal(second.status, 1, String(second.stderr));
    assert.match(String(second.stderr), `in use by process ${pid}`);
    // The revocation refused above did not happen: the running server still hears CAISSE-3.
    const r = await postRegistry(srv.url, 'claim', k, [{ code: win(41), paid_at: Date.now() }]);
    assert.equal(r.ok && r.body.results[0].result, 'granted');
  } finally {
    assert.equal(await srv.stop(), 0);
  }
  assert.not.ok(existsSync(join(db, LOCK_FILE)), 'the lock is released when serve stops');
  assert.equal((await saphirIn(['registry', 'devices', 'revoke', 'CAISSE-3', '--db', db])).code, 0);
  // The revocation stands for the next server.
  const again = await serve(['--db', db]);
  try {
    const r = await postRegistry(again.url, 'claim', k, [{ code: win(42), paid_at: Date.now() }]);
    assert.equal(!r.ok && r.body.error, 'revoked');
  } finally {
    await again.stop();
  }
});

test('a lock left by a process that died is taken over (and released after)', async () => {
  const db = join(dir, 'stale');
  mkdirSync(db); // an empty folder: list makes the database in it
  assert.equal((await saphirIn(['registry', 'devices', 'list', '--db', db])).code, 0);
  const dead = spawnSync(process.execPath, ['-e', '']).pid!;
  writeFileSync(join(db, LOCK_FILE), JSON.stringify({ pid: dead, host: hostname() }) + '\n');
  const r = await saphirIn(['registry', 'devices', 'list', '--db', db]); // this process takes it over
  assert.equal(r.code, 0, r.stderr);
  assert.not.ok(existsSync(join(db, LOCK_FILE)));
  // A live holder (this test's process) is not taken over.
  writeFileSync(join(db, LOCK_FILE), JSON.stringify({ pid: process.pid, host: hostname() }) + '\n');
  const held = saphir(['registry', 'devices', 'list', '--db', db, '--lang', 'en']);
  assert.equal(held.code, 1);
  assert.match(held.stderr, `in use by process ${process.pid}`);
  rmSync(join(db, LOCK_FILE));
});

// The refusals of a --db path are the CLI's, checked in this process (saphirIn); the lock's cases above run processes.
test('--db that is a file, or a directory of other files, is refused: nothing created beside them', async () => {
  const file = join(dir, 'notes.txt');
  writeFileSync(file, 'not a database\n');
  const f = await saphirIn(['registry', 'report', '--db', file]);
  assert.equal(f.code, 1);
  assert.match(f.stderr, `--db ${file} est un fichier`);
  assert.not.match(f.stderr, /object Object/);
  assert.ok(noStack(f.stderr), f.stderr);

  const typo = join(dir, 'projects');
  mkdirSync(typo);
  writeFileSync(join(typo, 'README'), 'mine\n');
  const d = await saphirIn(['registry', 'report', '--db', typo, '--lang', 'en']);
  assert.equal(d.code, 1);
  assert.match(d.stderr, /is not a registry database/);
  assert.equal(readdirSync(typo), ['README']);
});

test('report, devices list and revoke on a --db that does not exist: said, exit 1, nothing created', async () => {
  const missing = join(dir, 'typo');
  for (const args of [['report'], ['devices', 'list'], ['devices', 'revoke', 'CAISSE-3']]) {
    const fr = await saphirIn(['registry', ...args, '--db', missing]);
    assert.equal(fr.code, 1, args.join(' '));
    assert.match(fr.stderr, `pas de base du registre central dans ${missing}`);
    assert.not.match(fr.stdout, /0/);
    assert.not.ok(existsSync(missing), args.join(' '));
  }
  assert.match(
    (await saphirIn(['registry', 'report', '--db', missing, '--lang', 'en'])).stderr,
    `no registry database in ${missing}`,
  );
});

test.run();
