// `saphir sim --pty PATH` (issue 9, item 6): it never replaces a file that is not its own link, and it
// exits with a clear message, instead of hanging, when socat is missing or dies.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import {
  mkdtempSync,
  writeFileSync,
  readFileSync,
  readdirSync,
  rmSync,
  lstatSync,
  symlinkSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, requireTool } from '../helpers.ts';
import { saphirIn } from '../cli/run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-sim-pty-'));
const BIN = join(ROOT, 'bin', 'saphir.mjs');
/** The one test that needs socat running: skipped and counted without it (failed under SAPHIR_TEST_STRICT=1). */
const withSocat = requireTool('socat');

test('a PATH that exists and is not a pseudo-terminal link is refused and left as it was', async () => {
  const f = join(dir, 'precious.txt');
  writeFileSync(f, 'do not touch\n');
  const r = spawnSync(process.execPath, [BIN, 'sim', '--pty', f, '--lang', 'en'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.is(r.status, 1, r.stderr);
  assert.match(r.stderr, /precious\.txt exists and is not a pseudo-terminal link/);
  assert.is(readFileSync(f, 'utf8'), 'do not touch\n');
  assert.ok(lstatSync(f).isFile());
  // A symlink to something else is not ours either (in this process, saphirIn: the same main).
  const l = join(dir, 'other-link');
  symlinkSync(f, l);
  const r2 = await saphirIn(['sim', '--pty', l]);
  assert.is(r2.code, 1);
  assert.match(r2.stderr, /n’est pas un lien de pseudo-terminal/);
  assert.ok(lstatSync(l).isSymbolicLink());
});

test('a --pty path socat would read as address syntax is refused with the reason: no crash, nothing created', async () => {
  const sub = mkdtempSync(join(dir, 'bad-'));
  // `,mode=777` once made a world-writable pty: socat reads the comma as an option.
  for (const name of ['x,mode=777', 'a b', 'x:y', "q'uote", 'n\nl', 'x!!y', '']) {
    const path = name ? join(sub, name) : '';
    // In this process (saphirIn): the refusal is the CLI's, the process itself is the first case's.
    const r = await saphirIn(['sim', '--pty', path, '--lang', 'en']);
    assert.is(r.code, 1, `${JSON.stringify(name)}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /cannot be a --pty path: socat would read .* as part of its address/, name);
    assert.not.match(r.stderr, /\n\s+at /, 'no stack');
    assert.equal(readdirSync(sub), [], `${JSON.stringify(name)}: nothing created`);
  }
  const fr = await saphirIn(['sim', '--pty', join(sub, 'x,mode=777')]);
  assert.is(fr.code, 1);
  assert.match(fr.stderr, /ne peut pas être un chemin --pty/);
  // The library refuses it too (a caller other than the CLI).
  const { exposeServicePort, PtyError } = await import('../../hw-sim/pty.ts');
  const { Simulator } = await import('../../hw-sim/sim.ts');
  const sim = new Simulator();
  const err = await exposeServicePort(sim.serviceHost(), { link: join(sub, 'x,mode=777') }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, PtyError);
  assert.is((err as InstanceType<typeof PtyError>).code, 'bad-path');
  assert.equal(readdirSync(sub), []);
});

test('socat missing: a clear message with an install hint, no hang', () => {
  const empty = mkdtempSync(join(dir, 'bin-'));
  const r = spawnSync(process.execPath, [BIN, 'sim', '--pty', join(dir, 'tty0'), '--lang', 'en'], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, PATH: empty },
  });
  assert.is(r.status, 1, r.stderr);
  assert.match(
    r.stderr,
    /saphir sim: socat is not installed: it makes the pseudo-terminal\. Install it: sudo apt-get install socat/,
  );
  assert.not.ok(existsSync(join(dir, 'tty0')));
  // In French: sim/cli.test.ts ('sim --pty without socat'), the same process.
});

withSocat('socat dies while the simulator runs: it exits with the reason', async () => {
  const link = join(dir, 'tty1');
  const p = spawn(process.execPath, [BIN, 'sim', '--pty', link, '--lang', 'en'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => p.on('close', (code) => r(code)));
  const killer = setTimeout(() => p.kill('SIGKILL'), 60_000);
  try {
    const until = Date.now() + 50_000;
    while (!out.includes('service port:') && Date.now() < until && p.exitCode === null)
      await new Promise((r) => setTimeout(r, 50));
    assert.match(out, /service port: /, err);
    assert.ok(lstatSync(link).isSymbolicLink());
    // The socat this simulator started (under its /bin/sh guard, hw-sim/pty.ts), by pid.
    const child = (parent: number, name: RegExp) =>
      Number(
        spawnSync('ps', ['-o', 'pid=,comm=', '--ppid', String(parent)], { encoding: 'utf8' })
          .stdout.split('\n')
          .find((l) => name.test(l))
          ?.trim()
          .split(/\s+/)[0],
      );
    const ps = { stdout: `guard ${child(p.pid!, /\bsh$/)}` };
    const pid = child(child(p.pid!, /\bsh$/), /socat/);
    assert.ok(pid > 0, ps.stdout);
    process.kill(pid, 'SIGKILL');
    const code = await exited;
    assert.is(code, 1, out + err);
    assert.match(err, /no service port: socat ended \(SIGKILL/);
  } finally {
    clearTimeout(killer);
    if (p.exitCode === null) p.kill('SIGKILL');
  }
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
