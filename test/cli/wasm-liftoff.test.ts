// SAPHIR_WASM_LIFTOFF=1 (test/run.mjs sets it for the processes the tests start): bin/saphir.mjs turns on
// V8's --liftoff-only for its whole life, and opening a PGlite database there leaves it on. Seen by a
// preload that records every V8 flag the process sets.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-liftoff-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const preload = join(dir, 'flags.cjs');
writeFileSync(
  preload,
  `const v8 = require('node:v8'); const fs = require('node:fs'); const set = v8.setFlagsFromString;
   v8.setFlagsFromString = (f) => { fs.appendFileSync(process.env.FLAGS_LOG, f + '\\n'); return set(f); };
   require('node:module').syncBuiltinESMExports();`,
);

/** The V8 flags `saphir ARGS` set, in order. */
function flags(args: string[], liftoff: string): string[] {
  const log = join(dir, `flags-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, '');
  const r = spawnSync(process.execPath, ['--require', preload, join(ROOT, 'bin', 'saphir.mjs'), ...args], {
    cwd: ROOT,
    env: { ...process.env, SAPHIR_WASM_LIFTOFF: liftoff, SAPHIR_PGLITE_LIFTOFF: '1', FLAGS_LOG: log },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.is(r.status, 0, r.stderr);
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

test('on for the whole process under SAPHIR_WASM_LIFTOFF=1, a PGlite database opened included; off without', () => {
  assert.equal(flags(['--version'], '1'), ['--liftoff-only']);
  assert.equal(flags(['--version'], ''), []);
  const db = join(dir, 'db');
  mkdirSync(db);
  const on = flags(['registry', 'devices', 'list', '--db', db], '1');
  assert.is(on[0], '--liftoff-only');
  assert.not.ok(on.includes('--no-liftoff-only'), on.join(' '));
  // Without it, PGlite's own compile still runs on Liftoff, and turns it off after.
  const off = flags(['registry', 'devices', 'list', '--db', db], '');
  assert.ok(off.includes('--liftoff-only') && off.at(-2) === '--no-liftoff-only', off.join(' '));
});

test.run();
