// Runs the uvu suite (test/**/*.test.ts through tsx) and always ends with one plain summary line that CI
// reads: "N passed, M failed, K skipped (socat not installed: apt-get install socat)".
// `node test/run.mjs` is the quick tier (npm test); `node test/run.mjs --long` runs the long soaks,
// test/**/*.long.ts (npm run test:long). Exit code: 0 when nothing failed, else 1.
//
// Files run in parallel in worker processes (test/worker.mjs), one file at a time each: `--jobs N` or
// SAPHIR_TEST_JOBS (default: 2, or 1 on a single core). While a core of the machine idles (a file waiting
// on a browser, a pty, a timeout), one more worker starts, up to twice as many; after its file it waits,
// parked, while no core idles, and takes files again when one does (not when the number of jobs is
// given). Files that mostly waited in their last run have a worker of their own from the start (the
// waiting lane, beside the jobs; not when the number of jobs is given). Each file's output is printed whole
// when it ends.
// `--typecheck` (npm test): `npm run typecheck` runs beside the first files as one more job (its time is in
// the table); the run fails when it fails.
// The slowest files start first, by the times of the last run (node_modules/.cache/saphir-test-times.json;
// test/file-times.json in a fresh clone); while a file that mostly waits runs, one that computes comes
// first (test/pick.mjs). The summary says how many core-seconds the machine idled meanwhile.
// TMPDIR is a folder of the run (on /dev/shm when it can): what tests leave there is listed ("# leftovers: …") and removed
// (removed too when Ctrl-C or a closed reader cuts the run short).
// At the end, every file's wall and CPU time, slowest first (`--times` or SAPHIR_TEST_TIMES=1: every file,
// else the slowest 15), with the CPU total: on an idle machine the run takes about CPU total / workers; then the slowest tests
// (10, or 40 with `--times`; those of uvu's default suite, test/worker.mjs). A file still running after
// SAPHIR_TEST_FILE_TIMEOUT seconds (default 1200: a hang, not a slow machine) is stopped and counted as a failure; so is a worker that
// dies. Other arguments are file-name regexes, any of which selects a file: `node test/run.mjs ledger flash/auth`.
import { fork, spawn } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statfsSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'uvu/parse';
import { buildCliBundle } from '../tools/cli-bundle.mjs';
import { BUNDLE_PATH } from '../tools/dist.mjs';
import { procCpu } from './proc-cpu.mjs';
import { parks, pick } from './pick.mjs';
import { killDescendants } from './procs.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const long = argv.includes('--long');
// A reader that went away (`npm test | head`): stop, and the workers with us (test/worker.mjs exits when
// its channel to this process closes).
process.stdout.on('error', (e) => process.exit(e.code === 'EPIPE' ? 1 : 2));
const allTimes = argv.includes('--times') || process.env.SAPHIR_TEST_TIMES === '1';
const typecheck = argv.includes('--typecheck');
const jobsArg = argv.indexOf('--jobs');
const jobsGiven = Number(jobsArg >= 0 ? argv[jobsArg + 1] : process.env.SAPHIR_TEST_JOBS) || 0;
const jobs = Math.max(1, jobsGiven || Math.min(2, availableParallelism()));
// Workers beyond `jobs` while a core idles (files that wait: a browser, a pty, a timeout): none when the
// number of jobs is given. Only on measured idleness: each new worker loads, compiles and warms up every module
// and WebAssembly engine again. Starting them ahead, from each file's CPU/wall ratio in the last run, cut the
// idle time by half but cost 40–65 more busy core-seconds a run, slower on the whole (5 Dec).
const maxWorkers = jobsGiven ? jobs : 2 * jobs;
const filters = argv
  .filter((a, i) => !a.startsWith('--') && !(jobsArg >= 0 && i === jobsArg + 1))
  .map((a) => new RegExp(a));
