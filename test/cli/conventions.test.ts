// What a newcomer expects of the CLI: --version, help, unknown commands, check's input rules, one JSON
// style, decoders that drop nothing silently, image sizes checked before decoding, failures said with
// their line. Most run `main` in this process (the output captured); stdin cases run the real command.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { main } from '../../host/cli.ts';
import { envLang } from '../../host/args.ts';
import { snakeKeys } from '../../host/json.ts';
import { codesOfArgs } from '../../host/commands/check.ts';
import { decodeCapture } from '../../host/commands/decode.ts';
import { EventQueue } from '../../src/input/event.ts';
import { SerialDecoder } from '../../src/input/serial.ts';
import { TEST_PUBLIC_KEY_HEX } from '../../src/sph1/keys.ts';
import { parseScenario } from '../../hw-sim/scenario.ts';
import { runScenario } from '../../hw-sim/runner.ts';
import { ensureImage } from '../../hw-sim/sim.ts';
import { LONG, ROOT, loadVectors } from '../helpers.ts';
import { noStack, readerGoesAway, saphir, saphirIn } from './run-cli.ts';

const { vectors } = loadVectors();
const lose = vectors.find((v) => v.name === 'lose-0')!.code;
const win = vectors.find((v) => v.name === 'win-30-0')!.code;
/** A genuine code with a space in it: the shell splits it when it is not quoted. */
const spaced = vectors.find((v) => v.expect.status !== 'invalid' && v.code.includes(' '))!.code;
const dir = mkdtempSync(join(tmpdir(), 'saphir-conventions-'));

/** `saphir ARGS` in this process: exit code and what it wrote. */
async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const [o, e] = [process.stdout.write, process.stderr.write];
  let out = '';
  let err = '';
  process.stdout.write = ((s: string | Uint8Array) => ((out += String(s)), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string | Uint8Array) => ((err += String(s)), true)) as typeof process.stderr.write;
  try {
    return { code: await main(argv), out, err };
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
}

const COMMANDS = ['check', 'gen', 'audit', 'decode', 'scan', 'image', 'sim', 'demo', 'flash', 'device', 'ledger'];

