// `saphir registry devices list` with the devices' health, and `saphir registry campaign …`, as a user runs
// them: the real binary on a PGlite folder whose devices synced (written here through the store). The first
// campaign command is a process of its own, the others run in this process (saphirIn: the same main);
// `devices list` runs as a process in lock.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saphir, saphirIn } from '../cli/run-cli.ts';
import { openPglite } from '../../host/registry/db.ts';
import { RegistryStore } from '../../host/registry/store.ts';
import { DEV_DEVICE_SEED_HEX, signRequest, type Health } from '../../src/registry/protocol.ts';
import { testKeyRing } from '../../src/sph1/keys.ts';
import { BOARD_ID, DEV_FIRMWARE_SEED_HEX, packImage } from '../../src/image/format.ts';
import { fromHex } from '../../src/hex.ts';
import { utf8Encode } from '../../src/utf8.ts';
import { nodeSha512, nodeSign } from '../../tools/node-crypto.ts';
import { HEALTH } from './cases.ts';
import { longTest } from '../helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-camp-'));
const db = join(dir, 'db');
const img = join(dir, 'fw.img');
/** `saphir registry campaign create IMG --name NAME …` on this file's database. */
const create = (name: string, ...more: string[]) => [
  'registry',
  'campaign',
  'create',
  img,
  '--name',
  name,
  ...more,
  '--db',
  db,
];
test.after(() => rmSync(dir, { recursive: true, force: true }));

test.before(async () => {
  const d = await openPglite(db);
  const store = new RegistryStore(d, { keys: testKeyRing() });
  let n = 0;
  // A heartbeat as `by` heard it (a store whose clock is `at`'s).
  const beat = async (id: string, h: Partial<Health>, by = store, at = Date.now()) =>
    by.handle(
      signRequest(
        {
          kind: 'sync',
          device_id: id,
          nonce: `nonce-${id}-${++n}`,
          sent_at: at,
          payments: [],
          health: { ...HEALTH, ledger: 5, outbox: 2, up: 7200, ...h },
        },
        fromHex(DEV_DEVICE_SEED_HEX),
        nodeSign,
        nodeSha512,
      ),
    );
  await beat('CAISSE-1', { boot: 'watchdog', errors: 3 });
  await beat('CAISSE-2', { fw: '0.2.0', slot: 'B', outbox: 0 });
  // CAISSE-3 last heard 10 days ago (the registry's clock then).
  const tenDaysAgo = Date.now() - 10 * 86_400_000;
  const old = new RegistryStore(d, { keys: testKeyRing(), now: () => tenDaysAgo });
  await beat('CAISSE-3', { ledger: 9, outbox: 14, up: 60 }, old, tenDaysAgo);
  await d.close();
  writeFileSync(
    img,
    packImage({
      bundle: utf8Encode('/* 0.2.0 */'),
      version: '0.2.0',
      boardId: BOARD_ID,
      securityCounter: 2,
      seed: fromHex(DEV_FIRMWARE_SEED_HEX),
      sign: nodeSign,
    }),
  );
});

test('devices list shows each device health, and STALE for one silent more than --stale-days', async () => {
  const r = await saphirIn(['registry', 'devices', 'list', '--db', db, '--lang', 'en', '--stale-days', '7']);
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.match(lines[0], /device\s+last seen\s+state\s+version\s+slot\s+notice\s+ledger\s+outbox\s+boot\s+up\s+errors/);
  assert.match(lines[1], /CAISSE-1 .*heard, not enrolled\s+0\.1\.0\s+A\s+0\s+5\s+2\s+watchdog\s+2 h\s+3/);
  assert.match(lines[2], /CAISSE-2 .*0\.2\.0\s+B\s+0\s+5\s+0\s+power-on/);
  assert.match(lines[3], /CAISSE-3 .*STALE \(> 7 d\)\s+0\.1\.0\s+A\s+0\s+9\s+14/);
  const fr = await saphirIn(['registry', 'devices', 'list', '--db', db, '--stale-days', '11']);
  assert.not.match(fr.stdout, /MUET/);
  assert.match(fr.stdout, /démarrage/);
  const j = JSON.parse((await saphirIn(['registry', 'devices', 'list', '--db', db, '--json'])).stdout);
  assert.equal(
    j.map((d: { device_id: string; stale: boolean; health: { outbox: number } }) => [
      d.device_id,
      d.stale,
      d.health.outbox,
    ]),
    [
      ['CAISSE-1', false, 2],
      ['CAISSE-2', false, 0],
      ['CAISSE-3', true, 14],
    ],
  );
});