const timeoutMs = (Number(process.env.SAPHIR_TEST_FILE_TIMEOUT) || 1200) * 1000;
const cacheFile = join(root, 'node_modules', '.cache', 'saphir-test-times.json');

// The tests expect the CLI's default language (French): a developer's LANG=en_US must not change it.
const env = { ...process.env, LANG: 'C.UTF-8', LC_ALL: '', LC_MESSAGES: '' };
// The long tier: files that import a quick test file run its whole sweeps (LONG in test/helpers.ts).
// Every temporary file of the tests (os.tmpdir() reads TMPDIR) goes under one folder of this run: what a
// test leaves there is listed at the end (each test removes what it makes), then removed.
const runTmp = mkdtempSync(join(runTmpParent(), 'saphir-test-run-'));
// Open to other users as /tmp is: a throwaway PostgreSQL cluster runs as the postgres user (run as root).
chmodSync(runTmp, 0o755);
env.TMPDIR = runTmp;
// A run cut short (Ctrl-C, `npm test | head`) removes it too: on /dev/shm it is memory. (SIGKILL leaves it.)
const dropRunTmp = () => {
  try {
    rmSync(runTmp, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // a worker still writing there: what it leaves is the system's to clean
  }
};
process.on('exit', dropRunTmp);
// Its workers and what they started go first: still writing there, they could leave the folder behind (a
// fresh clone's runner-exit.long.ts, 6 Dec). (Told of it, a worker would stop them the same way.)
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.once(sig, () => {
    killDescendants();
    dropRunTmp();
    process.kill(process.pid, sig);
  });
/**
 * Where that folder goes: TMPDIR when set, else /dev/shm when it is a tmpfs with room (2 GB) that runs
 * programs (web/server.test.ts does), else the system's: a registry test's PGlite folder database is ~1 000
 * files, each made, opened and removed at ~0.5 s of CPU more on a disk filesystem (ext4: registry/cli,
 * lock, campaign-cli, serve-keys, refusals 20 → 15 s of CPU, 4 Dec).
 */
function runTmpParent() {
  if (process.env.TMPDIR) return tmpdir();
  try {
    const shm = readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((l) => l.split(' '))
      .find((f) => f[1] === '/dev/shm');
    const { bavail, bsize } = statfsSync('/dev/shm');
    accessSync('/dev/shm', constants.W_OK);
    if (shm?.[2] === 'tmpfs' && !shm[3].split(',').includes('noexec') && bavail * bsize >= 2 ** 31) return '/dev/shm';
  } catch {
    // none here (not Linux)
  }
  return tmpdir();
}
// tsx keeps its compile cache in TMPDIR/tsx-UID: the shared one, so that each run does not compile anew.
const tsxCache = `tsx-${process.getuid?.() ?? 0}`;
try {
  mkdirSync(join(tmpdir(), tsxCache), { recursive: true });
  symlinkSync(join(tmpdir(), tsxCache), join(runTmp, tsxCache));
} catch {
  // no cache: tsx compiles into the run's folder
}
// Each new PGlite database (in memory or a new --db folder, in this process, a worker thread or a CLI
// run) starts from one dump of a fresh one instead of running PGlite's initdb (host/registry/db.ts).
try {
  const { version } = JSON.parse(readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'));
  // (SAPHIR_PGLITE_TEMPLATE= turns it off.)
  env.SAPHIR_PGLITE_TEMPLATE ??= join(dirname(cacheFile), `saphir-pglite-${version}.tar`);
} catch {
  // no PGlite: the registry tests say so
}
// Each PGlite database of the tests runs on V8's baseline WebAssembly compiler (host/registry/db.ts): most live
// a few seconds, less than their optimising compile costs.
env.SAPHIR_PGLITE_LIFTOFF ??= '1';
// and with a 16 MB buffer cache, not the 128 MB each start zeroes (host/registry/db.ts).
env.SAPHIR_PGLITE_SHARED_BUFFERS ??= '16MB';
// Each `saphir` process the tests start compiles its WebAssembly (the device's QuickJS) with V8's baseline
// compiler only (bin/saphir.mjs): it lives seconds, less than tiering up costs. The workers keep tiering up.
env.SAPHIR_WASM_LIFTOFF ??= '1';
// Transparent huge pages for the memory malloc maps (ArrayBuffers: 4 MiB flash chips, PGlite's data…), in every
// worker and the processes they start: a page fault costs ~8 µs on the 2-core machines here and a run takes
// millions; with THP in its default madvise mode this halves them (npm test 213–226 → 195.5 s of wall, sys
// 78 → 59 s, 5 Dec). glibc before 2.35, or THP off, ignore it.
if (!/glibc\.malloc\.hugetlb/.test(env.GLIBC_TUNABLES ?? ''))
  env.GLIBC_TUNABLES = [env.GLIBC_TUNABLES, 'glibc.malloc.hugetlb=1'].filter(Boolean).join(':');
if (long) env.SAPHIR_TEST_TIER = 'long';
else delete env.SAPHIR_TEST_TIER;
const strip = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');

const started = performance.now();
/** Runs `cmd args` in the root with the run's environment: its exit code (null: it did not start), its
 *  stdout, its stderr, and both as they came. */
function runChild(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const r = { code: null, out: '', err: '', all: '' };
    child.stdout.on('data', (t) => ((r.out += t), (r.all += t)));
    child.stderr.on('data', (t) => ((r.err += t), (r.all += t)));
    child.on('error', (e) => resolve({ ...r, err: `${e.message}\n`, all: `${e.message}\n` }));
    child.on('close', (code) => resolve({ ...r, code }));
  });
}
// `--typecheck` (npm test): `npm run typecheck` (tsc -b) runs beside the first files, as one more job; the run
// fails when it fails. Its output is printed at the end. (Started once what the workers share is made,
// below: the CPU of this process's children it reaps is its own.)
async function startTypecheck() {
  const t0 = performance.now();
  const cpu0 = childCpu();
  const r = await runChild('npm', ['run', '-s', 'typecheck']);
  if (r.code === null) return { code: 1, out: r.all, ms: 0, cpuMs: 0 };
  return {
    code: r.code,
    out: r.all,
    ms: Math.round(performance.now() - t0),
    cpuMs: Math.round((childCpu() - cpu0) * 1000),
  };
}
/** CPU seconds of this process's reaped children (the type check). */
function childCpu() {
  return procCpu({ own: false });
}
// The CLI cases run `saphir` as their users do, from the prebuilt bundle: brought up to date first (a
// stale one is never run: bin/saphir.mjs would compile the sources instead, much slower).
try {
  await buildCliBundle();
} catch (e) {
  process.stdout.write(`# the CLI bundle was not built (the CLI cases compile the sources): ${e.message}\n`);
}
// A fresh clone has no firmware build (nor the explorer's host-Ed25519 build, in node_modules/.cache) nor
// PGlite template yet: they are made here, once, before any worker, the builds and the template in two
// processes at once (test/make-caches.ts). Else the first files' processes each made them at once (the first
// four files of a run: 9.8 core-seconds more without the template, one initdb being ~3; 5.8 more without the
// build, one being 3.3; 6 Dec). A source changed since the builds: the first processes still rebuild, each.
const missing = (f) => !!f && !existsSync(f);
await Promise.all([
  missing(BUNDLE_PATH) && makeCaches('firmware'),
  missing(env.SAPHIR_PGLITE_TEMPLATE) && makeCaches('pglite'),
]);
/** Runs test/make-caches.ts `what`; says what it made, or why not. */
async function makeCaches(what) {
  const t0 = performance.now();
  const r = await runChild(process.execPath, ['--import', 'tsx', 'test/make-caches.ts', what]);
  const made = r.out.trim().split('\n').filter(Boolean).join(' and ');
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  if (made) process.stdout.write(`# made before the workers (${s} s), for every test process: ${made}\n`);
  if (r.code !== 0)
    process.stdout.write(
      `# not made before the workers (the first files make it): ${r.err.trim().split('\n').pop() || `exit ${r.code}`}\n`,
    );
}
const typecheckJob = typecheck ? startTypecheck() : null;
const { suites } = await parse(join(root, 'test'), long ? '\\.long\\.ts$' : '\\.test\\.ts$');
const todo = suites.filter((s) => filters.length === 0 || filters.some((re) => re.test(s.name)));
// The order of a first run (a fresh clone has no cache), and which files mostly wait: test/file-times.json,
// [wall, CPU] ms of each file in a checkout's last runs (6 Dec, npm test at ~17:15); the times of the last
// run here win (a bare number: wall only).
// SAPHIR_TEST_LAST_TIMES=FILE (test/core/runner-lane.long.ts): those times alone, and none kept.
const timesFrom = process.env.SAPHIR_TEST_LAST_TIMES;
const lastTimes = {};
for (const f of timesFrom ? [timesFrom] : [join(root, 'test', 'file-times.json'), cacheFile])
  try {
    Object.assign(lastTimes, JSON.parse(readFileSync(f, 'utf8')));
  } catch {
    // no times: unknown files count as long, in alphabetical order
  }
