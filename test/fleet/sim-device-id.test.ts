// Distinct simulated devices (issue #30 item 7): two `saphir sim --registry URL` in two terminals were
// both SIM-0001, so the registry granted the same ticket to each ("the holder asking again"): two
// payments, no conflict. Each run now has its own id (or `--device-id ID`).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noStack, saphirAsync, saphir } from '../cli/run-cli.ts';
import { serve } from '../registry/serve-cli.ts';
import { startWebServer } from '../../hw-sim/web/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-simid-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

// Both simulators scan the same ticket (the interactive `ticket 30` is 1/1/1 in every run) and press OK.
const script = ['ticket 30', 'attendre 1s', 'ok', 'attendre 3s', 'quitter', ''].join('\n');
// Then 1/1/2 (after a losing 1/1/1).
const second = ['ticket 0', 'attendre 2s', 'ticket 30', 'attendre 1s', 'ok', 'attendre 3s', 'quitter', ''].join('\n');

test('two saphir sim on one registry are two devices: the second meets DÉJÀ PAYÉ', async () => {
  const srv = await serve(['--db', join(dir, 'reg')]);
  try {
    const a = saphir(['sim', '--registry', srv.url], script);
    const b = saphir(['sim', '--registry', srv.url], script);
    assert.is(a.code, 0, a.stderr);
    assert.is(b.code, 0, b.stderr);
    const idA = /identifiant de l'appareil : (\S+)/.exec(a.stdout)?.[1];
    const idB = /identifiant de l'appareil : (\S+)/.exec(b.stdout)?.[1];
    assert.ok(idA && idB && idA !== idB, `${idA} ${idB}`);
    assert.match(a.stdout, /PAYÉ/);
    assert.match(b.stdout, /DÉJÀ PAYÉ/);
    assert.ok(b.stdout.includes(idA!), b.stdout);
    // Named ones: the id given is the one the registry holds the ticket for.
    const c = saphir(['sim', '--registry', srv.url, '--device-id', 'CAISSE-C'], second);
    const d = saphir(['sim', '--registry', srv.url, '--device-id', 'CAISSE-D'], second);
    assert.match(c.stdout, /identifiant de l'appareil : CAISSE-C/);
    assert.match(d.stdout, /DÉJÀ PAYÉ/);
    assert.match(d.stdout, /CAISSE-C/);
  } finally {
    await srv.stop();
  }
  const report = saphir(['registry', 'report', '--json', '--db', join(dir, 'reg')]);
  const rep = JSON.parse(report.stdout) as { totals: { payments: number } };
  assert.is(rep.totals.payments, 2, report.stdout);
});

test('--device-id: a bad id is a usage error; --web tells the page its id', async () => {
  const bad = await saphirAsync(['sim', '--device-id', 'a b', '--lang', 'en'], { timeoutMs: 30_000 });
  assert.is(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--device-id 'a b'/);
  assert.ok(noStack(bad.stderr));
  // An empty page folder: config.json is the server's own answer, no page build needed.
  const w = await startWebServer({ deviceId: 'SHOP-7', dir: mkdtempSync(join(dir, 'web-')) });
  try {
    const cfg = (await (await fetch(new URL('config.json', w.url))).json()) as {
      registry: unknown;
      device_id: unknown;
    };
    assert.equal(cfg, { registry: null, device_id: 'SHOP-7' });
  } finally {
    await w.close();
  }
});

test.run();
