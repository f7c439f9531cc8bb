// saphir sim / saphir demo as a user runs them (no TTY): exit codes, messages, a flash file that keeps
// the ledger between runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { ROOT, longTest, requireTool } from '../helpers.ts';
import { mkdtempSync, writeFileSync, existsSync, openSync, writeSync, closeSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { saphir as runCli, saphirIn } from '../cli/run-cli.ts';
import { commandsWith } from '../procs.mjs';

const withSocat = requireTool('socat');

const dir = mkdtempSync(join(tmpdir(), 'saphir-sim-cli-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI in the test's folder (test/cli/run-cli.ts). */
function saphir(args: string[], input = '') {
  const r = runCli(args, input, {}, dir);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

/** The same in this process (test/cli/run-cli.ts's saphirIn): for the cases about what a scenario run
 * says, not about the process; the first case and the interactive ones run the real process. */
async function saphirHere(args: string[]) {
  const r = await saphirIn(args);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

test('sim --scenario: a bad file is refused before anything runs, with its line (exit 2)', async () => {
  const f = join(dir, 'bad.yaml');
  writeFileSync(f, 'name: bad\nsteps:\n  - boot\n  - scna: { code: X }\n');
  const r = saphir(['sim', '--scenario', f]);
  assert.is(r.code, 2);
  assert.match(r.err, /scénario invalide :\n.*bad\.yaml:4 : étape inconnue « scna »/);
  assert.match((await saphirHere(['sim', '--scenario', f, '--lang', 'en'])).err, /bad\.yaml:4: unknown step 'scna'/);
});

test('sim --scenario: a file over 1 MiB is refused with the reason before it is read (exit 2)', async () => {
  const f = join(dir, 'huge.yaml');
  writeFileSync(f, 'name: huge\nsteps:\n  - boot\n' + '#'.repeat(1024 * 1024));
  const r = await saphirHere(['sim', '--scenario', f, '--lang', 'en']);
  assert.is(r.code, 2);
  assert.match(r.err, /huge\.yaml: a scenario file is at most 1048576 bytes/);
});

test('sim --scenario: a failing step shows the display and what was expected (exit 1)', async () => {
  const f = join(dir, 'fails.yaml');
  writeFileSync(
    f,
    `name: fails
config: { clock: 2027-01-15T10:00:00Z, emissions: [{ emission: 1, closes: 2027-06-30 }] }
steps:
  - boot
  - scan: { ticket: { emission: 1, block: 1, number: 1, prize: 0 }, via: serial }
  - expect-display: GAGNANT
`,
  );
  const r = await saphirHere(['sim', '--scenario', f, '--lang', 'en']);
  assert.is(r.code, 1, r.err);
  assert.match(r.out, /FAIL\s+line\s+6\s+expect-display contains "GAGNANT"/);
  assert.match(r.out, /│PERDANT/);
  assert.match(r.out, /0\/1 scenarios passed/);
  const fr = await saphirHere(['sim', '--scenario', f]);
  assert.match(fr.out, /ÉCHEC/);
});

test('sim --scenario in French: the simulator’s own problems too (scanner option, LED colours, boot mode)', async () => {
  const f = join(dir, 'french.yaml');
  writeFileSync(f, 'name: fr\nsteps:\n  - boot\n  - scan: { code: "SPH1:X", via: serial, baud: 7 }\n');
  const scan = await saphirHere(['sim', '--scenario', f]);
  assert.is(scan.code, 1);
  assert.match(scan.out, /→ lecteur : baud vaut l’une de ces valeurs : 1200/);
  assert.match((await saphirHere(['sim', '--scenario', f, '--lang', 'en'])).out, /→ scanner: baud must be one of 1200/);
  writeFileSync(f, 'name: fr\nsteps:\n  - boot\n  - expect-led: { is: green, within: 10ms }\n');
  assert.match((await saphirHere(['sim', '--scenario', f])).out, /→ attendu la LED verte, elle est éteinte/);
  writeFileSync(f, 'name: fr\nsteps:\n  - boot\n  - expect-image: { slot: A }\n');
  const image = (await saphirHere(['sim', '--scenario', f])).out;
  assert.match(image, /→ attendu une image signée en marche ; mode développement : le firmware de ce dépôt/);
  assert.not.match(image, /developer/);
  // The step's own description: its syntax, the words around it in French.
  writeFileSync(
    f,
    'name: fr\nsteps:\n  - boot\n  - scan: { ticket: { emission: 1, number: 3, prize: 0 } }\n  - expect-display: { contains: NOPE, line: 2, within: 10ms }\n',
  );
  const words = (await saphirHere(['sim', '--scenario', f])).out;
  assert.match(words, /scan ticket 1\/1\/3 \(perdant\) via hid-pos/);
  assert.match(words, /expect-display contains "NOPE" à la ligne 2/);
  assert.match(
    (await saphirHere(['sim', '--scenario', f, '--lang', 'en'])).out,
    /expect-display contains "NOPE" on line 2/,
  );
});

test('sim --scenario: each scenario of a run meets a fresh registry, none when it needs none', async () => {
  // A payment on the embedded registry, run twice: the second would meet DÉJÀ PAYÉ from the registry (and
  // pay nothing) were the registry not emptied between scenarios; payment.yaml after it would ask a
  // registry it never wanted. (fleet.yaml, run the same way, is in scenarios.test.ts.)
  const paid = join(dir, 'paid-on-registry.yaml');
  writeFileSync(
    paid,
    `name: one payment on the registry
config:
  payout-limit: 300
  clock: 2027-01-15T10:00:00+01:00
  device-id: CAISSE-1
  emissions: [{ emission: 1, closes: 2027-06-30 }]
steps:
  - boot
  - scan: { ticket: { emission: 1, block: 3, number: 42, prize: 150 }, via: serial }
  - press: OK
  - expect-display: { contains: PAYÉ, within: 3s }
  - expect-registry: { claims: 1, contains: { emission: 1, block: 3, number: 42, device: CAISSE-1 } }
  - expect-ledger: { count: 1 }
`,
  );
  const payment = join(ROOT, 'hw-sim', 'scenarios', 'payment.yaml');
  const r = await saphirHere(['sim', '--scenario', paid, paid, payment, '--quiet']);
  assert.is(r.code, 0, r.out + r.err);
  assert.match(r.out, '3/3');
});

longTest(
  'sim --department D: the device stands in D (its notice holidays), as a scenario config says; a bad one is a usage error',
  async () => {
    const flash = join(dir, 'department.bin');
    const r = saphir(['sim', '--flash', flash, '--department', '974', '--lang', 'en'], 'quit\n');
    assert.is(r.code, 0, r.err);
    const { NorFlash } = await import('../../hw-sim/nor-flash.ts');
    const { partitionFlash } = await import('../../hw-sim/device.ts');
    const { loadConfig } = await import('../../src/config.ts');
    const c = loadConfig(partitionFlash(NorFlash.load(flash), 'config'), false);
    assert.is('config' in c ? c.config.department : c, '974');
    for (const lang of ['fr', 'en']) {
      const bad = await saphirHere(['sim', '--department', '977', '--lang', lang]);
      assert.is(bad.code, 2);
      assert.match(
        bad.err,
        lang === 'fr' ? /--department 977 : pas un département/ : /--department 977: not a department/,
      );
    }
  },
);

test('sim interactive without a TTY: a payment kept in the flash file across runs; a new session draws new tickets', () => {
  const flash = join(dir, 'device.bin');
  const a = saphir(['sim', '--flash', flash], 'ticket 150\nok\nquitter\n');
  assert.is(a.code, 0, a.err);
  assert.match(a.out, /GAGNANT/);
  assert.match(a.out, /PAYÉ/);
  assert.ok(existsSync(flash));
  const first = /→ ticket (1\/\d+\/\d+) 150 €/.exec(a.out)?.[1];
  assert.ok(first, a.out);
  // The same command in a new session on the kept chip is a new ticket, paid again (not DÉJÀ PAYÉ).
  const b = saphir(['sim', '--flash', flash, '--lang', 'en'], 'ticket 150\nok\nledger\nquit\n');
  assert.is(b.code, 0, b.err);
  assert.not.match(b.out, /DÉJÀ PAYÉ/);
  const second = /→ ticket (1\/\d+\/\d+) €150/.exec(b.out)?.[1];
  assert.ok(second && second !== first, b.out);
  assert.match(b.out, /2 payment\(s\) in the ledger/);
  assert.ok(b.out.includes(`  ${first}  €150`) && b.out.includes(`  ${second}  €150`), b.out);
});

longTest('sim interactive: a command that fails is said, the session goes on, the process ends at EOF', () => {
  const flash = join(dir, 'failing.bin');
  // `capture` to a folder cannot be written: before, the loop died there and the tick kept Node alive.
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'saphir.mjs'), 'sim', '--flash', flash, '--lang', 'en'], {
    cwd: dir,
    input: `ticket 150\nok\ncapture ${dir}\nledger\n`,
    timeout: 60_000,
    env: { ...process.env, SAPHIR_DEBUG: '' },
  });
  const out = r.stdout.toString();
  assert.is(r.status, 0, `status ${r.status} signal ${r.signal}: ${out}${r.stderr}`);
  assert.match(out, /capture: failed \(is a directory, not a file\); the device goes on/, out);
  assert.match(out.slice(out.indexOf('capture: failed')), /1 payment\(s\) in the ledger/);
});

test('sim usage errors (exit 2): a --flash that is no saved chip, a folder as scenario, two modes, a production device without its technician key', async () => {
  const small = join(dir, 'small.bin');
  writeFileSync(small, new Uint8Array(1000));
  for (const f of [dir, small]) {
    const r = await saphirHere(['sim', '--flash', f, '--lang', 'en']);
    assert.is(r.code, 2, r.out + r.err);
    assert.match(r.err, /not a saved chip/);
    assert.not.match(r.err, /EISDIR|RangeError/);
  }
  const folder = await saphirHere(['sim', '--scenario', dir, '--lang', 'en']);
  assert.is(folder.code, 2);
  assert.not.match(folder.err, /EISDIR/);
  // (Modes that end by themselves: without the check, one of them runs instead of a usage error.)
  const modes = await saphirHere(['sim', '--explore', '1', '--scenario', 'none.yaml', '--lang', 'en']);
  assert.is(modes.code, 2);
  assert.match(modes.err, /one mode at a time: --explore, --scenario/);
  const prod = await saphirHere(['sim', '--firmware-key', 'ab'.repeat(32), '--scenario', 'x.yaml']);
  assert.is(prod.code, 2);
  assert.match(prod.err, /a besoin de sa propre clé de technicien : --tech-key/);
});

test('demo (npm start) without a TTY: every step passes, a summary, exit 0', async () => {
  const r = saphir(['demo', '--lang', 'en']);
  assert.is(r.code, 0, r.out + r.err);
  assert.match(r.out, /Demo passed\./);
  assert.match(r.out, /1 payment\(s\) in the device's payment ledger, €150/);
  assert.match(r.out, /│DÉJÀ PAYÉ/);
  // What ran, in words a newcomer reads (#33 point 13).
  assert.match(
    r.out,
    /firmware: developer: this checkout's firmware \(firmware\/dist\), no signed image; SHA-256 [0-9a-f]{16}…/,
  );
  const fr = await saphirHere(['demo', '--quiet']);
  assert.match(fr.out, /1 paiement\(s\) au journal des paiements de l’appareil, 150 €/);
  assert.match(
    fr.out,
    /firmware : développement : le firmware de ce dépôt \(firmware\/dist\), sans image signée ; empreinte SHA-256/,
  );
  assert.not.match(fr.out, /bundle sans image|développeur/);
  assert.not.match(r.out, /FAIL/);
});

test('sim --pty without socat: the package to install, said before the device starts, exit 1, nothing left running', () => {
  const bin = mkdtempSync(join(tmpdir(), 'saphir-nosocat-'));
  symlinkSync(process.execPath, join(bin, 'node'));
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'saphir.mjs'), 'sim', '--pty'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, PATH: bin },
  });
  rmSync(bin, { recursive: true, force: true });
  assert.is(r.status, 1, r.stderr);
  assert.match(
    r.stderr,
    /saphir sim: socat n’est pas installé : il crée le pseudo-terminal\. L’installer : sudo apt-get install socat/,
  );
  assert.is(r.stdout, '', 'said before the device boots or anything is drawn');
});