const lastWall = (name) => [lastTimes[name]].flat()[0];
/** A file that mostly waited in its last run (its CPU, its processes' included, under half its wall time). */
const waits = (name) => {
  const [ms, cpuMs] = [lastTimes[name]].flat();
  return ms > 1000 && cpuMs < ms / 2;
};
// Longest first (unknown files count as long), so the two workers end together.
todo.sort((a, b) => (lastWall(b.name) ?? Infinity) - (lastWall(a.name) ?? Infinity) || a.name.localeCompare(b.name));

let total = 0;
let passed = 0;
let skipped = 0;
let failed = 0; // files that died or timed out, and errors test/guard.mjs caught outside any test
const reasons = new Map();
const times = {};
const cpuTimes = {};
/** Each test of uvu's default suite, timed by its worker: { file, name, ms, cpuMs }. */
const testTimes = [];

// Files that change what every other process sees run first, beside none but FIRMWARE_FREE files.
const ALONE = new Set([
  'firmware/build-stale.long.ts', // touches a firmware source's mtime: every saphir sim elsewhere would rebuild
]);
// Files that never ask about the firmware build (no bundle, no saphir sim): they run beside ALONE, and with
// SAPHIR_TEST_NO_FIRMWARE set (tools/build-stale.ts throws on a question about the build), so one that
// starts to use the build fails in every run, never races one.
const FIRMWARE_FREE = /^(claim|core|game|image|ledger|notice|registry|sph1)\//;
const runningNow = new Set(); // names of the files that run now
const waiting = []; // workers waiting for a file they may take
/**
 * The next file a worker may take from `queue` (removed from it), or null when the queue is empty; waits
 * while the only files left may not run beside those running (ALONE first, beside FIRMWARE_FREE files only).
 */
