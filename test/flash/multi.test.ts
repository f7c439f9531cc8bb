// Many devices in one `saphir flash` (real ptys): in parallel, a summary table, exit 1 when any failed;
// a device unplugged half-way fails alone. `--ports GLOB` finds them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flashDevice, devicePty, ptyTest } from './harness.ts';
import { saphirAsync, saphirIn } from '../cli/run-cli.ts';
import { image } from './images.ts';
import { plainProgress } from '../../host/progress.ts';

const BAUD = 921600;
const dir = mkdtempSync(join(tmpdir(), 'saphir-multi-'));
const IMG = image({ version: '1.5.0', counter: 2, size: 100000, salt: 21 });
const imgFile = join(dir, 'multi.img');
writeFileSync(imgFile, IMG);

ptyTest('two devices by --ports GLOB: both flashed, summary table, plain progress off a terminal', async () => {
  const devs = [await flashDevice(), await flashDevice()];
  const ptys = await Promise.all(devs.map((d) => devicePty(d, BAUD)));
  try {
    ptys.forEach((p, i) => symlinkSync(p.path, join(dir, `ttyTEST${i}`)));
    const r = await saphirAsync(
      ['flash', '--ports', join(dir, 'ttyTEST*'), '--baud', String(BAUD), '--lang', 'en', imgFile],
      { timeoutMs: 60000 },
    );
    assert.is(r.code, 0, r.stderr);
    for (let i = 0; i < 2; i++) {
      assert.is(devs[i].booted?.version, '1.5.0');
      assert.match(r.stderr, new RegExp(`\\[${join(dir, `ttyTEST${i}`)}\\] 50 %`));
      assert.match(
        r.stdout,
        new RegExp(`SPH-000042\\s+${join(dir, `ttyTEST${i}`)}\\s+1\\.0\\.0 → 1\\.5\\.0\\s+ok, confirmed\\s+[\\d.]+ s`),
      );
    }
    assert.match(r.stdout, /Device\s+Port\s+Before → after\s+Result\s+Time/);
  } finally {
    for (const p of ptys) await p.close();
  }
});

ptyTest('four devices, one unplugged half-way: the others finish, the summary says which failed, exit 1', async () => {
  const devs = [await flashDevice(), await flashDevice(), await flashDevice(), await flashDevice()];
  const ptys = await Promise.all(devs.map((d) => devicePty(d, BAUD)));
  try {
    const victim = ptys[2];
    let got = 0;
    let unplugged: Promise<void> | null = null;
    const receive = victim.port.receive.bind(victim.port);
    victim.port.receive = (b: Uint8Array) => {
      got += b.length;
      receive(b);
      if (!unplugged && got > IMG.length / 2) unplugged = victim.cut();
    };
    const args = ['flash', ...ptys.flatMap((p) => ['--port', p.path]), '--baud', String(BAUD), '--lang', 'en', imgFile];
    const r = await saphirIn(args);
    await unplugged;
    assert.ok(unplugged, 'the third device was unplugged');
    assert.is(r.code, 1);
    for (const i of [0, 1, 3]) {
      assert.is(devs[i].booted?.version, '1.5.0', `device ${i}`);
      assert.match(r.stdout, new RegExp(`${ptys[i].path}\\s+1\\.0\\.0 → 1\\.5\\.0\\s+ok, confirmed`));
    }
    assert.is(devs[2].booted?.version, '1.0.0');
    assert.match(r.stdout, new RegExp(`${victim.path}\\s+1\\.0\\.0 → 1\\.0\\.0\\s+the serial port closed`));
    assert.match(r.stderr, new RegExp(`\\[${victim.path}\\] the serial port closed`));
  } finally {
    for (const p of ptys) await p.close();
  }
});

ptyTest('device info on several ports: each under its name; a missing one fails alone, exit 1', async () => {
  const devs = [await flashDevice(), await flashDevice()];
  const ptys = await Promise.all(devs.map((d) => devicePty(d, BAUD)));
  try {
    const r = await saphirIn([
      'device',
      'info',
      '--port',
      ptys[0].path,
      '--port',
      join(dir, 'nope'),
      '--port',
      ptys[1].path,
      '--baud',
      String(BAUD),
      '--lang',
      'en',
    ]);
    assert.is(r.code, 1);
    assert.match(
      r.stdout,
      new RegExp(`== ${ptys[0].path}\\nDevice id\\s+SPH-000042[\\s\\S]*== ${ptys[1].path}\\nDevice id\\s+SPH-000042`),
    );
    assert.match(r.stderr, /no such serial port/);
    const j = await saphirIn([
      'device',
      'info',
      '--port',
      ptys[0].path,
      '--port',
      ptys[1].path,
      '--baud',
      String(BAUD),
      '--json',
    ]);
    assert.is(j.code, 0);
    assert.equal(
      j.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).port),
      [ptys[0].path, ptys[1].path],
    );
  } finally {
    for (const p of ptys) await p.close();
  }
});

test('plain progress: one line every 10 %, none with --quiet', async () => {
  const lines: string[] = [];
  const on = plainProgress('[A]', false, (s) => lines.push(s));
  for (let d = 0; d <= 1000; d += 7) on({ done: d, total: 1000 });
  on({ done: 1000, total: 1000 });
  assert.equal(
    lines,
    [10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((n) => `[A] ${n} %\n`),
  );
  const quiet: string[] = [];
  const off = plainProgress('[A]', true, (s) => quiet.push(s));
  off({ done: 1000, total: 1000 });
  assert.equal(quiet, []);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