test('campaign create, status, pause, resume, abort; refusals said in the user language', async () => {
  const c = saphir(create('v0.2', '--phases', '1,50,100', '--lang', 'en'));
  assert.is(c.code, 0, c.stderr);
  assert.match(c.stdout, /campaign v0\.2: image 0\.2\.0 to 3 device\(s\), phases 1,50,100; running/);
  const s = await saphirIn(['registry', 'campaign', 'status', 'v0.2', '--db', db, '--lang', 'en']);
  assert.match(s.stdout, /running, phase 1 of 3 \(1,50,100\), 0 failure\(s\) of 1 allowed/);
  assert.match(s.stdout, /phase 1: 1 device\(s\): 1 pending/);
  assert.is(
    (await saphirIn(['registry', 'campaign', 'pause', 'v0.2', '--db', db, '--lang', 'en'])).stdout.trim(),
    'campaign v0.2: paused',
  );
  assert.is(
    (await saphirIn(['registry', 'campaign', 'resume', 'v0.2', '--db', db])).stdout.trim(),
    'campagne v0.2 : running',
  );
  assert.is((await saphirIn(['registry', 'campaign', 'abort', 'v0.2', '--db', db, '--lang', 'en'])).code, 0);
  const again = await saphirIn(['registry', 'campaign', 'resume', 'v0.2', '--db', db, '--lang', 'en']);
  assert.is(again.code, 1);
  assert.match(again.stderr, /campaign v0\.2 is aborted: cannot resume/);
  const twice = await saphirIn(create('v0.2', '--lang', 'en'));
  assert.is(twice.code, 1);
  assert.match(twice.stderr, /exists already/);
  const phases = await saphirIn(create('x', '--phases', '50,10'));
  assert.is(phases.code, 2);
  const noName = await saphirIn(['registry', 'campaign', 'create', img, '--db', db, '--lang', 'en']);
  assert.is(noName.code, 2);
  const all = await saphirIn(['registry', 'campaign', 'status', '--db', db, '--json']);
  assert.equal(
    JSON.parse(all.stdout).map((x: { name: string; state: string }) => [x.name, x.state]),
    [['v0.2', 'aborted']],
  );
});

longTest(
  'campaign create --device-deadline HOURS --retries N: kept with the campaign; bad values are usage errors',
  async () => {
    const c = await saphirIn(create('dl', '--device-deadline', '6', '--retries', '2', '--json'));
    assert.is(c.code, 0, c.stderr);
    const j = JSON.parse(c.stdout);
    assert.equal([j.device_deadline_ms, j.retries], [6 * 3_600_000, 2]);
    // the status text says them too, in both languages
    const fr = await saphirIn(['registry', 'campaign', 'status', 'dl', '--db', db]);
    assert.match(fr.stdout, /délai d’un appareil 6 h, 2 nouvel\(s\) essai\(s\) de téléchargement/, fr.stdout);
    const en = await saphirIn(['registry', 'campaign', 'status', 'dl', '--db', db, '--lang', 'en']);
    assert.match(en.stdout, /a device's deadline 6 h, 2 download retries/, en.stdout);
    for (const bad of [
      ['--device-deadline', '0'],
      ['--device-deadline', 'x'],
      ['--retries', '-1'],
      ['--retries', '101'],
    ]) {
      const r = await saphirIn(create('dl2', ...bad, '--lang', 'en'));
      assert.is(r.code, 2, bad.join(' '));
      assert.match(r.stderr, new RegExp(bad[0]));
    }
    assert.is((await saphirIn(['registry', 'campaign', 'abort', 'dl', '--db', db])).code, 0);
  },
);

longTest('campaign create --images DIR keeps the image as DIR/HASH.img; a folder that is none is said', async () => {
  const images = join(dir, 'images');
  mkdirSync(images);
  const c = await saphirIn(create('files', '--images', images, '--json'));
  assert.is(c.code, 0, c.stderr);
  assert.equal(readdirSync(images), [`${JSON.parse(c.stdout).image_hash}.img`]);
  const bad = await saphirIn(create('f2', '--images', join(dir, 'nope')));
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /--images .*nope : pas un dossier/);
  // serve says so before it makes a database (or publishes a notice in it).
  const never = join(dir, 'never');
  const srv = await saphirIn(['registry', 'serve', '--db', never, '--port', '0', '--images', join(dir, 'nope')]);
  assert.is(srv.code, 1, srv.stderr);
  assert.match(srv.stderr, /--images .*nope : pas un dossier/);
  assert.not.ok(existsSync(never), 'no database made');
  assert.is((await saphirIn(['registry', 'campaign', 'abort', 'files', '--db', db])).code, 0);
});

test.run();
