// The interactive simulator's commands as a user types them (no TTY): every bad command gets its reason,
// in French by default and in English with --lang en; waits are bounded and long ones say their progress;
// `ticket` draws a new ticket and prints its code; `rescan` scans the last code again (#33 points 5, 12).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { saphirAsync, saphirIn } from '../cli/run-cli.ts';
import { durationText } from '../../host/commands/sim/live.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-sim-interactive-'));

/** A session in this process (the same main as the binary; piped input, as `saphir sim < commands`). */
async function sim(input: string, lang: 'fr' | 'en' = 'fr') {
  const r = await saphirIn(['sim', ...(lang === 'en' ? ['--lang', 'en'] : [])], input, {}, dir);
  assert.is(r.code, 0, r.stdout + r.stderr);
  // The commands' answers, without the display's frames.
  return r.stdout
    .split('\n')
    .filter((l) => !/^[│┌└]/.test(l))
    .join('\n');
}

// Two sessions (each boots the firmware: seconds), the tests below read their answers.
let frOut: Promise<string> | undefined;
let enOut: Promise<string> | undefined;
const frSession = () =>
  (frOut ??= sim(
    'attendre\nattendre 3x\nattendre -5s\nattendre 99999d\nvia bogus\nréseau\n' +
      'coupure\nok\nboot\nboot\nreboot\nattendre 2s\nattendre 40min\nquitter\n',
  ));
const enSession = () =>
  (enOut ??= sim(
    'wait\nwait 3x\nwait -5s\nwait 99999d\nvia bogus\nrescan\nticket 0\nticket 150\nticket 150\nrescan\nquit\n',
    'en',
  ));

test('bad commands get their reason (fr, en): wait without, with a bad or an over-long duration; via, réseau', async () => {
  const fr = await frSession();
  const en = await enSession();
  assert.match(fr, /attendre demande une durée : un nombre et ms, s, min, h ou d, au plus 1 j/);
  assert.match(fr, /« 3x » n’est pas une durée/);
  assert.match(fr, /« -5s » n’est pas une durée/);
  assert.match(fr, /99999d dépasse le maximum d’une attente, 1 j/);
  assert.match(fr, /pas de lecteur « bogus » : hid-keyboard, hid-pos, serial, camera/);
  assert.match(fr, /pas de réseau : lancez avec --registry/);
  assert.match(en, /wait takes a duration: a number and ms, s, min, h or d, at most 1 d/);
  assert.match(en, /"3x" is not a duration/);
  assert.match(en, /"-5s" is not a duration/);
  assert.match(en, /99999d is more than one wait may last, 1 d/);
  assert.match(en, /no scanner "bogus"/);
  assert.not.match(en, /[àéèêç«»]/);
});

test('power commands say what they did: coupure, a key while off, boot, reboot', async () => {
  const fr = await frSession();
  assert.match(fr, /^courant coupé\nappareil éteint \(« boot » pour rallumer\)\nallumé : développement/m);
  assert.match(fr, /appareil déjà allumé/);
  assert.match(fr, /redémarré : développement : le firmware de ce dépôt/);
});

test('a wait says what it simulated; a long one says its progress in tenths', async () => {
  const fr = await frSession();
  assert.match(fr, /^2 s simulés$/m);
  for (let i = 1; i < 10; i++) assert.match(fr, new RegExp(`^… ${4 * i} min sur 40 min simulés$`, 'm'));
  assert.match(fr, /^40 min simulés$/m);
});

test('ticket draws a new ticket each time and prints its code; a losing one is said so; rescan scans the last code again', async () => {
  const en = await enSession();
  assert.match(en, /nothing to scan again/);
  assert.match(en, /→ ticket 1\/\d+\/\d+ losing via hid-pos: SPH1:/);
  assert.not.match(en, / 0 via /);
  // (to the end of the line: a code may hold spaces, QR's alphanumeric set has one)
  const won = [...en.matchAll(/→ ticket (1\/\d+\/\d+) €150 via hid-pos: (SPH1:.+)$/gm)];
  assert.is(won.length, 2, en);
  assert.is.not(won[0][1], won[1][1]);
  assert.is.not(won[0][2], won[1][2]);
  // rescan: the last code again.
  assert.ok(en.includes(`→ again via hid-pos: ${won[1][2]}\n`), en);
});

test('--registry URL: said at once whether the registry answers (a refused one: the device will pay offline)', async () => {
  const server = createServer((req, res) => {
    res.writeHead(req.url === '/health' ? 200 : 404, { 'content-type': 'application/json' });
    res.end('{"status":"ok"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  try {
    // stdin closed: the session ends at once, after its first lines.
    const up = await saphirAsync(['sim', '--registry', `http://127.0.0.1:${port}`, '--lang', 'en']);
    assert.is(up.code, 0, up.stdout + up.stderr);
    assert.match(up.stderr, `central registry: http://127.0.0.1:${port} (it answers)`);
  } finally {
    await new Promise((r) => server.close(r));
  }
  // The same port, now closed.
  const down = await saphirAsync(['sim', '--registry', `http://127.0.0.1:${port}`]);
  assert.is(down.code, 0, down.stdout + down.stderr);
  assert.match(
    down.stderr,
    `le registre central http://127.0.0.1:${port} ne répond pas (connexion refusée (127.0.0.1:${port}) : rien n’y écoute) : l’appareil paiera hors ligne`,
  );
});

test('durations are said with their two largest units', async () => {
  assert.is(durationText(86_400_000, 'fr'), '1 j');
  assert.is(durationText(86_400_000, 'en'), '1 d');
  assert.is(durationText(9_000_000, 'fr'), '2 h 30 min');
  assert.is(durationText(250, 'en'), '250 ms');
  assert.is(durationText(0, 'en'), '0 s');
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