async function take(queue, w) {
  for (;;) {
    if (queue.length === 0) return null;
    leaveLaneWhenDone(w, queue);
    const i = pick(queue, runningNow, ALONE, FIRMWARE_FREE, waits, w.lane ? 'waits' : lanes() ? 'compute' : undefined);
    if (i >= 0) return queue.splice(i, 1)[0];
    await new Promise((resolve) => waiting.push(resolve));
  }
}
/** The waiting lane's worker becomes one like the others once no file that waits is left in `queue`. */
function leaveLaneWhenDone(w, queue) {
  if (w.lane && !queue.some((s) => waits(s.name))) w.lane = false;
}
/** A file ended (or its worker died): the workers waiting for it look again. */
function ended(name) {
  runningNow.delete(name);
  for (const wake of waiting.splice(0)) wake();
}

const workers = []; // every worker started: { child, current, lane, … }
let live = 0; // worker processes running (not parked)
let peakLive = 0; // the most running at once but the waiting lane's
/** Workers in the waiting lane (files that mostly wait) now: 0 or 1. */
const lanes = () => workers.filter((o) => o.lane).length;
let forked = 0; // worker processes started
let laneRan = false; // a worker of the waiting lane started
const parked = []; // workers beyond `jobs` that wait for a core to idle again
/** A worker counts as running: a new one, or a parked one woken. */
function goLive() {
  live++;
  peakLive = Math.max(peakLive, live - lanes());
}
/** Wakes a parked worker, or starts one. */
function moreWorkers(queue) {
  const w = parked.pop();
  if (!w) return startWorker(queue);
  goLive();
  w.done = false;
  w.next();
  return null;
}
/** No file left: the parked workers end. */
function endParked() {
  for (const p of parked.splice(0)) p.child.send({ exit: true });
}
let idleCores = 0; // idle cores of the machine over the last half second (/proc/stat), 0 when unknown
let idleCoreMs = -1; // idle core-milliseconds of the machine over the run (-1: unknown)

