// The PGlite directory lock within one process (test/registry/lock.test.ts has it between processes): a lock
// this process left behind does not lock it out of its own directory, and a release that cannot read its
// file (every descriptor in use) still removes it. Once, a worker of npm test was refused its own folder.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DirLocked, LOCK_FILE, lockDir } from '../../host/registry/dir-lock.ts';
import { ROOT } from '../helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-dir-lock-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('a lock this process holds refuses it a second time; one naming it that it no longer holds is taken over', () => {
  const db = join(dir, 'own');
  mkdirSync(db);
  const first = lockDir(db);
  assert.throws(
    () => lockDir(db),
    (e: unknown) => e instanceof DirLocked && e.pid === process.pid,
  );
  first.release();
  assert.not.ok(existsSync(join(db, LOCK_FILE)));
  // Left by a release of this process that could not remove it.
  writeFileSync(join(db, LOCK_FILE), JSON.stringify({ pid: process.pid, host: hostname() }) + '\n');
  const again = lockDir(db);
  again.release();
  assert.not.ok(existsSync(join(db, LOCK_FILE)));
  // Another host's lock naming the same pid is never judged from here.
  writeFileSync(join(db, LOCK_FILE), JSON.stringify({ pid: process.pid, host: `${hostname()}-other` }) + '\n');
  assert.throws(
    () => lockDir(db),
    (e: unknown) => e instanceof DirLocked,
  );
});

test('a release while every file descriptor is in use (EMFILE) still removes the lock', () => {
  const db = join(dir, 'emfile');
  mkdirSync(db);
  const lockTs = pathToFileURL(join(ROOT, 'host', 'registry', 'dir-lock.ts')).href;
  const script = `
    import { openSync } from 'node:fs';
    const { lockDir } = await import(${JSON.stringify(lockTs)});
    const lock = lockDir(${JSON.stringify(db)});
    let n = 0;
    try { for (;;) { openSync('/dev/null', 'r'); n++; } } catch (e) { if (e.code !== 'EMFILE') throw e; }
    lock.release();
    process.stdout.write(String(n));`;
  // A low limit for this child only (bash's ulimit), so that filling it is quick.
  const r = spawnSync(
    'bash',
    ['-c', 'ulimit -n 256 && exec "$0" --import tsx --input-type=module -e "$1"', process.execPath, script],
    { cwd: ROOT, encoding: 'utf8', timeout: 30_000 },
  );
  assert.is(r.status, 0, r.stderr);
  assert.ok(Number(r.stdout) > 0, 'descriptors were filled');
  assert.not.ok(existsSync(join(db, LOCK_FILE)), 'the lock went with the release');
});

test.run();
