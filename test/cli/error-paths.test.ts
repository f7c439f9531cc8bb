// Every command's error paths, run as a user runs them, in French and in English (#33 point 6): none may
// show an errno code (ENOENT, EADDRINUSE, ECONNREFUSED…), a stack, "fetch failed", or a sentence of the
// other language. Each case also says what the user must read, so that a silent path fails too. The cases
// that need a process of their own run in French (the default, where English would leak) in npm test, and
// in English too in the long tier (error-paths.long.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { constants } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LONG, ROOT } from '../helpers.ts';
import { noStack, saphirIn } from './run-cli.ts';
import { ENGLISH, FRENCH, prose } from '../voice.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-error-paths-'));
const notJson = join(dir, 'not-json.txt');
writeFileSync(notJson, 'hello');
const pubOnly = join(dir, 'pub.json');
writeFileSync(pubOnly, JSON.stringify({ public_key_hex: 'ab'.repeat(32) }));
const notPng = join(dir, 'not.png');
writeFileSync(notPng, 'not a png');
mkdirSync(join(dir, 'folder'));

// Notices a device refuses, each for one reason (#33 point 6: the reason in words, not its code).
const notices = join(ROOT, 'hw-sim', 'scenarios', 'notices');
const signed = JSON.parse(readFileSync(join(notices, 'closing-5.json'), 'utf8')) as { notice: object };
writeFileSync(join(dir, 'closing-5.json'), JSON.stringify(signed));
writeFileSync(join(dir, 'foreign.json'), readFileSync(join(notices, 'foreign.json')));
writeFileSync(join(dir, 'unsigned.json'), JSON.stringify({ notice: signed.notice }));
writeFileSync(join(dir, 'garbled.json'), 'not json');
writeFileSync(join(dir, 'bad-version.json'), JSON.stringify({ ...signed, notice: { ...signed.notice, version: 0 } }));
/** A scenario in `dir` that boots and pushes `files` over the service port, expecting each taken. */
function noticeScenario(name: string, ...files: string[]): string {
  const steps = files.map((f) => `  - notice: ${f}\n`).join('');
  writeFileSync(
    join(dir, name),
    `name: ${name}\nconfig:\n  emissions:\n    - { emission: 5 }\nsteps:\n  - boot\n${steps}`,
  );
  return name;
}

/** Ed25519's base point: a valid public key that is no development key. */
const BASE_POINT = '58' + '66'.repeat(31);

/** Every errno name this Node knows, plus the resolver's. */
const ERRNO = new RegExp(`\\b(${[...Object.keys(constants.errno), 'EAI_AGAIN', 'ENOTFOUND'].join('|')})\\b`);
interface Case {
  args: string[];
  /** The exit code, and what the French and English outputs must contain. */
  code: number;
  fr: RegExp;
  en: RegExp;
  /** Run as a child process (the process must end by itself), else in this process. */
  spawn?: boolean;
}

const busy: Server = createServer();
await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
const busyPort = String((busy.address() as { port: number }).port);