function startWorker(queue, lane = false) {
  forked++;
  return new Promise((resolveWorker) => {
    const child = fork(join(root, 'test', 'worker.mjs'), [], {
      cwd: root,
      env,
      execArgv: ['--import', 'tsx', '--import', './test/guard.mjs'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const w = { child, current: null, out: '', err: '', timer: null, done: false, lane };
    workers.push(w);
    goLive();
    child.stdout.setEncoding('utf8'); // whole characters per chunk: the skip lines hold an em dash
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (t) => (w.err += t));
    child.stdout.on('data', (t) => {
      w.out += t;
      let at;
      while ((at = w.out.indexOf('\x01done ')) >= 0) {
        const end = w.out.indexOf('\n', at);
        if (end < 0) break;
        const r = JSON.parse(w.out.slice(at + 6, end));
        const text = w.out.slice(0, at);
        w.out = w.out.slice(end + 1);
        finish(w, text, r);
      }
    });
    const next = async () => {
      // A worker beyond `jobs` waits, parked, once no core idles: the next idle core wakes it (unpark)
      // instead of starting a new worker, which would load and warm up every module again.
      leaveLaneWhenDone(w, queue);
      if (parks({ lane: w.lane, live, lanes: lanes(), jobs, idleCores, queued: queue.length })) {
        live--;
        w.done = true;
        parked.push(w);
        return;
      }
      const s = await take(queue, w);
      if (!s) {
        live--;
        w.done = true;
        child.send({ exit: true });
        endParked();
        return;
      }
      w.current = { ...s, started: performance.now() };
      runningNow.add(s.name);
      w.timer = setTimeout(() => {
        flush(w, w.out + `\n# timeout: ${s.name} still running after ${timeoutMs / 1000} s: stopped\n`);
        w.out = '';
        failed++;
        w.current = null;
        ended(s.name);
        child.kill('SIGKILL');
      }, timeoutMs);
      child.send({ file: s.file, name: s.name, firmwareFree: FIRMWARE_FREE.test(s.name) });
    };
    w.next = next;
    child.on('message', (m) => m && m.ready && next());
    child.on('error', (e) => {
      process.stdout.write(`\n# the test worker did not start: ${e.message}\n`);
      failed++;
    });
    child.on('close', (code, signal) => {
      w.lane = false;
      if (!w.done) live--;
      if (parked.includes(w)) parked.splice(parked.indexOf(w), 1);
      clearTimeout(w.timer);
      if (w.current) {
        const how = signal ? `signal ${signal}` : `exit code ${code}`;
        flush(w, w.out + `\n# ${w.current.name}: its worker stopped (${how}) before the file ended\n`);
        failed++;
        ended(w.current.name);
      } else if (w.out || w.err) flush(w, w.out);
      // A worker that died takes no more files: another one takes the rest.
      if (!w.done && queue.length > 0) startWorker(queue).then(resolveWorker);
      else {
        // (the last running worker may be the one that died: nobody else would end the parked ones)
        if (queue.length === 0) endParked();
        resolveWorker();
      }
    });
  });
}

function flush(w, text) {
  scan(text);
  process.stdout.write(text);
  if (w.err) process.stderr.write(w.err);
  w.err = '';
}

function scan(text) {
  for (const line of strip(text).split('\n')) {
    const m = /^# skip: (.*?) — /.exec(line);
    if (m) reasons.set(m[1], (reasons.get(m[1]) ?? 0) + 1);
    if (line.startsWith('# uncaught: ')) failed++;
  }
}

function finish(w, text, r) {
  clearTimeout(w.timer);
  flush(w, text);
  total += r.total;
  passed += r.passed;
  skipped += r.skipped;
  times[r.file] = r.ms;
  cpuTimes[r.file] = r.cpuMs;
  for (const [name, ms, cpuMs] of r.tests ?? []) testTimes.push({ file: r.file, name, ms, cpuMs });
  ended(w.current.name);
  w.current = null;
  w.next();
}

/**
 * Runs `files` in `n` workers; while a core of the machine idles (a file waiting on a browser, a pty, a
 * timeout) for a second, one more, up to `max`: it stops after its file once no core idles.
 */
async function pool(files, n, max = n) {
  const running = Array.from({ length: Math.min(n, files.length) }, () => startWorker(files));
  // Files that mostly wait (a pty, a browser, timeouts) have a worker of their own from the start, beside
  // those that compute: they cost a core little; run by one of the `n`, such a file left its core idle
  // until the sampler started one more.
  if (max > n && files.some((s) => waits(s.name))) {
    laneRan = true;
    running.push(startWorker(files, true));
  }
  // (sampled also without more workers to start: the idle time in the summary)
  const monitor = watchIdle((samples) => {
    // A parked worker wakes at once; a new one only after a second idle sample (it costs ~1.3 s).
    if (max <= n || files.length === 0 || live >= max || (parked.length === 0 && samples < 2)) return false;
    const started = moreWorkers(files);
    if (started) running.push(started);
    return true;
  });
  // (the workers the monitor adds meanwhile are waited for too)
  for (let k = 0; k < running.length;) {
    k = running.length;
    await Promise.all(running.slice(0, k));
  }
  if (monitor) clearInterval(monitor);
}

/**
 * Samples the machine's idle time every 500 ms into `idleCores` (and adds it up in `idleCoreMs`); calls
 * `more(n)` after n idle samples in a row.
 */
function watchIdle(more) {
  const read = () => {
    try {
      const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1, 9).map(Number);
      return { idle: f[3] + f[4], total: f.reduce((a, b) => a + b, 0), at: performance.now() };
    } catch {
      return null;
    }
  };
  let last = read();
  if (!last) return null;
  let idleSamples = 0;
  const timer = setInterval(() => {
    const now = read();
    if (!now || now.total === last.total) return;
    idleCores = ((now.idle - last.idle) / (now.total - last.total)) * cpus().length;
    idleCoreMs = Math.max(0, idleCoreMs) + idleCores * (now.at - last.at);
    last = now;
    idleSamples = idleCores >= 0.75 ? idleSamples + 1 : 0;
    if (idleSamples >= 1 && more(idleSamples)) idleSamples = 0;
  }, 500);
  timer.unref();
  return timer;
}

// (ALONE files start first wherever they are in the queue: pick, test/pick.mjs)
await pool(todo, jobs, maxWorkers);
let typecheckFailed = false;
if (typecheckJob) {
  const r = await typecheckJob;
  times['(type check: npm run typecheck)'] = r.ms;
  cpuTimes['(type check: npm run typecheck)'] = r.cpuMs;
  if (r.code !== 0) {
    typecheckFailed = true;
    process.stdout.write(`\n# the type check failed (npm run typecheck):\n${r.out}\n`);
  }
}

const wall = performance.now() - started;
{
  // CPU time (the file's worker and the processes it ran) is what a busy machine inflates least.
  const rows = Object.entries(times).sort((a, b) => cpuTimes[b[0]] - cpuTimes[a[0]]);
  const sum = rows.reduce((s, [, ms]) => s + ms, 0);
  const cpuSum = rows.reduce((s, [name]) => s + cpuTimes[name], 0);
  const s = (ms) => `${(ms / 1000).toFixed(1).padStart(7)} s`;
  const shown = allTimes ? rows : rows.slice(0, 15);
  process.stdout.write(
    `\n  file times, ${jobs} worker${jobs > 1 ? 's' : ''}: wall, CPU and share of the CPU` +
      `${shown.length < rows.length ? ` (the slowest ${shown.length} of ${rows.length}; --times: all)` : ''}\n`,
  );
  for (const [name, ms] of shown)
    process.stdout.write(
      `${s(ms)}${s(cpuTimes[name])} ${((100 * cpuTimes[name]) / cpuSum).toFixed(1).padStart(5)} %  ${name}\n`,
    );
  const files = rows.filter(([name]) => !name.startsWith('(')).length;
  process.stdout.write(
    `${s(sum)}${s(cpuSum)}         sum of ${files} files${files < rows.length ? ' and the type check' : ''}\n`,
  );
  // The same for single tests: where a slow file's time goes.
  const tests = testTimes.sort((a, b) => b.cpuMs - a.cpuMs).slice(0, allTimes ? 40 : 10);
  if (tests.length > 0) {
    process.stdout.write(
      `\n  the ${tests.length} slowest tests by CPU${allTimes ? '' : ' (--times: 40)'}: wall, CPU\n`,
    );
    for (const t of tests)
      process.stdout.write(
        `${s(t.ms)}${s(t.cpuMs)}  ${t.file}: ${t.name.length > 100 ? t.name.slice(0, 99) + '…' : t.name}\n`,
      );
  }
}
// Kept for the next run's order (a run of a few files updates theirs).
if (!timesFrom)
  try {
    mkdirSync(dirname(cacheFile), { recursive: true });
    const ran = Object.fromEntries(
      Object.entries(times)
        .filter(([name]) => !name.startsWith('('))
        .map(([name, ms]) => [name, [ms, cpuTimes[name]]]),
    );
    writeFileSync(cacheFile, JSON.stringify({ ...lastTimes, ...ran }));
  } catch {
    // no cache: the next run starts in alphabetical order
  }
let leftovers = [];
try {
  leftovers = readdirSync(runTmp).filter((f) => f !== tsxCache);
  dropRunTmp();
} catch {
  // listed as far as it could be
}
if (leftovers.length > 0)
  process.stdout.write(
    `\n# leftovers: ${leftovers.length} temporary entr${leftovers.length > 1 ? 'ies' : 'y'} the tests did not remove (removed now): ${leftovers.sort().join(', ')}\n`,
  );
const bad = total - passed + failed + (typecheckFailed ? 1 : 0);
process.stdout.write(`\n  Total:     ${total}\n  Passed:    ${passed}\n  Skipped:   ${skipped}\n`);
process.stdout.write(
  `  Duration:  ${(wall / 1000).toFixed(1)} s (${jobs} workers${laneRan ? ' and one for the files that mostly wait' : ''}` +
    `${peakLive > jobs ? `, ${peakLive} at most while a core idled, ${forked} started` : ''}` +
    `${idleCoreMs >= 0 ? `; the machine's cores idled ${(idleCoreMs / 1000).toFixed(1)} s` : ''})\n`,
);
const why = [...reasons.keys()].join('; ');
process.stdout.write(`\n${passed} passed, ${bad} failed, ${skipped} skipped${why ? ` (${why})` : ''}\n`);
process.exitCode = bad > 0 ? 1 : 0;
