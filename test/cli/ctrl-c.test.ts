// Ctrl-C (SIGINT to the saphir process alone, the harder case than to its whole process group) stops
// every long command at once, and nothing it started outlives it (#33 point 2). What it started is
// found by a marker in the environment every child inherits (/proc/PID/environ).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, requireTool } from '../helpers.ts';
import { marked } from '../procs.mjs';

const dir = mkdtempSync(join(tmpdir(), 'saphir-ctrl-c-'));
const BIN = join(ROOT, 'bin', 'saphir.mjs');

/**
 * Starts `saphir ARGS`, waits until its output matches `ready` (or `ready(pid)` says so), sends SIGINT, and returns how it ended,
 * how long that took, and what of its processes is left.
 */
async function interrupt(
  args: string[],
  ready: RegExp | ((pid: number) => boolean),
  stdin: 'ignore' | 'pipe' = 'ignore',
) {
  const marker = `SAPHIR_CTRL_C_TEST=${process.pid}-${args[0]}-${Math.random().toString(36).slice(2)}`;
  const [k, v] = marker.split('=');
  const p: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    cwd: dir,
    env: { ...process.env, LANG: 'C.UTF-8', LC_ALL: '', [k]: v },
    stdio: [stdin, 'pipe', 'pipe'],
  });
  let out = '';
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    p.on('close', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`not ready after 120 s: saphir ${args.join(' ')}\n${out}`)), 120_000);
    const see = (d: Buffer) => {
      out += d;
      if (ready instanceof RegExp && ready.test(out)) {
        clearTimeout(t);
        resolve();
      }
    };
    if (typeof ready === 'function') {
      const poll = setInterval(() => {
        if (!ready(p.pid!)) return;
        clearInterval(poll);
        clearTimeout(t);
        resolve();
      }, 100);
      void ended.then(() => clearInterval(poll));
    }
    p.stdout!.on('data', see);
    p.stderr!.on('data', see);
    void ended.then(() => reject(new Error(`ended before it was interrupted: ${out}`)));
  });
  const before = marked(marker);
  const sent = performance.now();
  p.kill('SIGINT');
  const kill = setTimeout(() => p.kill('SIGKILL'), 20_000);
  const how = await ended;
  clearTimeout(kill);
  const ms = performance.now() - sent;
  // A child of its own might take a moment to see its parent go.
  let left = marked(marker);
  for (let i = 0; i < 20 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = marked(marker);
  }
  for (const pid of left) process.kill(pid, 'SIGKILL');
  return { ...how, ms, before, left, out };
}

const stopped = (r: Awaited<ReturnType<typeof interrupt>>, what: string) => {
  assert.ok(r.code === 0 || r.code === 130 || r.signal === 'SIGINT', `${what}: ${r.code} ${r.signal}\n${r.out}`);
  assert.ok(r.ms < 15_000, `${what}: ${Math.round(r.ms)} ms after Ctrl-C`);
  assert.equal(r.left, [], `${what}: processes left after it: ${r.left.join(' ')}`);
};

test('gen and audit: Ctrl-C stops them with their worker threads', async () => {
  stopped(await interrupt(['gen', '--emission', '1', '--block', '1', '--full', '--jobs', '2'], /SPH1:/), 'gen');
  // audit reading standard input that never ends: it waits, Ctrl-C ends it.
  stopped(await interrupt(['audit', '-', '--jobs', '2'], waiting(), 'pipe'), 'audit');
});

test('registry serve: Ctrl-C closes the server and the database, exit 0', async () => {
  const r = await interrupt(['registry', 'serve', '--db', join(dir, 'db'), '--port', '0'], /http:\/\/127\.0\.0\.1:\d+/);
  stopped(r, 'registry serve');
  assert.is(r.code, 0, r.out);
});

/** CPU seconds process `pid` has used, all its threads (utime + stime of /proc/PID/stat); 0 once it is gone. */
function cpuOf(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * A process that started and now waits (on its standard input): its CPU time has not moved for 300 ms,
 * 500 ms after the start at the earliest, or 10 s after it.
 */
function waiting(): (pid: number) => boolean {
  const start = performance.now();
  let last = -1;
  let since = 0;
  return (pid) => {
    const ms = performance.now() - start;
    const cpu = cpuOf(pid);
    if (cpu !== last) [last, since] = [cpu, ms];
    return (ms >= 500 && ms - since >= 300) || ms >= 10_000;
  };
}

test('sim --web and sim --explore: Ctrl-C stops them, workers included; the explorer says how far it got, and its seed', async () => {
  stopped(await interrupt(['sim', '--web', '--port', '0'], /http:\/\/127\.0\.0\.1:\d+/, 'pipe'), 'sim --web');
  // Its first line comes once its worker threads are started: the seed, before any result.
  const ex = await interrupt(
    ['sim', '--explore', '100000', '--jobs', '2', '--seed', '1'],
    /Exploration : 100000 programme\(s\), graine 1, 2 fils de calcul\.\n/,
  );
  stopped(ex, 'sim --explore');
  assert.is(ex.code, 130, ex.out);
  assert.match(ex.out, /Interrompu après \d+ programme\(s\) sur 100000 \(graine 1\) : 0 violation\(s\)\./);
});

requireTool('socat')('flash on a port where no device answers: Ctrl-C stops it at once', async () => {
  const link = join(dir, 'tty');
  const socat = spawn('socat', [`pty,raw,echo=0,link=${link}`, `pty,raw,echo=0,link=${link}-other`], {
    stdio: 'ignore',
  });
  try {
    for (let i = 0; i < 100 && !readdirSync(dir).includes('tty'); i++) await new Promise((r) => setTimeout(r, 50));
    stopped(
      await interrupt(['flash', '--port', link, join(ROOT, 'firmware', 'dist', 'saphir-fw.img')], /clé de technicien/),
      'flash',
    );
  } finally {
    socat.kill();
  }
});

requireTool('socat')('flash on a link that goes away: the port closed, said at once (#33 point 10)', async () => {
  const link = join(dir, 'gone');
  const socat = spawn('socat', [`pty,raw,echo=0,link=${link}`, `pty,raw,echo=0,link=${link}-other`], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 100 && !readdirSync(dir).includes('gone'); i++) await new Promise((r) => setTimeout(r, 50));
  const p = spawn(process.execPath, [BIN, 'flash', '--port', link, join(ROOT, 'firmware', 'dist', 'saphir-fw.img')], {
    cwd: dir,
    env: { ...process.env, LANG: 'C.UTF-8', LC_ALL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  p.stderr.on('data', (d) => (err += d));
  const ended = new Promise<number | null>((resolve) => p.on('close', resolve));
  await new Promise<void>((resolve) => p.stderr.once('data', () => resolve()));
  await new Promise((r) => setTimeout(r, 1000));
  socat.kill();
  const gone = performance.now();
  const kill = setTimeout(() => p.kill('SIGKILL'), 30_000);
  const code = await ended;
  clearTimeout(kill);
  assert.is(code, 1, err);
  assert.ok(performance.now() - gone < 5000, `${Math.round(performance.now() - gone)} ms after the link went`);
  assert.match(err, 'le port série s’est fermé');
  assert.not.match(err, /pas de réponse de l'appareil/);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
