// The web simulator (hw-sim/web/) in a real Chromium: the real firmware bundle in QuickJS-wasm in a
// Web Worker, driven through the page's stable hooks (data-test). Skipped, and said so, without
// /usr/bin/chromium; a failure then under SAPHIR_TEST_STRICT=1.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ticketCode } from '../../hw-sim/tickets.ts';
import {
  chromiumMissing,
  display,
  launch,
  server,
  ticketPng,
  ticketY4m,
  waitDisplay,
  type Browser,
} from './browser.ts';
import type { WebServer } from '../../hw-sim/web/server.ts';
import type { Page } from 'playwright-core';
import { longOnly, requireTool } from '../helpers.ts';
import { ENGLISH, FRENCH, prose } from '../voice.ts';
import { BEEPS } from '../../src/signals.ts';

/**
 * Runs in the page before its own scripts: records every tone the page schedules on Web Audio
 * (frequency, start and length in ms relative to the pattern's first tone), and whether it is wired.
 */
function spyOnAudio(): void {
  const w = window as unknown as { __tones: { hz: number; at: number; ms: number; wired: boolean }[] };
  w.__tones = [];
  const nodes = new Map<OscillatorNode, { hz: number; at: number; ms: number; wired: boolean }>();
  const proto = OscillatorNode.prototype;
  const { start, stop, connect } = proto;
  proto.connect = function (this: OscillatorNode, ...a: unknown[]) {
    const r = (connect as (...x: unknown[]) => AudioNode).apply(this, a);
    const t = nodes.get(this);
    if (t) t.wired = true;
    else nodes.set(this, { hz: 0, at: 0, ms: 0, wired: true });
    return r;
  } as typeof proto.connect;
  proto.start = function (this: OscillatorNode, when = 0) {
    const t = nodes.get(this) ?? { hz: 0, at: 0, ms: 0, wired: false };
    nodes.set(this, Object.assign(t, { hz: this.frequency.value, at: when * 1000 }));
    w.__tones.push(t);
    start.call(this, when);
  };
  proto.stop = function (this: OscillatorNode, when = 0) {
    const t = nodes.get(this);
    if (t) t.ms = Math.round(when * 1000 - t.at);
    stop.call(this, when);
  };
}

/** The tones recorded since the last call, start times relative to the first one. */
async function takeTones(p: Page) {
  const tones = await p.evaluate(() => {
    const w = window as unknown as { __tones: { hz: number; at: number; ms: number; wired: boolean }[] };
    return w.__tones.splice(0);
  });
  const t0 = tones[0]?.at ?? 0;
  return tones.map((t) => ({ hz: t.hz, at: Math.round(t.at - t0), ms: t.ms, wired: t.wired }));
}

/** What the page must schedule for a pattern of src/signals.ts (silences are gaps, not oscillators). */
function expected(pattern: readonly { hz: number; ms: number }[]) {
  const out: { hz: number; at: number; ms: number; wired: boolean }[] = [];
  let at = 0;
  for (const t of pattern) {
    if (t.hz > 0) out.push({ hz: t.hz, at, ms: t.ms, wired: true });
    at += t.ms;
  }
  return out;
}

const missing = chromiumMissing();
const web = suite('web simulator in Chromium');
// npm test: the page's core path (boot, pay, DÉJÀ PAYÉ, a reload, French and English, a scenario, power);
// the long tier (web.long.ts) every panel and scanner too: each costs the browser seconds of CPU.
const webLong = longOnly(web);

