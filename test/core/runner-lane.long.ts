// test/run.mjs's waiting lane: files that mostly waited in their last run (a pty, a browser, timeouts) get a
// worker of their own from the start, beside the two that compute. Before it, the first of them took one of
// the two, and a core idled for seconds until the idle sampler started one more (npm test idled 18–23
// core-seconds a run, 5 with the lane, 6 Dec).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { children, commandLine } from '../procs.mjs';
import { startRunner } from './runner-child.ts';

/** The runner's own workers: its children running test/worker.mjs (not what they start: between fork and exec,
 *  tsx's esbuild service shows its worker's command line). */
const workersOf = (runner: number) => children(runner).filter((pid) => commandLine(pid).includes('test/worker.mjs'));

/**
 * Runs test/run.mjs on two files, one of them marked (`waiting`) as having mostly waited last time
 * (SAPHIR_TEST_LAST_TIMES): the most workers seen at once, and the summary.
 */
async function run(waiting: boolean, extra: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-runner-lane-'));
  try {
    const times = join(dir, 'times.json');
    // worker-pool waits for its workers' sleeps; bytes computes. (Two files: the two workers take both at
    // once, and the idle sampler, with no file left, starts no other.)
    writeFileSync(
      times,
      JSON.stringify({
        'core/worker-pool.test.ts': waiting ? [4000, 1000] : [4000, 3800],
        'core/bytes.test.ts': [3000, 2900],
      }),
    );
    const { runner, done } = startRunner(['core/worker-pool', 'core/bytes'], {
      TMPDIR: dir,
      SAPHIR_TEST_LAST_TIMES: times,
      ...extra,
    });
    let most = 0;
    const poll = setInterval(() => {
      most = Math.max(most, workersOf(runner.pid!).length);
    }, 50);
    const { code, out } = await done;
    clearInterval(poll);
    return { code, out, most };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a file that waited last time: a third worker from the start, said in the summary', async () => {
  const r = await run(true);
  assert.is(r.code, 0, r.out);
  assert.is(r.most, 3, 'two workers and the lane');
  assert.match(r.out, /Duration: {2}[\d.]+ s \(2 workers and one for the files that mostly wait/);
  assert.match(r.out, /passed, 0 failed/);
});

test('none waited, or the number of jobs given: no lane', async () => {
  for (const r of [await run(false), await run(true, { SAPHIR_TEST_JOBS: '2' })]) {
    assert.is(r.code, 0, r.out);
    assert.is(r.most, 2, r.out);
    assert.not.match(r.out, /files that mostly wait/);
  }
});

test.run();