const CASES: Case[] = [
  { args: ['nope'], code: 2, fr: /commande inconnue/, en: /unknown command/ },
  { args: ['check', '--key', 'nope.json', 'x'], code: 2, fr: /introuvable/, en: /no such file/ },
  { args: ['check', '--key', dir, 'x'], code: 2, fr: /dossier/, en: /directory/ },
  { args: ['check', '--key', notJson, 'x'], code: 2, fr: /pas un fichier de clé/, en: /no key file/ },
  {
    args: ['gen', '--emission', '1', '--block', '1', '--from', '0', '--count', '1', '--key', 'nope.json'],
    code: 2,
    fr: /introuvable/,
    en: /no such file/,
  },
  { args: ['audit', 'nope.txt'], code: 2, fr: /introuvable/, en: /no such file/ },
  { args: ['audit', dir], code: 1, fr: /dossier/, en: /directory/ },
  { args: ['decode', '--source', 'image', 'nope.png'], code: 1, fr: /introuvable/, en: /no such file/ },
  { args: ['decode', '--source', 'image', notPng], code: 1, fr: /PNG illisible/, en: /unreadable PNG/ },
  { args: ['scan', '--serial', '/nonexistent/tty'], code: 1, fr: /introuvable/, en: /no such file/ },
  { args: ['image', 'inspect', 'nope.img'], code: 1, fr: /introuvable/, en: /no such file/ },
  { args: ['image', 'inspect', '--key', 'nope', 'x.img'], code: 2, fr: /ni 64 chiffres/, en: /neither 64 hex/ },
  { args: ['flash', '--port', '/nonexistent/tty', 'nope.img'], code: 1, fr: /introuvable/, en: /no such file/ },
  {
    args: ['flash', '--port', '/nonexistent/tty', '--key', pubOnly, 'nope.img'],
    code: 1,
    fr: /introuvable/,
    en: /no such file/,
  },
  {
    args: ['device', 'info', '--port', '/nonexistent/tty'],
    code: 1,
    fr: /port série introuvable/,
    en: /no such serial port/,
  },
  {
    args: ['device', 'info', '--port', '/nonexistent/tty', '--tech-key', 'nope'],
    code: 2,
    fr: /introuvable/,
    en: /no such file/,
  },
  {
    args: ['device', 'info', '--port', '/nonexistent/tty', '--tech-key', pubOnly],
    code: 2,
    fr: /graine privée/,
    en: /private seed/,
  },
  {
    args: ['ledger', 'export', '--port', '/nonexistent/tty'],
    code: 1,
    fr: /port série introuvable/,
    en: /no such serial port/,
  },
  { args: ['sim', '--scenario', 'nope.yaml'], code: 2, fr: /introuvable/, en: /no such file/ },
  { args: ['sim', '--firmware-key', 'nope'], code: 2, fr: /introuvable/, en: /no such file/ },
  { args: ['sim', '--device-key', pubOnly], code: 2, fr: /graine privée/, en: /private seed/ },
  {
    args: ['sim', '--explore', '1', '--faults', 'bogus'],
    code: 2,
    fr: /groupe de pannes inconnu/,
    en: /unknown fault group/,
  },
  { args: ['sim', '--explore', '1', '--fleet', '--faults', 'all'], code: 2, fr: /pas pour --fleet/, en: /not --fleet/ },
  { args: ['sim', '--registry', 'ftp://x'], code: 2, fr: /attend une URL/, en: /takes an http/ },
  { args: ['sim', '--provision', 'nope.img'], code: 1, fr: /introuvable/, en: /no such file/ },
  // Keys the device refuses, and a production device without an image (rom/provision.ts, the bootloader).
  {
    args: ['check', '--key', '01' + '00'.repeat(31), 'x'],
    code: 2,
    fr: /clé publique refusée par l’appareil \(point d’ordre faible\)/,
    en: /public key refused by the device \(small-order point\)/,
  },
  {
    args: ['sim', '--firmware-key', 'ff'.repeat(32), '--tech-key', BASE_POINT],
    spawn: true,
    code: 1,
    fr: /clé du firmware : pas un point canonique de la courbe, aucune signature/,
    en: /firmware key: not a canonical curve point, no signature/,
  },
  {
    args: ['sim', '--firmware-key', BASE_POINT, '--tech-key', BASE_POINT],
    spawn: true,
    code: 1,
    fr: /chargeur de démarrage : pas d’image, et un appareil de production/,
    en: /bootloader: no image, and a production device/,
  },
  // A notice the device refuses: its reason and detail in words, never the reason's code word.
  {
    args: ['sim', '--scenario', noticeScenario('older.yaml', 'closing-5.json', 'closing-5.json')],
    code: 1,
    fr: /refusé l’avis : pas plus récent que l’avis qu’il a \(la version 2 n’est pas supérieure/,
    en: /refused the notice: not newer than the notice it holds \(version 2 is not above the version held, 2\)/,
  },
  {
    args: ['sim', '--scenario', noticeScenario('foreign.yaml', 'foreign.json')],
    code: 1,
    fr: /refusé l’avis : pas signé par sa clé d’opérateur \(la signature ne correspond pas/,
    en: /refused the notice: not signed by its operator key \(the signature does not verify/,
  },
  {
    args: ['sim', '--scenario', noticeScenario('unsigned.yaml', 'unsigned.json')],
    code: 1,
    fr: /refusé l’avis : non signé \(l’avis n’est pas signé\)/,
    en: /refused the notice: not signed \(the notice is not signed\)/,
  },
  {
    args: ['sim', '--scenario', noticeScenario('garbled.yaml', 'garbled.json')],
    code: 1,
    fr: /refusé l’avis : mal formé \(pas du JSON\)/,
    en: /refused the notice: malformed \(not JSON\)/,
  },
  {
    args: ['sim', '--scenario', noticeScenario('bad-version.yaml', 'bad-version.json')],
    code: 1,
    fr: /refusé l’avis : mal formé \(version : pas un nombre entier de 1 à 2147483647\)/,
    en: /refused the notice: malformed \(version: not a whole number 1…2147483647\)/,
  },
  { args: ['sim', '--web', '--port', busyPort], spawn: true, code: 1, fr: /déjà utilisée/, en: /already in use/ },
  { args: ['demo', '--scenario', 'nope.yaml'], code: 2, fr: /introuvable/, en: /no such file/ },
  // A child that must end by itself (it used to hang with its database open); said before any database is made.
  {
    args: ['registry', 'serve', '--db', join(dir, 'db'), '--port', busyPort],
    spawn: true,
    code: 1,
    fr: /déjà utilisée/,
    en: /already in use/,
  },
  {
    args: ['registry', 'serve', '--db', '/proc/saphir-db', '--port', '0'],
    spawn: true,
    code: 1,
    fr: /impossible d’ouvrir/,
    en: /cannot open/,
  },
  {
    args: ['registry', 'serve', '--db', join(dir, 'db2'), '--key', 'nope'],
    code: 2,
    fr: /introuvable/,
    en: /no such file/,
  },
  {
    args: ['registry', 'serve', '--db', join(dir, 'db3'), '--registry-key', pubOnly],
    code: 2,
    fr: /graine privée/,
    en: /private seed/,
  },
  {
    args: ['registry', 'report', '--postgres', 'postgres://127.0.0.1:1/x'],
    code: 1,
    fr: /connexion refusée/,
    en: /connection refused/,
  },
  { args: ['registry', 'report', '--db', join(dir, 'no-db')], code: 1, fr: /pas de base/, en: /no registry database/ },
];

/** `saphir ARGS` in this process, from the current directory `dir`: exit code and everything written. */
async function runHere(args: string[]): Promise<{ code: number | null; out: string }> {
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const r = await saphirIn(args);
    return { code: r.code, out: r.stdout + r.stderr };
  } finally {
    process.chdir(cwd);
  }
}

function spawned(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [join(ROOT, 'bin', 'saphir.mjs'), ...args], {
      cwd: dir,
      env: { ...process.env, SAPHIR_DEBUG: '', LANG: 'C.UTF-8', LC_ALL: '', LC_MESSAGES: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    const t = setTimeout(() => p.kill('SIGKILL'), 120_000);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, out });
    });
  });
}

