// `saphir sim --pty` keeps a command line on stdin: a script cuts the power during a real `saphir flash`
// (real firmware image, real QuickJS, real pty), boots again, and the next `saphir flash` resumes.
// On a chip with a factory image, and on a fresh development chip (developer mode: the half image in
// slot B must not stop the boot). npm test: one seeded cut point of the fresh chip; test:long: 10/50/90 %.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootChip, ensureImage } from '../../hw-sim/sim.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { provision } from '../../rom/bootloader.ts';
import { BOARD_ID, DEV_FIRMWARE_SEED_HEX, packImage, parseImage } from '../../src/image/format.ts';
import { fromHex } from '../../src/hex.ts';
import { nodeSign } from '../../tools/node-crypto.ts';
import { LONG, ROOT, requireTool } from '../helpers.ts';

const ptyTest = requireTool('socat');
import { saphirAsync } from '../cli/run-cli.ts';
import { waitFor } from './wait-for.ts';

const BAUD = 460800;
const bin = join(ROOT, 'bin', 'saphir.mjs');

async function cutDuringFlash(o: { fresh: boolean; pct: number; word: string }) {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-sim-pty-'));
  const factory = ensureImage();
  const p = parseImage(factory);
  if ('error' in p) throw new Error(p.error);
  const next = packImage({
    bundle: p.bundle,
    version: '9.9.7',
    boardId: BOARD_ID,
    securityCounter: p.header.securityCounter,
    seed: fromHex(DEV_FIRMWARE_SEED_HEX),
    sign: nodeSign,
  });
  const imgFile = join(dir, 'next.img');
  writeFileSync(imgFile, next);
  const chip = new NorFlash();
  if (!o.fresh) provision(bootChip(chip), factory, p.header.securityCounter);
  const chipFile = join(dir, 'chip.bin');
  chip.save(chipFile);
  const link = join(dir, 'tty');
  const sim: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [bin, 'sim', '--pty', link, '--flash', chipFile, '--baud', String(BAUD), '--lang', 'en'],
    { cwd: ROOT },
  );
  try {
    await waitFor(sim.stdout, /service port: /);
    const first = spawn(
      process.execPath,
      [bin, 'flash', '--port', link, '--baud', String(BAUD), '--lang', 'en', imgFile],
      { cwd: ROOT },
    );
    let firstErr = '';
    first.stderr.on('data', (d) => (firstErr += d));
    const exited = new Promise<number>((r) => first.on('close', (c) => r(c ?? -1)));
    await waitFor(first.stderr, new RegExp(`^${o.pct} %$`, 'm'));
    sim.stdin.write(`${o.word}\n`);
    await waitFor(sim.stdout, /power cut/);
    // Powered on again while the first flash still retries, as a technician would.
    sim.stdin.write('boot\n');
    await waitFor(sim.stdout, o.fresh ? /on: developer/ : /on: image slot A/);
    assert.is(await exited, 1, firstErr);
    const again = await saphirAsync(['flash', '--port', link, '--baud', String(BAUD), '--lang', 'en', imgFile], {
      timeoutMs: 60000,
    });
    assert.is(again.code, 0, again.stderr);
    const held = Number(/Resumed: the device already held (\d+) bytes/.exec(again.stdout)?.[1]);
    const low = Math.max(1, (next.length * (o.pct - 15)) / 100);
    assert.ok(held >= low && held < next.length, `resumed from ${held} of ${next.length} (cut at ${o.pct} %)`);
    assert.match(again.stdout, /Restarted on 9\.9\.7, confirmed/);
    sim.stdin.write('ledger\n');
    await waitFor(sim.stdout, /0 payment\(s\)/);
    sim.stdin.write('quit\n');
    const code = await new Promise<number>((r) => sim.on('close', (c) => r(c ?? -1)));
    assert.is(code, 0);
  } finally {
    if (sim.exitCode === null) {
      sim.kill('SIGTERM');
      await new Promise((r) => sim.on('close', r));
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

ptyTest('sim --pty: "cut" at 50 % of a transfer, "boot", flash again resumes and the real firmware confirms', () =>
  cutDuringFlash({ fresh: false, pct: 50, word: 'cut' }),
);

// Issue #35: on a fresh development chip, `boot` after the cut said nothing and the device stayed off.
const points = LONG ? [10, 50, 90] : [[10, 50, 90][Math.floor(Date.now() / 86_400_000) % 3]];
for (const pct of points)
  ptyTest(`sim --pty, fresh development chip: "coupure" at ${pct} %, "boot" runs developer mode, flash resumes`, () =>
    cutDuringFlash({ fresh: true, pct, word: 'coupure' }),
  );

test.run();
