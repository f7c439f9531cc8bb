// test/run.mjs's workers never outlive it (killed, Ctrl-C, or stopped by `npm test | head`), nor what they started:
// they were left running their files as orphans at full CPU, and then, stopped at once, left their
// files' simulators running (a detached `saphir sim --pty` and its socat, for good). A worker whose file
// writes nothing hears of it through its channel to the runner alone. A runner that hears itself stopped (not
// SIGKILL) removes its run folder, on /dev/shm memory, as its normal end does.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fork, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../helpers.ts';
import { commandLine, marked } from '../procs.mjs';
import { runnerEnv as env } from './runner-child.ts';

const isWorker = (pid: number) => commandLine(pid).includes('worker.mjs');

/** A marker for the processes of one test: `mark` to look them up by, `env` to start them with. */
function marker(name: string) {
  const value = `${process.pid}-${Date.now()}`;
  return { mark: `${name}=${value}`, env: { ...env, [name]: value } };
}

/** Polls `f` every 100 ms until it is true, for at most `ms`. */
async function until(f: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100)))
    if (f()) return true;
  return f();
}

/** The run folders (`saphir-test-run-*`, test/run.mjs) left in `dir`. */
const runFolders = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('saphir-test-run-'));

for (const [signal, killAfterMs] of [
  ['SIGKILL', 500],
  ['SIGKILL', 4000],
  ['SIGINT', 1500],
] as const)
  test(`the runner ${signal === 'SIGKILL' ? 'killed' : 'given Ctrl-C (SIGINT to it alone)'} ${killAfterMs} ms after its workers start: they stop at once, and what they started`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'saphir-runner-exit-'));
    const workers = () => marked(`TMPDIR=${dir}`).filter(isWorker);
    // Every process of the run has its TMPDIR (under dir), detached ones too.
    const mine = () => marked(`TMPDIR=${dir}`);
    try {
      // As they load their files, or well into them. Two files of ~15 s each, one a worker (a worker busy in a synchronous call, a CLI run, hears of it after).
      const runner = spawn(process.execPath, ['test/run.mjs', 'sim/cli', 'cli/ctrl-c'], {
        cwd: ROOT,
        env: { ...env, TMPDIR: dir },
        stdio: 'ignore',
      });
      const closed = new Promise<NodeJS.Signals | null>((resolve) => runner.on('close', (_c, sig) => resolve(sig)));
      assert.ok(await until(() => workers().length >= 2, 20_000), 'two workers started'); // (three with the waiting lane)
      assert.equal(runFolders(dir).length, 1, 'the run has its folder');
      await new Promise((r) => setTimeout(r, killAfterMs));
      runner.kill(signal);
      assert.is(await closed, signal);
      const gone = await until(() => mine().length === 0, 5000);
      const left = mine();
      for (const pid of left) process.kill(pid, 'SIGKILL');
      assert.ok(gone, `${left.length} processes outlived the runner`);
      // Its folder (on /dev/shm: memory) goes with it, unless it could not hear the signal.
      if (signal !== 'SIGKILL') assert.equal(runFolders(dir), [], 'no run folder left');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

test('npm test | head: the runner exits without a stack trace once its reader is gone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-runner-exit-'));
  try {
    const runner = spawn(process.execPath, ['test/run.mjs', 'core/bytes', 'core/arrows'], {
      cwd: ROOT,
      env: { ...env, TMPDIR: dir, SAPHIR_TEST_JOBS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    runner.stderr.on('data', (b) => (err += b));
    // The reader takes the first bytes (the first file's lines) and goes away: the next write fails.
    await new Promise<void>((resolve) => runner.stdout.once('data', () => resolve()));
    runner.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => runner.on('close', resolve));
    assert.is(code, 1, err);
    assert.not.match(err, /EPIPE|\n\s+at /);
    assert.equal(runFolders(dir), [], 'no run folder left');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the summary names the slowest tests: each test of every file once, in one worker too', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-runner-times-'));
  try {
    // One worker runs the three files in turn: the timing hooks must be set again after each file's run.
    const r = spawnSync(process.execPath, ['test/run.mjs', '--times', 'core/bytes', 'core/arrows', 'core/layout'], {
      cwd: ROOT,
      env: { ...env, TMPDIR: dir, SAPHIR_TEST_JOBS: '1', FORCE_COLOR: '0' },
      encoding: 'utf8',
    });
    assert.is(r.status, 0, r.stdout + r.stderr);
    const section = r.stdout.slice(r.stdout.indexOf('slowest tests by CPU'));
    const rows = section.split('\n').filter((l) => /^\s+[\d.]+ s\s+[\d.]+ s {2}core\//.test(l));
    const names = rows.map((l) => l.replace(/^\s+[\d.]+ s\s+[\d.]+ s {2}/, '')).sort();
    assert.equal(names, [
      'core/arrows.test.ts: the folder arrows run one way',
      'core/arrows.test.ts: the import scan sees static, re-exported and dynamic imports',
      'core/bytes.test.ts: reads and writes agree with DataView in both byte orders, at any offset',
      'core/layout.test.ts: the device class needs a 4 MiB chip: the layout takes 3 432 KiB, more than 2 MiB',
      'core/layout.test.ts: the partitions are whole sectors inside the chip, and none overlaps another',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a worker whose channel to the runner closes while its file writes nothing exits, and stops what the file started', async () => {
  // Its output pipe stays open (no failed write tells it): the channel alone must.
  const { mark, env: withMark } = marker('SAPHIR_SILENT_WORKER');
  const worker = fork(join(ROOT, 'test', 'worker.mjs'), [], {
    cwd: ROOT,
    env: withMark,
    execArgv: ['--import', 'tsx', '--import', './test/guard.mjs'],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  worker.stdout!.resume();
  worker.stderr!.resume();
  const exited = new Promise<number | null>((resolve) => worker.on('exit', resolve));
  try {
    await new Promise<void>((resolve) => worker.on('message', (m: { ready?: boolean }) => m.ready && resolve()));
    const file = join(ROOT, 'test', 'fixtures', 'workers', 'silent-file.ts');
    worker.send({ file, name: 'silent-file.ts' });
    // The file's sleep runs (it carries the mark, as do the worker and, while it compiles, tsx's esbuild).
    const sleeping = () => marked(mark).some((pid) => commandLine(pid).startsWith('sleep'));
    assert.ok(await until(sleeping, 20_000), 'the file started its sleep');
    worker.disconnect();
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running'), 5000))]);
    assert.is(code, 1, 'the worker exits at once, with 1');
    assert.ok(await until(() => marked(mark).length === 0, 3000), `left: ${marked(mark).length}`);
  } finally {
    for (const pid of marked(mark)) process.kill(pid, 'SIGKILL');
  }
});

test('killDescendants: a detached child and its own children go, and nothing else', async () => {
  const { mark, env: withMark } = marker('SAPHIR_KILL_TREE');
  const lib = pathToFileURL(join(ROOT, 'test', 'procs.mjs')).href;
  // A process that starts a detached shell with two sleeps (its own session, as the Ctrl-C tests start
  // theirs), then kills its descendants and exits.
  const script = `
    import { spawn } from 'node:child_process';
    import { killDescendants } from ${JSON.stringify(lib)};
    spawn('sh', ['-c', 'sleep 60 & sleep 60'], { detached: true, stdio: 'ignore' });
    setTimeout(() => { killDescendants(); process.exit(0); }, 500);`;
  const outsider = spawn('sleep', ['60'], { env: withMark, stdio: 'ignore' });
  try {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: withMark,
      stdio: 'ignore',
    });
    assert.is(await new Promise((resolve) => child.on('close', resolve)), 0);
    const left = await until(() => marked(mark).length === 1, 3000);
    assert.ok(left, `left: ${marked(mark).length} (the outsider only expected)`);
    assert.equal(marked(mark), [outsider.pid], 'a process that is no descendant stays');
  } finally {
    outsider.kill('SIGKILL');
  }
});

test.run();