test('every error path says what went wrong in the language asked for: no errno code, no stack, no other language', async () => {
  const jobs = CASES.flatMap((c) =>
    (c.spawn && !LONG ? (['fr'] as const) : (['fr', 'en'] as const)).map((lang) => ({ c, lang })),
  );
  const bad: string[] = [];
  const check = async ({ c, lang }: (typeof jobs)[number]) => {
    const args = [...c.args, '--lang', lang];
    const r = c.spawn ? await spawned(args) : await runHere(args);
    const what = `saphir ${c.args.join(' ')} --lang ${lang} (exit ${r.code}):\n${r.out}`;
    const other = lang === 'fr' ? ENGLISH : FRENCH;
    const text = prose(r.out);
    if (r.code !== c.code) bad.push(`exit ${c.code} expected: ${what}`);
    if (!(lang === 'fr' ? c.fr : c.en).test(r.out)) bad.push(`${lang === 'fr' ? c.fr : c.en} not said: ${what}`);
    if (ERRNO.test(r.out)) bad.push(`errno code ${ERRNO.exec(r.out)![0]}: ${what}`);
    if (!noStack(r.out) || /fetch failed/.test(r.out)) bad.push(`stack or raw error: ${what}`);
    if (other.test(text)) bad.push(`'${other.exec(text)![0]}' of the other language: ${what}`);
  };
  // The children run beside the cases of this process.
  await Promise.all([
    Promise.all(jobs.filter((j) => j.c.spawn).map(check)),
    (async () => {
      for (const j of jobs.filter((j) => !j.c.spawn)) await check(j);
    })(),
  ]);
  assert.is(bad.length, 0, bad.join('\n'));
});

test.after(() => {
  busy.close();
  rmSync(dir, { recursive: true, force: true });
});

test.run();
