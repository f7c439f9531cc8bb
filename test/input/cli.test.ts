// saphir decode and saphir scan, run as the technician runs them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync, openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import QRCode from 'qrcode';
import { JSQR_PHOTOS, ROOT, loadVectors, requireTool } from '../helpers.ts';

const withSocat = requireTool('socat');
const withNodeHid = requireTool('node-hid');
import { ALPHABET, FIXTURES, qrFrame, saphirIn } from './helpers.ts';

const BIN = join(ROOT, 'bin', 'saphir.mjs');
const saphir = saphirIn;
const fx = (n: string) => join(FIXTURES, n);
const tmp = mkdtempSync(join(tmpdir(), 'saphir-input-cli-'));
const vectors = loadVectors().vectors;

test('decode HID keyboard (us, fr, auto) and HID POS captures, in order, several files', async () => {
  const r = await saphir(
    'decode',
    '--source',
    'hid-keyboard',
    fx('us-alphabet.hid'),
    fx('fr-alphabet.hid'),
    fx('us-rollover.hid'),
  );
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stdout, `SPH1:${ALPHABET}\nSPH1:${ALPHABET}\nSPH1:AB12\nA1\n`);
  const wrong = await saphir('decode', '--source', 'hid-keyboard', '--layout', 'us', fx('fr-alphabet.hid'));
  assert.ok(wrong.stdout.startsWith('SPH!.'), wrong.stdout);
  const pos = await saphir('decode', '--source', 'hid-pos', fx('pos-sph1.hid'));
  assert.is(pos.stdout, `${vectors[0].code}\nSPH1:${ALPHABET}\n`);
});

test('decode serial bytes: codes on stdout, the dropped one on stderr (French, English)', async () => {
  const r = await saphir('decode', '--source', 'serial', fx('serial-mixed.bin'));
  assert.is(r.status, 0);
  assert.is(r.stdout.split('\n').length - 1, 9);
  assert.match(r.stderr, 'code coupé par du bruit « JUNK »');
  assert.match(
    (await saphir('decode', '--source', 'serial', '--lang', 'en', fx('serial-mixed.bin'))).stderr,
    'code cut by line noise "JUNK"',
  );
});

test('decode images: a PNG from qrcode of a real SPH1 code, a raw y8 frame, a corpus photo', async () => {
  const png = join(tmp, 'code.png');
  await QRCode.toFile(png, vectors[30].code, { errorCorrectionLevel: 'M', scale: 4 });
  const raw = join(tmp, 'frame.y8');
  writeFileSync(raw, qrFrame(vectors[31].code).data);
  const photo = join(JSQR_PHOTOS[1], 'input.png');
  const r = await saphir('decode', '--source', 'image', png, photo);
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stdout, `${vectors[30].code}\nhttp://adsites.com.au/?E=280\n`);
  // A photo only the firmware's jsQR reads (a Hanzi-mode segment), its text from the host's GB 2312.
  const hanzi = await saphir('decode', '--source', 'image', join(ROOT, 'test', 'fixtures', 'jsqr', '5', 'input.png'));
  assert.is(hanzi.stdout, '\u0001\u0010AD:SUB:阿;;\n', hanzi.stderr);
  const r2 = await saphir('decode', '--source', 'image', '--width', '640', '--height', '480', '--format', 'y8', raw);
  assert.is(r2.stdout, vectors[31].code + '\n');
  const bad = await saphir('decode', '--source', 'image', '--width', '640', '--height', '400', raw);
  assert.is(bad.status, 1);
  assert.match(bad.stderr, '307200 octets, 256000 attendus');
});

test('decode: bad input gives reasons, not crashes', async () => {
  const broken = join(tmp, 'broken.hid');
  writeFileSync(broken, '02 00 16 00 00 00 00 00\nzz 00\n00 00 00 00 00 00 00 00\n02 00 13 00 00 00 00 00\n');
  const r = await saphir(
    'decode',
    '--source',
    'hid-keyboard',
    broken,
    join(tmp, 'missing.hid'),
    fx('serial-mixed.bin'),
  );
  assert.is(r.status, 1);
  assert.match(r.stderr, `${broken}:2 : ligne ignorée`);
  assert.match(r.stderr, 'code incomplet (délai dépassé) « SP »');
  assert.match(r.stderr, 'missing.hid : lecture impossible : fichier ou dossier introuvable');
  assert.match(r.stderr, 'serial-mixed.bin : aucun code');
  assert.is((await saphir('decode', '--source', 'usb', broken)).status, 2);
  assert.is((await saphir('decode', '--source', 'serial', '--layout', 'fr', broken)).status, 2);
  assert.is((await saphir('decode', '--source', 'image', '--width', 'x', broken)).status, 2);
  assert.match((await saphir('decode', '--source', 'image', broken)).stderr, 'PNG illisible');
});

withSocat('scan --serial on a socat pty pair: the verdict of every code scanned', async () => {
  const sp = spawn('socat', ['-d', '-d', 'pty,raw,echo=0', 'pty,raw,echo=0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const ptys = await new Promise<string[]>((resolve, reject) => {
    let err = '';
    sp.stderr!.on('data', (d: Buffer) => {
      err += d;
      const m = [...err.matchAll(/PTY is (\S+)/g)].map((x) => x[1]);
      if (m.length === 2) resolve(m);
    });
    sp.on('error', reject);
    sp.on('exit', () => reject(new Error(err)));
  });
  try {
    const cli = spawn(process.execPath, [BIN, 'scan', '--serial', ptys[0], '--count', '3', '--lang', 'en'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    cli.stdout.on('data', (d) => (out += d));
    const ready = new Promise<void>((r) => cli.stderr.on('data', (d) => ((err += d), err.includes('ready') && r())));
    const exit = new Promise<number>((r) => cli.on('exit', (c) => r(c ?? -1)));
    await ready;
    const fd = openSync(ptys[1], 'r+');
    writeSync(fd, `]Q1${vectors[30].code}\r\n\x00${vectors[0].code}\rSPH1:NOPE\r`);
    closeSync(fd);
    const code = await exit;
    const lines = out.trim().split('\n');
    assert.is(lines.length, 3, out + err);
    assert.match(lines[0], /^WINNER €250,000/);
    assert.match(lines[1], /^LOSER/);
    assert.match(lines[2], /^NOT VALID/);
    assert.is(code, 1);
  } finally {
    sp.kill();
  }
});

test('scan: usage errors and a clear message for a missing device', async () => {
  assert.is((await saphir('scan')).status, 2);
  assert.is((await saphir('scan', '--hid', '1:2', '--serial', '/dev/x')).status, 2);
  assert.is((await saphir('scan', '--serial', '/dev/x', '--layout', 'fr')).status, 2);
  const r = await saphir('scan', '--serial', join(tmp, 'no-such-port'));
  assert.is(r.status, 1);
  assert.match(r.stderr, "impossible d'ouvrir");
});

withNodeHid('scan --hid: the real node-hid loads and a scanner that is not there is named', async () => {
  const h = await saphir('scan', '--hid', 'ffff:fffe', '--lang', 'en');
  assert.is(h.status, 1);
  assert.match(h.stderr, 'no HID device ffff:fffe');
});

test.after(() => rmSync(tmp, { recursive: true, force: true }));
test.run();