/**
 * Loaded before `saphir sim` (--import): when the line READY_PROBE matches is written, it writes beside it
 * how many SIGINT listeners the process has at that moment (none: a Ctrl-C sent on reading that line kills
 * the process by the default action, a race a test would lose only now and then).
 */
const PROBE = join(dir, 'ready-probe.mjs');
writeFileSync(
  PROBE,
  `import { writeSync } from 'node:fs';
   const ready = new RegExp(process.env.READY_PROBE);
   const write = process.stdout.write.bind(process.stdout);
   process.stdout.write = (chunk, ...rest) => {
     if (ready.test(String(chunk))) writeSync(2, \`[SIGINT listeners: \${process.listenerCount('SIGINT')}]\\n\`);
     return write(chunk, ...rest);
   };`,
);

/**
 * `saphir sim ARGS` in its own process group (as at a terminal), stdin left open, once its output matches
 * `ready`: the match, its output so far, and whether it heard Ctrl-C when it printed that line.
 */
async function simUntil(args: string[], ready: RegExp) {
  const sim = spawn(process.execPath, ['--import', PROBE, join(ROOT, 'bin', 'saphir.mjs'), 'sim', ...args], {
    cwd: dir,
    env: { ...process.env, READY_PROBE: ready.source },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  sim.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  sim.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const end = Date.now() + 60_000;
  let m: RegExpExecArray | null;
  while (!(m = ready.exec(out)) || !/\[SIGINT listeners: \d+\]/.test(out)) {
    if (Date.now() > end || sim.exitCode !== null) throw new Error(`not ${ready}: ${out}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const listening = !/\[SIGINT listeners: 0\]/.test(out);
  return { sim, match: m, out: () => out, listening };
}

/** `saphir sim --pty`: its port's folder. */
async function ptySim() {
  const { sim, match, out, listening } = await simUntil(['--pty'], /port de service : (\S+)/);
  return { sim, folder: dirname(match[1]), out, listening };
}

async function gone(what: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

withSocat(
  'sim --pty: Ctrl-C (SIGINT to its process group) ends it at once, socat and the port folder with it',
  async () => {
    const { sim, folder, out, listening } = await ptySim();
    try {
      assert.ok(listening, 'Ctrl-C heard when the port is named');
      assert.ok(commandsWith(folder).length > 0, 'socat runs');
      process.kill(-sim.pid!, 'SIGINT');
      const code = await new Promise<number | string | null>((r) => {
        sim.once('exit', (c) => r(c));
        setTimeout(() => r('still running 15 s after Ctrl-C'), 15_000);
      });
      assert.is(code, 0, out());
      assert.ok(await gone(() => commandsWith(folder).length === 0, 5000), commandsWith(folder).join('\n'));
      assert.not.ok(existsSync(folder), 'the port folder is removed');
    } finally {
      if (sim.exitCode === null) sim.kill('SIGKILL');
    }
  },
);

test('sim (interactive): Ctrl-C as soon as it says it is ready ends it like quit: exit 0, goodbye, the flash file saved', async () => {
  const flash = join(dir, 'ctrl-c.bin');
  // (stdin left open: the session waits for commands)
  const { sim, out, listening } = await simUntil(['--flash', flash], /Simulateur prêt/);
  const ended = new Promise<number | string | null>((r) => sim.once('exit', (c, s) => r(c ?? s)));
  try {
    assert.ok(listening, 'Ctrl-C heard when it says it is ready');
    sim.kill('SIGINT');
    assert.is(await ended, 0, out());
    assert.match(out(), /^au revoir$/m);
    assert.ok(existsSync(flash), 'the flash file is saved');
  } finally {
    if (sim.exitCode === null) sim.kill('SIGKILL');
  }
});

withSocat('sim --pty killed (SIGKILL): socat does not outlive it, the port folder goes', async () => {
  const { sim, folder } = await ptySim();
  sim.kill('SIGKILL');
  await new Promise((r) => sim.once('exit', r));
  assert.ok(await gone(() => commandsWith(folder).length === 0, 5000), commandsWith(folder).join('\n'));
  assert.ok(await gone(() => !existsSync(folder), 5000), 'the port folder is removed');
});

withSocat('sim --bridge-serial: a scanner on a serial line (socat pty pair) feeds the simulated device', async () => {
  const a = join(dir, 'scanner-a');
  const b = join(dir, 'scanner-b');
  const socat = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${a}`, `pty,raw,echo=0,link=${b}`], {
    stdio: 'ignore',
  });
  let socatError: Error | undefined;
  socat.on('error', (e) => (socatError = e));
  const sim = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'saphir.mjs'), 'sim', '--bridge-serial', a, '--baud', '115200', '--lang', 'en'],
    {
      cwd: dir,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let out = '';
  sim.stdout.on('data', (d: Buffer) => (out += d.toString()));
  sim.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const until = async (re: RegExp, ms: number) => {
    const end = Date.now() + ms;
    while (!re.test(out)) {
      if (Date.now() > end || sim.exitCode !== null) throw new Error(`waited for ${re}: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    for (let i = 0; i < 100 && !existsSync(a) && !socatError; i++) await new Promise((r) => setTimeout(r, 50));
    if (socatError) throw socatError;
    await until(/real scanner attached/, 60_000);
    await until(/Simulator ready/, 10_000);
    // What a serial scanner sends: the code and a CR terminator.
    const fd = openSync(b, 'w');
    writeSync(fd, ticketCode({ emission: 1, block: 1, number: 77, prize: 0 }) + '\r');
    closeSync(fd);
    await until(/LOSER|PERDANT/, 20_000);
    assert.match(out, /1-1-77/);
    sim.stdin.end('quit\n');
    const code = await new Promise<number | null>((r) => sim.once('exit', (c) => r(c)));
    assert.is(code, 0, out);
  } finally {
    if (sim.exitCode === null) sim.kill('SIGKILL');
    socat.kill('SIGTERM');
  }
});

test('sim --bridge-hid: a device that is not there gets an actionable message (exit 1)', async () => {
  const r = await saphirHere(['sim', '--bridge-hid', 'ffff:fffe', '--lang', 'en']);
  assert.is(r.code, 1, r.out + r.err);
  assert.match(r.err, /ffff:fffe/i);
});

test.run();
