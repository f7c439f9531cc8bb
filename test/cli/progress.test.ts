// Off a terminal (CI logs), gen and audit say how far they are: a line every 10 % on stderr; --quiet: none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saphir } from './run-cli.ts';
import { LONG, longTest } from '../helpers.ts';

const TENTHS = /^10 %\n20 %\n30 %\n40 %\n50 %\n60 %\n70 %\n80 %\n90 %\n100 %$/m;
/** Plain lines, each a multiple of 10 above the last, ending at 100 %. */
function steady(stderr: string): boolean {
  const ps = stderr
    .split('\n')
    .filter((l) => / %$/.test(l))
    .map((l) => Number(/^(\d+) %$/.exec(l)?.[1]));
  return ps.length >= 4 && ps.every((p, i) => p % 10 === 0 && (i === 0 || p > ps[i - 1])) && ps[ps.length - 1] === 100;
}

/** What the gen test printed (COUNT codes of block 2), for the audit test. */
let made: string | undefined;

// npm run test:long (progress.long.ts): 90 000 codes, 11 chunks of work, so each of the ten lines, on one
// thread and with workers; npm test: 40 000 codes with workers, 5 chunks, so 20 %, 40 % … 100 %.
const COUNT = LONG ? 90000 : 40000;
test(`gen: a progress line every ${LONG ? '10 % (one thread and workers alike)' : 'tenth it passes (workers)'}, none with --quiet`, () => {
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
      String(COUNT),
      '--jobs',
      jobs,
      '--lang',
      'en',
    ]);
    assert.is(r.code, 0, r.stderr);
    if (LONG) assert.match(r.stderr, TENTHS);
    else assert.match(r.stderr, /^20 %\n40 %\n60 %\n80 %\n100 %$/m);
    assert.ok(steady(r.stderr), r.stderr);
    assert.is(r.stdout.trim().split('\n').length, COUNT);
    made = r.stdout;
  }
  // Two chunks of work: enough for progress lines (50 %, 100 %), were they not quiet.
  const q = saphir(['gen', '--emission', '1', '--block', '2', '--from', '0', '--count', '9000', '--quiet']);
  assert.is(q.code, 0);
  assert.not.match(q.stderr, /%/);
});

longTest('audit FILE: a progress line every 10 % of the file, none with --quiet', () => {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-progress-'));
  try {
    // The first N codes of the gen test above (the same as `gen --count N`), else made here; each code
    // verified costs, twice: 30 000, 4.9 MB, five jobs of 1 MiB, so five lines (20 % … 100 %). In the
    // long tier only (~4 s of CPU).
    const n = 30000;
    const codes = made
      ? made.split('\n').slice(0, n).join('\n') + '\n'
      : saphir(['gen', '--emission', '1', '--block', '2', '--from', '0', '--count', String(n), '--quiet']).stdout;
    const f = join(dir, 'codes.txt');
    writeFileSync(f, codes);
    const r = saphir(['audit', f, '--jobs', '2', '--lang', 'en']);
    assert.ok(steady(r.stderr), r.stderr);
    assert.match(r.stderr, /^20 %\n40 %\n60 %\n80 %\n100 %$/m);
    const q = saphir(['audit', f, '--jobs', '2', '--quiet', '--lang', 'en']);
    assert.not.match(q.stderr, /%/);
    assert.is(q.stdout, r.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