if (missing) {
  // Counted as skipped by test/run.mjs (a failure under SAPHIR_TEST_STRICT=1).
  requireTool('chromium', 'apt-get install chromium', { check: chromiumMissing, t: web })(
    'the web simulator in a real Chromium',
    () => {},
  );
} else {
  let srv: WebServer;
  let b: Browser;
  let p: Page;
  const winning = ticketCode({ emission: 1, block: 9, number: 501, prize: 150 });

  const scan = async (code: string) => {
    await p.fill('[data-test="code"]', code);
    await p.click('[data-test="scan"]');
  };

  /** Every URL the page asked for: nothing may come from anywhere but the local server. */
  const requested: string[] = [];
  web.before(async () => {
    srv = await server();
    b = await launch();
    await b.context.addInitScript(spyOnAudio);
    p = b.page;
    p.on('request', (r) => requested.push(r.url()));
  });
  web.after(async () => {
    await b?.close();
    await srv?.close();
  });

  web('boots the real firmware to PRÊT', async () => {
    await p.goto(srv.url);
    const text = await waitDisplay(p, 'PRÊT', 30000);
    assert.match(text, /SAPHIR/);
    assert.is(await p.getAttribute('[data-test="led"]', 'data-color'), 'off');
    // The simulator's own lines and the device's technical log in French (the worker translates the firmware's).
    assert.match(
      await p.locator('[data-test="log"]').innerText(),
      /allumé \(développement \(sans image signée\)\)[\s\S]*prêt : 0 paiement au journal/,
    );
    assert.match(await p.locator('h2[data-i18n="log"]').innerText(), /^Journal technique de l’appareil$/);
    assert.equal(b.errors, [], 'no page error, no failed request');
    assert.ok(requested.length >= 5);
    assert.equal(
      requested.filter((u) => !u.startsWith(srv.url) && !/^(data|blob):/.test(u)),
      [],
      'nothing fetched from elsewhere',
    );
  });

  web('a pasted genuine winning code → GAGNANT 150 € → OK → PAYÉ, saved in the ledger', async () => {
    await takeTones(p);
    await scan(winning);
    const text = await waitDisplay(p, 'GAGNANT');
    await p.waitForFunction(() => (window as unknown as { __tones: unknown[] }).__tones.length >= 3);
    assert.equal(await takeTones(p), expected(BEEPS.win), 'the beeper plays the win pattern');
    assert.match(text, /150 €/);
    assert.is(await p.locator('[data-test="customer"]').innerText(), '150 €');
    await p.waitForSelector('[data-test="led"][data-color="green"]');
    await p.click('[data-test="key-OK"]');
    await waitDisplay(p, 'PAYÉ');
    await p.waitForSelector('body[data-payments="1"]');
    assert.match(await p.locator('[data-test="ledger"] tbody').innerText(), /1\s+9\s+501\s+150 €/);
    assert.match(await p.locator('[data-test="beeps"]').innerText(), /gagnant/);
  });

  web(
    'the page in French (#33 point 7): LED and boot mode, ledger in Paris time, the demo first, no fleet scenario without a registry',
    async () => {
      // The LED's label and the boot mode beside it, in French.
      assert.match((await p.getAttribute('[data-test="led"]', 'aria-label'))!, /^LED (éteinte|verte|rouge)$/);
      const power = await p.locator('[data-test="power"]').innerText();
      assert.is(power, 'développement (sans image signée)');
      // The ledger's time in Paris time, as the display shows it (dd/mm/yyyy hh:mm), not ISO UTC.
      const row = await p.locator('[data-test="ledger"] tbody tr').first().innerText();
      assert.match(row, /\d\d\/\d\d\/\d{4} \d\d:\d\d/);
      assert.not.match(row, /T\d\d:\d\d|Z\b/);
      const { frenchDateTime } = await import('../../src/paris-time.ts');
      const shown = /(\d\d\/\d\d\/\d{4} \d\d:\d\d)/.exec(row)![1];
      const now = Date.now();
      assert.ok([now, now - 60_000, now - 120_000].map(frenchDateTime).includes(shown), `${shown}: Paris time now`);
      assert.match(await p.locator('[data-test="ledger"]').innerText(), /Payé le \(heure de Paris\)/);
      // The demo is the scenario offered first; fleet scenarios need a registry this page has not.
      assert.is(await p.locator('[data-test="scenario-pick"]').inputValue(), 'demo.yaml');
      const offered = await p.locator('[data-test="scenario-pick"] option').allInnerTexts();
      assert.ok(offered.includes('payment.yaml'), offered.join(' '));
      assert.not.ok(offered.includes('fleet.yaml'), offered.join(' '));
      assert.not.ok(offered.includes('fleet-campaign.yaml'), offered.join(' '));
      // In English, the worker's words switch too.
      await p.selectOption('[data-test="lang"]', 'en');
      await p.waitForFunction(
        () => document.querySelector('[data-test="power"]')!.textContent === 'developer (no signed image)',
      );
      assert.match((await p.getAttribute('[data-test="led"]', 'aria-label'))!, /^LED (off|green|red)$/);
      await p.selectOption('[data-test="lang"]', 'fr');
      await p.waitForFunction(
        () => document.querySelector('[data-test="power"]')!.textContent === 'développement (sans image signée)',
      );
    },
  );

  web('the same code again → DÉJÀ PAYÉ', async () => {
    await scan(winning);
    await waitDisplay(p, 'DÉJÀ PAYÉ');
  });

  web('a reload keeps the ledger (the chip is in IndexedDB)', async () => {
    await p.reload();
    await waitDisplay(p, 'PRÊT', 30000);
    await p.waitForSelector('body[data-payments="1"]');
    await scan(winning);
    await waitDisplay(p, 'DÉJÀ PAYÉ');
  });

  webLong('a second tab says it does not save the chip, and does not overwrite the first one', async () => {
    const other = await b.context.newPage();
    try {
      await other.goto(srv.url);
      await waitDisplay(other, 'PRÊT', 30000);
      await other.waitForFunction(`/autre onglet/.test(document.querySelector('[data-test="status"]').textContent)`);
      await other.waitForSelector('body[data-payments="1"]');
      await other.fill('[data-test="code"]', ticketCode({ emission: 1, block: 9, number: 505, prize: 10 }));
      await other.click('[data-test="scan"]');
      await waitDisplay(other, 'GAGNANT');
      await other.click('[data-test="key-OK"]');
      await waitDisplay(other, 'PAYÉ');
      await other.waitForSelector('body[data-payments="2"]');
    } finally {
      await other.close();
    }
    await p.reload();
    await waitDisplay(p, 'PRÊT', 30000);
    await p.waitForSelector('body[data-payments="1"]');
    assert.not.match(await p.locator('[data-test="status"]').innerText(), /autre onglet/);
  });

  webLong('the ledger panel exports CSV in the columns of saphir ledger export', async () => {
    const [dl] = await Promise.all([p.waitForEvent('download'), p.click('[data-test="csv"]')]);
    const { readFileSync } = await import('node:fs');
    const csv = readFileSync(await dl.path(), 'utf8').split('\n');
    assert.is(csv[0], 'emission,block,number,prize_eur,paid_at,device_id');
    assert.match(csv[1], /^1,9,501,150,\d{4}-\d\d-\d\dT[\d:.]+Z,SIM-0001$/);
    assert.is(csv.length, 3);
  });

  web('a forged code → NON VALIDE, red LED', async () => {
    await scan(ticketCode({ emission: 1, block: 9, number: 502, prize: 150, key: 'other' }));
    await waitDisplay(p, 'NON VALIDE');
    await p.waitForSelector('[data-test="led"][data-color="red"]');
  });

  webLong('mute silences the beeper; the beep history still records every beep', async () => {
    await takeTones(p);
    await p.click('[data-test="mute"]');
    const before = await p.locator('[data-test="beeps"] li').count();
    await scan(ticketCode({ emission: 1, block: 9, number: 506, prize: 0 }));
    await waitDisplay(p, 'PERDANT');
    await p.waitForFunction((n) => document.querySelectorAll('[data-test="beeps"] li').length > n, before);
    assert.match(await p.locator('[data-test="beeps"] li').last().innerText(), /perdant/);
    await p.waitForTimeout(200);
    assert.equal(await takeTones(p), [], 'no tone while muted');
    // Unmuted, the next verdict is heard again.
    await p.click('[data-test="mute"]');
    await takeTones(p);
    await scan(ticketCode({ emission: 1, block: 9, number: 502, prize: 150, key: 'other' }));
    await waitDisplay(p, 'NON VALIDE');
    await p.waitForFunction(() => (window as unknown as { __tones: unknown[] }).__tones.length >= 3);
    assert.equal(await takeTones(p), expected(BEEPS.refused));
  });

  webLong('a generated ticket through the serial scanner, paid from the keyboard (Enter = OK)', async () => {
    await p.selectOption('[data-test="via"]', 'serial');
    await p.fill('[data-test="options"]', 'baud=115200 terminator=crlf');
    await p.fill('[data-test="t-number"]', '777');
    await p.selectOption('[data-test="t-prize"]', '10');
    await p.click('[data-test="ticket"]');
    await waitDisplay(p, 'GAGNANT');
    await p.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await p.keyboard.press('Enter');
    await waitDisplay(p, 'PAYÉ');
    await p.waitForSelector('body[data-payments="2"]');
    await p.selectOption('[data-test="via"]', 'hid-pos');
    await p.fill('[data-test="options"]', '');
  });

  webLong('generated tickets through the camera model and an AZERTY keyboard wedge', async () => {
    await p.selectOption('[data-test="t-prize"]', '0');
    for (const [via, options, n] of [
      ['camera', 'blur=0.3', '801'],
      ['hid-keyboard', 'layout=fr', '802'],
    ]) {
      await p.selectOption('[data-test="via"]', via);
      await p.fill('[data-test="options"]', options);
      await p.fill('[data-test="t-number"]', n);
      await p.click('[data-test="ticket"]');
      await waitDisplay(p, `1-1-${n}`);
      assert.match(await display(p).innerText(), /PERDANT/);
    }
    await p.selectOption('[data-test="via"]', 'hid-pos');
    await p.fill('[data-test="options"]', '');
  });

  web('a bad scanner option is reported in French, nothing crashes', async () => {
    const status = () => p.locator('[data-test="status"]').innerText();
    await p.selectOption('[data-test="via"]', 'serial');
    for (const [options, said] of [
      ['baud=fast', "l'option « baud » du lecteur serial doit être un nombre"],
      ['speed=3', "le lecteur serial n'a pas d'option « speed »"],
      ['baudfast', 'option « baudfast » : écrire nom=valeur'],
      ['baud=7', 'baud vaut l’une de ces valeurs : 1200'],
    ]) {
      await p.fill('[data-test="options"]', options);
      await scan(winning);
      await p.waitForFunction((s) => document.querySelector('[data-test="status"]')!.textContent!.includes(s), said);
      assert.not.match(await status(), /must be|unknown|write name/);
    }
    await p.fill('[data-test="options"]', '');
    await p.selectOption('[data-test="via"]', 'hid-pos');
    await scan(winning);
    await waitDisplay(p, 'DÉJÀ PAYÉ');
  });

  webLong('a dropped photo of a ticket → its verdict', async () => {
    const png = ticketPng(ticketCode({ emission: 1, block: 9, number: 503, prize: 0 }));
    await p.evaluate(async (b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'ticket.png', { type: 'image/png' }));
      document
        .querySelector('[data-test="drop"]')!
        .dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, png.toString('base64'));
    await waitDisplay(p, 'PERDANT');
    // A file that is no image: the reason in French, not the browser's English message.
    await p.setInputFiles('[data-test="photo"]', {
      name: 'x.png',
      mimeType: 'image/png',
      buffer: Buffer.from('no png'),
    });
    await p.waitForFunction(() => /image illisible/.test(document.querySelector('[data-test="status"]')!.textContent!));
    assert.is(await p.locator('[data-test="status"]').innerText(), 'image illisible : format non reconnu');
  });

  web('a shipped scenario passes in the page, with its screenshot to download', async () => {
    // The live device cleared first (else its verdict screen stays until its timeout: seconds of waiting).
    await p.click('[data-test="key-C"]');
    await waitDisplay(p, 'PRÊT');
    await p.selectOption('[data-test="scenario-pick"]', 'english.yaml');
    await p.click('[data-test="scenario-run"]');
    await p.waitForSelector('[data-test="scenario-result"][data-ok]', { timeout: 60000 });
    assert.is(
      await p.getAttribute('[data-test="scenario-result"]', 'data-ok'),
      'true',
      await p.locator('[data-test="scenario-steps"]').innerText(),
    );
    assert.ok((await p.locator('[data-test="scenario-steps"] li.pass').count()) > 3);
    const shot = p.locator('[data-test="screenshot"]');
    await shot.waitFor();
    const [dl] = await Promise.all([p.waitForEvent('download'), shot.click()]);
    assert.match(dl.suggestedFilename(), /\.png$/);
    // The live device is back on screen, and stays there.
    await waitDisplay(p, 'PRÊT');
    await p.waitForTimeout(300);
    assert.match(await display(p).innerText(), /PRÊT/);
    assert.not.match(await p.locator('[data-test="power"]').innerText(), /hors tension/);
  });

  webLong('a broken scenario shows its FILE:LINE problems; a failing expect is marked on its line', async () => {
    await p.fill('[data-test="scenario-text"]', 'name: broken\nsteps:\n  - boot\n  - jump: 3\n');
    await p.click('[data-test="scenario-run"]');
    await p.waitForSelector('[data-test="scenario-problems"] li');
    assert.match(
      await p.locator('[data-test="scenario-problems"]').innerText(),
      /english\.yaml:4: étape inconnue « jump »/,
    );
    await p.fill('[data-test="scenario-text"]', 'name: failing\nsteps:\n  - boot\n  - expect-display: GAGNANT\n');
    await p.click('[data-test="scenario-run"]');
    await p.waitForSelector('[data-test="scenario-result"][data-ok="false"]', { timeout: 30000 });
    assert.match(await p.locator('[data-test="scenario-steps"] li.fail').innerText(), /:4: expect-display/);
  });

  webLong('step by step: one step a click, the current one highlighted', async () => {
    await p.fill(
      '[data-test="scenario-text"]',
      'name: steps\nsteps:\n  - boot\n  - expect-display: PRÊT\n  - press: OK\n',
    );
    await p.click('[data-test="scenario-step"]');
    await p.waitForSelector('[data-test="scenario-steps"] li.current[data-line="3"]');
    assert.is(await p.locator('[data-test="scenario-steps"] li.pass').count(), 0);
    await p.click('[data-test="scenario-step"]');
    await p.waitForSelector('[data-test="scenario-steps"] li.current[data-line="4"]');
    assert.is(await p.locator('[data-test="scenario-steps"] li.pass').count(), 1);
    await p.click('[data-test="scenario-run"]');
    await p.waitForSelector('[data-test="scenario-result"][data-ok="true"]');
    await p.waitForTimeout(300);
    assert.match(await display(p).innerText(), /PRÊT/, 'the live device is back on screen');
  });

  web('power cut, boot and reboot buttons', async () => {
    await p.click('[data-test="cut"]');
    await p.waitForFunction(`document.querySelector('[data-test="display"]').innerText.trim() === ''`);
    assert.match(await p.locator('[data-test="power"]').innerText(), /hors tension/);
    await p.click('[data-test="boot"]');
    await waitDisplay(p, 'PRÊT');
    await p.click('[data-test="reboot"]');
    await p.waitForFunction(`/éteint \\(redémarrage\\)/.test(document.querySelector('[data-test="log"]').textContent)`);
    await waitDisplay(p, 'PRÊT');
  });

  web('English switch', async () => {
    await p.selectOption('[data-test="lang"]', 'en');
    assert.is(await p.locator('[data-test="scan"]').innerText(), 'Scan');
    await p.selectOption('[data-test="lang"]', 'fr');
    assert.is(await p.locator('[data-test="scan"]').innerText(), 'Scanner');
    assert.equal(
      b.errors.filter((e) => !/status of 404/.test(e)),
      [],
    );
  });

  webLong('chip export and import (the saphir sim --flash format); a wrong file changes nothing', async () => {
    const [dl] = await Promise.all([p.waitForEvent('download'), p.click('[data-test="export"]')]);
    const file = await dl.path();
    const { statSync, readFileSync } = await import('node:fs');
    assert.is(statSync(file).size, 4 * 1024 * 1024);
    const { NorFlash } = await import('../../hw-sim/nor-flash.ts');
    const { Ledger } = await import('../../src/ledger/index.ts');
    const { partitionFlash } = await import('../../hw-sim/device.ts');
    const chip = new NorFlash({ bytes: new Uint8Array(readFileSync(file)) });
    const paid = Ledger.readEntries(partitionFlash(chip, 'ledger'));
    assert.is(paid.length, 2);
    assert.ok(paid.some((x) => x.block === 9 && x.number === 501 && x.prizeEur === 150));

    await p.setInputFiles('[data-test="import"]', {
      name: 'bad.bin',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from('not a chip'),
    });
    await p.waitForFunction(() =>
      /fichier de puce : 10 octets, une puce en a 4194304 ; rien n’a changé/.test(
        document.querySelector('[data-test="status"]')!.textContent!,
      ),
    );
    assert.is(await p.getAttribute('body', 'data-payments'), '2');

    // Puce neuve asks first: refused, the payments stay; accepted, the chip is erased.
    const asked: string[] = [];
    p.once('dialog', (d) => (asked.push(d.message()), void d.dismiss()));
    await p.click('[data-test="erase"]');
    await p.waitForTimeout(300);
    assert.is(await p.getAttribute('body', 'data-payments'), '2');
    assert.match(asked[0] ?? '', /journal des paiements \(2 paiement\(s\)\)/);
    p.once('dialog', (d) => void d.accept());
    await p.click('[data-test="erase"]');
    await p.waitForSelector('body[data-payments="0"]');
    await p.setInputFiles('[data-test="import"]', file);
    await p.waitForSelector('body[data-payments="2"]');
    await waitDisplay(p, 'PRÊT');
    await scan(winning);
    await waitDisplay(p, 'DÉJÀ PAYÉ');
  });

  webLong('the webcam (Chromium fake capture of a ticket video) → its verdict', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'saphir-y4m-'));
    const video = join(dir, 'ticket.y4m');
    ticketY4m(ticketCode({ emission: 1, block: 9, number: 504, prize: 0 }), video);
    const cam = await launch({
      args: [
        '--use-fake-device-for-media-stream',
        '--use-fake-ui-for-media-stream',
        `--use-file-for-fake-video-capture=${video}`,
      ],
    });
    try {
      await cam.context.grantPermissions(['camera'], { origin: srv.url.replace(/\/$/, '') });
      await cam.page.goto(srv.url);
      await waitDisplay(cam.page, 'PRÊT', 30000);
      await cam.page.click('[data-test="webcam"]');
      await waitDisplay(cam.page, 'PERDANT', 30000);
      assert.ok((await display(cam.page).innerText()).length > 0);
    } finally {
      await cam.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  webLong(
    'the receipt printer panel and the customer display; paper out keeps the payment, a reprint is a DUPLICATA',
    async () => {
      const receipt = p.locator('[data-test="receipt"]');
      const paid = Number(await p.getAttribute('body', 'data-payments'));
      await scan(ticketCode({ emission: 1, block: 9, number: 509, prize: 150 }));
      await waitDisplay(p, 'GAGNANT');
      assert.is(await p.locator('[data-test="customer"]').innerText(), '150 €');
      assert.match(await p.locator('[data-test="customer-display"]').innerText(), /Client/);
      await p.click('[data-test="key-OK"]');
      await waitDisplay(p, 'PAYÉ');
      await p.waitForFunction(() => /1-9-509/.test(document.querySelector('[data-test="receipt"]')!.textContent!));
      assert.match(await receipt.innerText(), /REÇU DE PAIEMENT[\s\S]*Ticket 1-9-509[\s\S]*Montant payé 150 €/);
      await p.selectOption('[data-test="paper"]', 'paper-out');
      await scan(ticketCode({ emission: 1, block: 9, number: 510, prize: 10 }));
      await waitDisplay(p, 'GAGNANT');
      await p.click('[data-test="key-OK"]');
      await waitDisplay(p, 'reçu non imprimé');
      await p.waitForSelector(`body[data-payments="${paid + 2}"]`);
      assert.not.match(await receipt.innerText(), /1-9-510/);
      await p.selectOption('[data-test="paper"]', 'ok');
      for (const k of ['C', '0', 'OK']) await p.click(`[data-test="key-${k}"]`);
      await p.waitForFunction(() =>
        /DUPLICATA[\s\S]*1-9-510/.test(document.querySelector('[data-test="receipt"]')!.textContent!),
      );
    },
  );
  web(
    'the log panel in the page’s language (#33 points 6, 7): no English line under French, no French under English',
    async () => {
      const log = p.locator('[data-test="log"] li');
      /** A line without its time and what it quotes (the device's own words of an error, « … »). */
      const words = (line: string) => prose(line.replace(/^\S+\s+/, ''));
      // A payment of its own (the log starts again at each reload).
      await scan(ticketCode({ emission: 1, block: 9, number: 511, prize: 10 }));
      await waitDisplay(p, 'GAGNANT');
      await p.click('[data-test="key-OK"]');
      await waitDisplay(p, 'PAYÉ');
      await p.click('[data-test="cut"]');
      await p.waitForFunction(() =>
        /éteint \(coupure de courant\)/.test(document.querySelector('[data-test="log"]')!.textContent!),
      );
      await p.click('[data-test="boot"]');
      await waitDisplay(p, 'PRÊT', 30000);
      const fr = await log.allInnerTexts();
      assert.ok(fr.length >= 10, fr.join('\n'));
      // The firmware's words too (payments, keys, paid), not only error connectives.
      const firmwareEnglish = /\b(payments?|held|keys|paid|sent|waiting|ready|boot|confirmed|applied|damaged)\b/;
      for (const line of fr) {
        assert.not.match(words(line), ENGLISH, `English under French: ${line}`);
        assert.not.match(words(line), firmwareEnglish, `English under French: ${line}`);
      }
      assert.ok(
        fr.some((l) => /prêt : \d+ paiements? au journal, 1 clé, limite \d+ €/.test(l)),
        fr.join('\n'),
      );
      assert.ok(
        fr.some((l) => /payé 1-9-\d+ \d+ €/.test(l)),
        fr.join('\n'),
      );
      // In English, the new lines are the device's English.
      await p.selectOption('[data-test="lang"]', 'en');
      const before = await log.count();
      await p.click('[data-test="reboot"]');
      await p.waitForFunction(() =>
        /ready: \d+ payments held/.test(document.querySelector('[data-test="log"] li:last-child')!.textContent!),
      );
      const en = (await log.allInnerTexts()).slice(before);
      assert.ok(en.length >= 3, en.join('\n'));
      for (const line of en) assert.not.match(words(line), FRENCH, `French under English: ${line}`);
      await p.selectOption('[data-test="lang"]', 'fr');
    },
  );
}

web.run();
