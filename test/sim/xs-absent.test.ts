// A machine without XS (@agoric/xsnap is an optional dependency: npm leaves it out when its build fails
// without a C compiler), simulated by SAPHIR_XS_ABSENT: every use of XS says why and how to install it,
// the CLI in the user's language with exit 1 and no stack, the tests skip (or fail under strict).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saphir } from '../cli/run-cli.ts';
import { ROOT, longTest } from '../helpers.ts';

const ABSENT = { SAPHIR_XS_ABSENT: '1' };
const SCENARIO = join(ROOT, 'hw-sim', 'scenarios', 'clock-back-after-run.yaml');

test('saphir sim --variant xs without XS: the reason and the install command, exit 1, no stack', () => {
  for (const [args, said] of [
    [['sim', '--variant', 'xs'], /^saphir sim: le moteur XS n’est pas disponible : @agoric\/xsnap n’est pas installé/],
    [['sim', '--variant', 'xs', '--lang', 'en'], /^saphir sim: the XS engine is not available: @agoric\/xsnap is not/],
    [['sim', '--explore', '1', '--variant', 'xs'], /le moteur XS n’est pas disponible/],
    [['sim', '--scenario', SCENARIO, '--variant', 'xs'], /le moteur XS n’est pas disponible/],
  ] as const) {
    const r = saphir([...args], '', ABSENT);
    assert.is(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, said);
    assert.match(r.stderr, /apt-get install build-essential && npm ci/);
    assert.not.match(r.stderr, /\n\s+at /, 'no stack');
    assert.not.match(r.stdout, /PRÊT|ok {4}ligne/, 'nothing ran');
  }
});

longTest('a scenario that names XS (variant: xs) stops the same way; QuickJS runs without XS', () => {
  const r = saphir(['sim', '--scenario', SCENARIO], '', ABSENT);
  assert.is(r.code, 0, r.stderr);
  const dir = mkdtempSync(join(tmpdir(), 'saphir-xs-absent-'));
  try {
    const file = join(dir, 'on-xs.yaml');
    writeFileSync(file, readFileSync(SCENARIO, 'utf8').replace(/^name: .*$/m, '$&\nvariant: xs'));
    const xs = saphir(['sim', '--scenario', file, '--lang', 'en'], '', ABSENT);
    assert.is(xs.code, 1, xs.stderr);
    assert.match(xs.stderr, /the XS engine is not available/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

longTest('an XS test skips with the reason and the install command, and fails under SAPHIR_TEST_STRICT=1', () => {
  const probe = (strict: boolean) =>
    spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        "import { test } from 'uvu'; import { requireTool } from './test/helpers.ts';" +
          "requireTool('xsnap')('on XS', () => {}); test.run();",
      ],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...ABSENT, SAPHIR_TEST_STRICT: strict ? '1' : '' } },
    );
  const lax = probe(false);
  assert.is(lax.status, 0, lax.stdout + lax.stderr);
  assert.match(
    lax.stdout,
    /# skip: XS engine \(@agoric\/xsnap\) not available: apt-get install build-essential && npm ci/,
  );
  assert.match(lax.stdout.replace(/\x1b\[[0-9;]*m/g, ''), /Skipped:\s+1/);
  const strict = probe(true);
  assert.is.not(strict.status, 0, 'strict fails');
  assert.match(strict.stdout + strict.stderr, /SAPHIR_TEST_STRICT=1 requires it: apt-get install build-essential/);
});

test.run();
