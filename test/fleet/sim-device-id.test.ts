// Distinct simulated devices (issue #30 item 7): two `saphir sim --registry URL` in two terminals were
// both SIM-0001, so the registry granted the same ticket to each ("the holder asking again"): two
// payments, no conflict. Each run now has its own id (or `--device-id ID`: two more simulators, in the
// long tier, sim-device-id.long.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noStack, saphirAsync, saphir, saphirIn } from '../cli/run-cli.ts';
import { serve, type Served } from '../registry/serve-cli.ts';
import { startWebServer } from '../../hw-sim/web/server.ts';
import { postRegistry, type ClientAnswer } from '../../host/registry/client.ts';
import { DEV_DEVICE_SEED_HEX } from '../../src/registry/protocol.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { longTest } from '../helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-simid-'));

// Both simulators scan the same ticket, pasted as a code (`ticket 30` draws a new one each time) and press OK.
const codeOf = (number: number) => ticketCode({ emission: 1, block: 1, number, prize: 30 });
const script = [codeOf(1), 'attendre 1s', 'ok', 'attendre 3s', 'quitter', ''].join('\n');
const second = [codeOf(2), 'attendre 1s', 'ok', 'attendre 3s', 'quitter', ''].join('\n');

// One registry server for the file's two runs of two simulators (each a ticket of its own): a server is
// a process and a PGlite start; the report at the end counts both tickets.
const db = join(dir, 'reg');
let srv: Served | undefined;
const server = async () => (srv ??= await serve(['--db', db]));
test.after(async () => {
  await srv?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('two saphir sim at once on a development registry: two devices, each with a key of its own run, enrolled at start; the published key is refused under their ids', async () => {
  const srv = await server();
  const [a, b] = await Promise.all([
    saphirAsync(['sim', '--registry', srv.url], { input: script, timeoutMs: 90_000 }),
    saphirAsync(['sim', '--registry', srv.url], { input: script, timeoutMs: 90_000 }),
  ]);
  assert.is(a.code, 0, a.stderr);
  assert.is(b.code, 0, b.stderr);
  const keyOf = (r: { stdout: string }) => /clé d’appareil de ce lancement ([0-9a-f]{64})/.exec(r.stdout)?.[1];
  const idOf = (r: { stdout: string }) => /identifiant de l'appareil : (\S+)/.exec(r.stdout)?.[1];
  assert.ok(keyOf(a) && keyOf(b) && keyOf(a) !== keyOf(b), `${keyOf(a)} ${keyOf(b)}`);
  const ids = [idOf(a)!, idOf(b)!];
  assert.ok(ids[0] && ids[1] && ids[0] !== ids[1], ids.join(' '));
  for (const [r, id] of [
    [a, ids[0]],
    [b, ids[1]],
  ] as const)
    assert.ok(r.stderr.includes(`clé de l’appareil ${id} inscrite au registre central de développement`), r.stderr);
  // Both were heard with their own keys: one paid the ticket, the other met DÉJÀ PAYÉ naming it.
  const refused = [a, b].filter((r) => /DÉJÀ PAYÉ/.test(r.stdout));
  assert.is(refused.length, 1, a.stdout + b.stdout);
  const winner = refused[0] === a ? ids[1] : ids[0];
  assert.ok(refused[0].stdout.includes(winner), refused[0].stdout);
  // The published development key no longer speaks for either id; the fleet is still a development one.
  const code = ticketCode({ emission: 1, block: 1, number: 9, prize: 30 });
  for (const id of ids) {
    const r: ClientAnswer = await postRegistry(srv.url, 'claim', { deviceId: id, seedHex: DEV_DEVICE_SEED_HEX }, [
      { code, paid_at: Date.now() },
    ]);
    assert.is(r.ok ? 'granted' : r.body.error, 'bad_signature', id);
  }
  const health = (await (await fetch(`${srv.url}/health`)).json()) as { fleet: string };
  assert.is(health.fleet, 'development');
});

longTest(
  'named devices (--device-id): the id given is the one the registry holds the ticket for; one payment a ticket',
  async () => {
    const s = await server();
    const c = saphir(['sim', '--registry', s.url, '--device-id', 'CAISSE-C'], second);
    const d = saphir(['sim', '--registry', s.url, '--device-id', 'CAISSE-D'], second);
    assert.is(c.code, 0, c.stderr);
    assert.match(c.stdout, /identifiant de l'appareil : CAISSE-C/);
    assert.match(c.stdout, /PAYÉ/);
    assert.match(d.stdout, /identifiant de l'appareil : CAISSE-D/);
    assert.match(d.stdout, /DÉJÀ PAYÉ/);
    assert.match(d.stdout, /CAISSE-C/);
    await s.stop();
    srv = undefined;
    // (registry report runs as a process in registry/cli.test.ts: here, in this one.) The ticket of the
    // test above and this one: each paid once.
    const report = await saphirIn(['registry', 'report', '--json', '--db', db]);
    const rep = JSON.parse(report.stdout) as { totals: { payments: number } };
    assert.is(rep.totals.payments, 2, report.stdout);
  },
);

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
    assert.equal(cfg, { registry: null, device_id: 'SHOP-7', department: null });
  } finally {
    await w.close();
  }
});

test.run();