test('--version, help, help COMMAND and COMMAND --help, in the language asked for', async () => {
  const v = await run('--version');
  assert.is(v.code, 0);
  assert.is(v.out, `saphir ${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
  const h = await run('help');
  assert.is(h.code, 0);
  for (const c of COMMANDS) assert.match(h.out, new RegExp(`^  ${c} `, 'm'));
  assert.match(h.out, /^usage : saphir <commande>/);
  assert.match((await run('help', '--lang', 'en')).out, /^usage: saphir <command>/);
  const hh = await run('help', 'help');
  assert.is(hh.code, 0, hh.err);
  assert.is(hh.out, h.out);
  const hc = await run('help', 'check');
  assert.is(hc.code, 0);
  assert.match(hc.out, /^usage : saphir check/);
  assert.match(hc.out, /Vérifie des codes/);
  assert.is((await run('check', '--help')).out, hc.out);
  assert.match((await run('help', 'check', '--lang', 'en')).out, /Checks SAPHIR ticket codes/);
  assert.match((await run('--lang', 'en', 'check', '--help')).out, /Checks SAPHIR ticket codes/);
  for (const c of ['check', 'gen', 'audit', 'decode', 'scan', 'image', 'demo']) {
    const fr = await run(c, '--help', '--lang', 'fr');
    assert.is(fr.code, 0, c);
    assert.match(fr.out, new RegExp(`^usage : saphir ${c}`), `${c} --help in French`);
    assert.not.match(fr.out, /\bExit \d|\bPrints\b|\bReads\b|\bChecks\b/, `${c} --help has English under --lang fr`);
  }
  const none = await run();
  assert.is(none.code, 2);
  assert.match(none.out, /check/);
});

test('an unknown command, inherited names included, is exit 2 with the list of commands', async () => {
  for (const name of ['nope', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'help2']) {
    const r = await run(name);
    assert.is(r.code, 2, name);
    assert.match(r.err, `saphir: commande inconnue « ${name} »`);
    for (const c of COMMANDS) assert.match(r.err, new RegExp(`^  ${c} `, 'm'));
  }
  assert.match((await run('nope', '--lang', 'en')).err, "unknown command 'nope'");
  assert.is((await run('help', '__proto__')).code, 2);
});

test('English when LC_ALL, LC_MESSAGES or LANG says en*, French otherwise', () => {
  assert.is(envLang({ LANG: 'en_GB.UTF-8' }), 'en');
  assert.is(envLang({ LANG: 'fr_FR.UTF-8' }), 'fr');
  assert.is(envLang({ LANG: 'C.UTF-8' }), 'fr');
  assert.is(envLang({ LC_ALL: 'fr_FR', LANG: 'en_US' }), 'fr');
  assert.is(envLang({ LC_MESSAGES: 'en_US', LANG: 'fr_FR' }), 'en');
  assert.is(envLang({}), 'fr');
  const r = saphir(['check', '--bogus'], undefined, { LANG: 'en_US.UTF-8' });
  assert.match(r.stderr, "saphir check: unknown option '--bogus'");
  assert.match(saphir(['check', '--bogus']).stderr, 'saphir check: option inconnue « --bogus »');
});

test('check --key HEX|FILE; the test key warned about as gen does', async () => {
  const plain = await run('check', lose);
  assert.is(plain.code, 0);
  assert.match(plain.err, 'clé de TEST (id 0)');
  const hex = await run('check', '--key', TEST_PUBLIC_KEY_HEX, win, '--lang', 'en');
  assert.is(hex.code, 0, hex.err);
  assert.match(hex.out, /^WINNER €30/);
  assert.match(hex.err, 'warning: tickets signed with the TEST key (id 0)');
  const other = await run('check', '--key', 'ab'.repeat(32), lose, '--lang', 'en');
  assert.is(other.code, 1);
  assert.match(other.out, /invalid signature/);
  assert.not.match(other.err, 'TEST key');
  const file = join(dir, 'key.json');
  writeFileSync(file, JSON.stringify({ key_id: 0, public_hex: TEST_PUBLIC_KEY_HEX }));
  assert.is((await run('check', '--key', file, lose)).code, 0);
  writeFileSync(file, JSON.stringify({ key_id: 3, public_hex: TEST_PUBLIC_KEY_HEX }));
  const wrongId = await run('check', '--key', file, '--lang', 'en', lose);
  assert.is(wrongId.code, 1);
  assert.match(wrongId.out, /unknown signing key/);
  const bad = await run('check', '--key', 'nope.json', lose);
  assert.is(bad.code, 2);
  assert.match(
    bad.err,
    'saphir check: --key : « nope.json » n’est ni 64 chiffres hexadécimaux ni un fichier de clé lisible (fichier ou dossier introuvable)',
  );
  const gen = saphir(['gen', '--emission', '1', '--block', '1', '--from', '0', '--count', '1']);
  const said = (s: string) => s.replace(/^saphir \w+: /, '').trim();
  assert.is(said(gen.stderr), said(plain.err), 'the same warning as gen');
});

test('check: spaces around a code are ignored; a code split by the shell is one verdict and a hint', async () => {
  const padded = await run('check', `  ${win}\t `, '--json');
  assert.is(padded.code, 0);
  assert.is(JSON.parse(padded.out).code, win);
  const parts = spaced.split(' ');
  assert.ok(parts.length >= 2);
  const split = await run('check', ...parts, lose);
  assert.is(split.code, 0, split.out + split.err);
  assert.is(split.out.trimEnd().split('\n').length, 2, split.out);
  assert.match(split.err, `un code a été donné en ${parts.length} arguments séparés`);
  assert.match(split.err, "saphir check 'SPH1:…'");
  assert.equal(codesOfArgs(['hello', 'world']), { codes: ['hello', 'world'], glued: 0 });
  assert.equal(codesOfArgs([lose, 'junk']), { codes: [lose, 'junk'], glued: 0 }, 'a whole code takes nothing more');
  const quiet = await run('check', win, lose);
  assert.not.match(quiet.err, 'guillemets');
});

test('check: empty input is a usage error (exit 2), not a silent success', async () => {
  const stdin = saphir(['check'], '');
  assert.is(stdin.code, 2);
  assert.is(stdin.stdout, '');
  assert.match(stdin.stderr, 'aucun code à vérifier');
  assert.is(saphir(['check', '-', '--lang', 'en'], '').code, 2);
  const arg = await run('check', '  ');
  assert.is(arg.code, 2);
  assert.match(arg.err, 'code vide');
  const blankLine = saphir(['check'], '\n');
  assert.is(blankLine.code, 1, 'a blank line is a line: it gets a verdict');
});

test('--json outputs use snake_case keys', async () => {
  const keysOf = (v: unknown, out: string[] = []): string[] => {
    if (Array.isArray(v)) v.forEach((x) => keysOf(x, out));
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        out.push(k);
        keysOf(x, out);
      }
    return out;
  };
  const snake = (what: string, v: unknown) => {
    // Reason codes are values used as keys (by_reason), not field names.
    for (const k of keysOf(v)) if (!/^E_[A-Z0-9_]+$/.test(k)) assert.match(k, /^[a-z][a-z0-9_]*$/, `${what}: ${k}`);
  };
  snake('check', JSON.parse((await run('check', '--json', win)).out));
  const img = join(dir, 'fw.img');
  writeFileSync(img, ensureImage());
  snake('image inspect', JSON.parse((await run('image', 'inspect', '--json', img)).out));
  const codes = join(dir, 'codes.txt');
  writeFileSync(codes, `${win}\n${lose}\nnope\n`);
  snake('audit', JSON.parse((await run('audit', '--json', '--jobs', '1', codes)).out));
  assert.equal(snakeKeys({ deviceId: 'x', running: { pendingConfirm: true }, slots: [{ securityCounter: 2 }] }), {
    device_id: 'x',
    running: { pending_confirm: true },
    slots: [{ security_counter: 2 }],
  });
});

test('check -, decode, demo: a reader that goes away (| head) ends them quietly, exit 0, no EPIPE trace', async () => {
  const file = join(dir, 'many.txt');
  writeFileSync(file, `${lose}\r\n`.repeat(5000));
  // Twenty small captures: each one's codes fit in the pipe, so no write waits to see the error.
  const small = Array.from({ length: 20 }, (_v, i) => join(dir, `capture-${i}.txt`));
  for (const f of small) writeFileSync(f, `${lose}\r\n`.repeat(200));
  // npm test: writes that wait (the demo's plain writes: the next test); the long tier all four.
  const cases = [
    [['check', '-'], file],
    [['decode', '--source', 'serial', file], undefined],
    [['decode', '--source', 'serial', ...small], undefined],
    // Plain writes, no back-pressure: the one stdout error handler (host/stdout.ts) keeps it alive.
    [['demo'], undefined],
  ] as const;
  for (const [args, stdin] of LONG ? cases : [cases[0]]) {
    const { code, stderr } = await readerGoesAway([...args], stdin);
    assert.is(code, 0, `${args.join(' ')}: ${stderr}`);
    assert.ok(noStack(stderr), stderr);
  }
});

test('demo: a reader that goes away (| head) stops it there, quietly, exit 0', async () => {
  // Forty reboots (~2 s of QuickJS) before a screenshot: a demo that played on to the end would write it.
  const shot = join(dir, 'demo-end.png');
  const file = join(dir, 'demo-long.yaml');
  writeFileSync(file, `name: long\nsteps:\n  - boot\n${'  - reboot\n'.repeat(40)}  - screenshot: demo-end.png\n`);
  const { code, stderr } = await readerGoesAway(['demo', '--scenario', file]);
  assert.is(code, 0, stderr);
  assert.ok(noStack(stderr), stderr);
  assert.not.ok(existsSync(shot), 'the demo played on after its reader had gone');
});

test('runScenario: stopWhen ends the run before the next step, stopped and still ok', async () => {
  const sc = parseScenario('name: stop\nsteps:\n  - boot\n  - delay: 1s\n  - reboot\n', join(dir, 'stop.yaml'));
  let asked = 0;
  const r = await runScenario(sc, { lang: 'en', stopWhen: async () => ++asked > 2 });
  assert.is(r.ok, true);
  assert.is(r.stopped, true);
  assert.equal(
    r.steps.map((s) => s.line),
    [3, 4],
  );
  assert.is((await runScenario(sc, { lang: 'en' })).stopped, undefined, 'a whole run is not stopped');
});

test('decode: a bad capture line is said in the user language, its control characters escaped', async () => {
  const file = join(dir, 'binary.txt');
  writeFileSync(file, Buffer.from('02 00 16\n\x1b[2J\x1b]0;owned\x07 zz\n' + '00 '.repeat(1100) + '\n', 'latin1'));
  const fr = saphir(['decode', '--source', 'hid-keyboard', file]);
  assert.not.ok(/[\x00-\x08\x0b-\x1f\x7f]/.test(fr.stderr), JSON.stringify(fr.stderr));
  assert.match(
    fr.stderr,
    /binary\.txt:2 : ligne ignorée : « \\x1b\[2J\\x1b\]0;owned\\x07 » n’est pas un octet hexadécimal/,
  );
  assert.match(fr.stderr, /binary\.txt:3 : ligne ignorée : plus de 1024 octets/);
  const en = await saphirIn(['decode', '--source', 'hid-keyboard', '--lang', 'en', file]); // the same main, here
  assert.match(en.stderr, /binary\.txt:2: line skipped: '\\x1b\[2J\\x1b\]0;owned\\x07' is not a hex byte/);
});

test('a service port that is a file or a folder is said to be no serial port, not an ioctl error', async () => {
  const file = join(dir, 'not-a-port.txt');
  writeFileSync(file, 'x');
  for (const path of [file, dir]) {
    const r = await run('device', 'info', '--port', path);
    assert.is(r.code, 1);
    assert.match(r.err, /port série introuvable/);
    assert.not.match(r.err, /ioctl|Error:/);
  }
});

test('decode --source serial: 100 codes in a file give 100 codes', () => {
  const codes = Array.from({ length: 100 }, (_, i) => vectors[i % vectors.length].code);
  const bytes = new TextEncoder().encode(codes.map((c) => c + '\r\n').join(''));
  const warnings: string[] = [];
  const out = decodeCapture('serial', 'f.bin', bytes, { layout: 'auto', lang: 'en', warn: (s) => warnings.push(s) });
  assert.equal(out, codes);
  assert.equal(warnings, []);
});

test('a full decoder queue says how many events it lost, before the ones it kept', () => {
  const q = new EventQueue(4);
  for (let i = 0; i < 7; i++) q.push({ type: 'code', text: `C${i}` });
  assert.is(q.length, 5);
  assert.equal(q.read(), { type: 'dropped', reason: 'overflow', partial: '', lost: 3 });
  assert.equal(
    [q.read(), q.read(), q.read(), q.read(), q.read()].map((e) => e && e.type === 'code' && e.text),
    ['C3', 'C4', 'C5', 'C6', undefined],
  );
  // A whole file pushed at once into a stream decoder: what did not fit is said, not hidden.
  const d = new SerialDecoder();
  d.push(new TextEncoder().encode('SPH1:A\r'.repeat(40)), 0);
  const first = d.read();
  assert.equal(first, { type: 'dropped', reason: 'overflow', partial: '', lost: 8 });
  let n = 0;
  while (d.read()) n++;
  assert.is(n, 32);
});

/** A PNG that declares `w`×`h` pixels (its pixel data is tiny and wrong: it must never be decoded). */
function pngDeclaring(w: number, h: number): Uint8Array {
  const crc = (b: Uint8Array) => {
    let c = ~0;
    for (const x of b) {
      c ^= x;
      for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
    }
    return ~c >>> 0;
  };
  const chunk = (type: string, data: Uint8Array) => {
    const b = Buffer.alloc(12 + data.length);
    b.writeUInt32BE(data.length, 0);
    b.write(type, 4, 'latin1');
    Buffer.from(data).copy(b, 8);
    b.writeUInt32BE(crc(b.subarray(4, 8 + data.length)), 8 + data.length);
    return b;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    sig,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(64))),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

test('decode --source image: the declared size is checked before decoding', () => {
  const warnings: string[] = [];
  const opts = { layout: 'auto' as const, lang: 'fr' as const, warn: (s: string) => warnings.push(s) };
  const before = process.memoryUsage().rss;
  assert.equal(decodeCapture('image', 'big.png', pngDeclaring(8000, 8000), opts), []);
  assert.ok(process.memoryUsage().rss - before < 100 << 20, 'nothing of 8000×8000 was allocated');
  assert.equal(warnings, ['big.png : PNG de 8000×8000 pixels, plus que les 16 millions de pixels décodés']);
  warnings.length = 0;
  const jpeg = Uint8Array.from([
    0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 17, 8, 0x1f, 0x40, 0x1f, 0x40, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  ]);
  decodeCapture('image', 'big.jpg', jpeg, opts);
  assert.match(warnings[0], 'big.jpg : JPEG de 8000×8000 pixels');
  warnings.length = 0;
  decodeCapture(
    'image',
    'small.jpg',
    jpeg.map((b, i) => (i === 13 || i === 15 ? 0 : b)),
    opts,
  );
  assert.equal(warnings, ['small.jpg : les images JPEG ne sont pas décodées ; la convertir en PNG']);
});

test('image inspect: a bad header-size field is said as such, even in a file shorter than a header', async () => {
  const img = ensureImage();
  const short = img.slice(0, 20);
  short[4] = 16;
  const f = join(dir, 'short.img');
  writeFileSync(f, short);
  const r = await run('image', 'inspect', '--lang', 'en', f);
  assert.is(r.code, 1);
  assert.match(r.out, 'unsupported header size 16');
  assert.match((await run('image', 'inspect', f)).out, "taille d'en-tête 16 non prise en charge");
  writeFileSync(f, img.slice(0, 20));
  assert.match((await run('image', 'inspect', '--lang', 'en', f)).out, 'truncated: 20 bytes');
});

test('audit: a file that cannot be read is said in the user language, not as a raw Node error', async () => {
  const r = await run('audit', dir);
  assert.is(r.code, 1);
  assert.is(r.err, `saphir audit: lecture impossible de ${dir} : c’est un dossier, pas un fichier\n`);
  assert.is((await run('audit', join(dir, 'none.txt'))).code, 2);
});

test('screenshot: to a path that cannot be written is a failed step with its line, at once', async () => {
  // Under the scenario's folder (a path out of it is refused at parse), below a file: not writable.
  writeFileSync(join(dir, 'blocker'), 'a file, not a folder');
  const sc = parseScenario(
    'name: shot\nsteps:\n  - boot\n  - screenshot: blocker/x.png\n  - delay: 1s\n',
    join(dir, 'shot.yaml'),
  );
  const t0 = Date.now();
  const r = await runScenario(sc, { lang: 'en' });
  assert.ok(Date.now() - t0 < 30_000);
  assert.is(r.ok, false);
  const last = r.steps[r.steps.length - 1];
  assert.is(last.line, 4);
  assert.match(last.problem!, /cannot write the screenshot .*blocker\/x\.png/);
  assert.is(r.steps.length, 2, 'the run stops at that step');
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
