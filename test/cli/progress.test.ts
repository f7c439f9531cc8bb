// Off a terminal (CI logs), gen and audit say how far they are: a line every 10 % on stderr; --quiet: none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saphir } from './run-cli.ts';
import { LONG } from '../helpers.ts';

const TENTHS = /^10 %\n20 %\n30 %\n40 %\n50 %\n60 %\n70 %\n80 %\n90 %\n100 %$/m;
/** Plain lines, each a multiple of 10 above the last, ending at 100 %. */
function steady(stderr: string): boolean {
  const ps = stderr
    .split('\n')
    .filter((l) => / %$/.test(l))
    .map((l) => Number(/^(\d+) %$/.exec(l)?.[1]));
  return ps.length >= 4 && ps.every((p, i) => p % 10 === 0 && (i === 0 || p > ps[i - 1])) && ps[ps.length - 1] === 100;
}

/** What the gen test printed (90 000 codes of block 2), for the audit test. */
let made90k: string | undefined;

// One thread and workers: both in npm run test:long (progress.long.ts), workers only in npm test.
test(`gen: a progress line every 10 % (${LONG ? 'one thread and workers alike' : 'workers'}), none with --quiet`, () => {
  for (const jobs of LONG ? ['1', '2'] : ['2']) {
    const r = saphir([
      'gen',
      '--emission',
      '1',
      '--block',
      '2',
      '--from',
      '0',
      '--count',
      '90000',
      '--jobs',
      jobs,
      '--lang',
      'en',
    ]);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, TENTHS);
    assert.is(r.stdout.trim().split('\n').length, 90000);
    made90k = r.stdout;
  }
  // Three chunks of work: enough for progress lines, were they not quiet.
  const q = saphir(['gen', '--emission', '1', '--block', '2', '--from', '0', '--count', '20000', '--quiet']);
  assert.is(q.code, 0);
  assert.not.match(q.stderr, /%/);
});

test('audit FILE: a progress line every 10 % of the file, none with --quiet', () => {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-progress-'));
  try {
    // The first 30 000 codes of the gen test above (the same as `gen --count 30000`), else made here:
    // 4.9 MB, five jobs of 1 MiB, so five lines (20 % … 100 %); each code verified costs, twice.
    const codes = made90k
      ? made90k.split('\n').slice(0, 30000).join('\n') + '\n'
      : saphir(['gen', '--emission', '1', '--block', '2', '--from', '0', '--count', '30000', '--quiet']).stdout;
    const f = join(dir, 'codes.txt');
    writeFileSync(f, codes);
    const r = saphir(['audit', f, '--jobs', '2', '--lang', 'en']);
    assert.ok(steady(r.stderr), r.stderr);
    const q = saphir(['audit', f, '--jobs', '2', '--quiet', '--lang', 'en']);
    assert.not.match(q.stderr, /%/);
    assert.is(q.stdout, r.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
