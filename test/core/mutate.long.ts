// The long tier runs `npm run mutate` (tools/mutate.ts) over every listed mutation of the critical
// modules, in a copy of the tree: each must be killed by its tests, and the run stays within 15 minutes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../tools/paths.ts';

const LIMIT_MS = 15 * 60_000;

test('every listed mutation is killed by its tests (npm run mutate)', () => {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'tools', 'mutate.ts')], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: LIMIT_MS,
  });
  const ms = Date.now() - t0;
  assert.ok(r.error === undefined, `mutate did not end within ${LIMIT_MS / 60000} min: ${r.stdout}`);
  assert.is(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /(\d+) of \1 mutations killed/);
  process.stdout.write(`mutate: ${(ms / 1000).toFixed(0)} s\n${r.stdout}`);
});

test.run();
