// Health and update campaigns on the registry (docs/registry.md, "Health", "Update campaigns"), as one suite
// run against PGlite and PostgreSQL: devices are signed requests here (the simulated fleet is
// test/fleet/campaign.test.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Db } from '../../host/registry/db.ts';
import { RegistryStore } from '../../host/registry/store.ts';
import { serveRegistry, type RegistryServer } from '../../host/registry/server.ts';
import { postRegistry, type ClientAnswer } from '../../host/registry/client.ts';
import {
  campaignStatus,
  createCampaign,
  expireSilent,
  parsePhases,
  phaseOf,
  setCampaignState,
} from '../../host/registry/campaigns.ts';
import { testKeyRing } from '../../src/sph1/keys.ts';
import { BOARD_ID, DEV_FIRMWARE_SEED_HEX, packImage } from '../../src/image/format.ts';
import { DEV_REGISTRY_PUBLIC_KEY_HEX, answerText, type Health } from '../../src/registry/protocol.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { utf8Encode } from '../../src/utf8.ts';
import { nodeSign, nodeVerify } from '../../tools/node-crypto.ts';
import { HEALTH, dev } from './cases.ts';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DAY = 86_400_000;

async function rejects(p: Promise<unknown>, re: RegExp): Promise<void> {
  try {
    await p;
  } catch (e) {
    assert.match((e as Error).message, re);
    return;
  }
  assert.unreachable(`resolved; expected a refusal matching ${re}`);
}
const IMAGE = packImage({
  bundle: utf8Encode('/* v0.2.0 */ ' + 'x'.repeat(10_000)),
  version: '0.2.0',
  boardId: BOARD_ID,
  securityCounter: 2,
  seed: fromHex(DEV_FIRMWARE_SEED_HEX),
  sign: nodeSign,
});
const OLD = 'aa'.repeat(32);

const health = (o: Partial<Health> = {}): Health => ({
  ...HEALTH,
  image: OLD,
  ledger: 12,
  outbox: 3,
  up: 3600,
  errors: 1,
  ...o,
});

interface Ctx {
  db: Db;
  store: RegistryStore;
  srv: RegistryServer;
  url: string;
  clock: { now: number };
}

export function campaignCases(name: string, open: () => Promise<Db>) {
  const test = suite<Ctx>(name, {} as Ctx);
  test.before.each(async (ctx) => {
    ctx.db = await open();
    ctx.clock = { now: Date.now() };
    ctx.store = new RegistryStore(ctx.db, { keys: testKeyRing(), now: () => ctx.clock.now });
    ctx.srv = await serveRegistry(ctx.store);
    ctx.url = ctx.srv.url;
  });
  test.after.each(async (ctx) => {
    await ctx.srv.close();
    await ctx.db.close();
  });

  /** A device's heartbeat: a sync with its health and no payment. */
  const beat = (ctx: Ctx, id: string, h: Partial<Health> = {}) =>
    postRegistry(ctx.url, 'sync', dev(id), [], { sentAt: ctx.clock.now, health: health(h) });
  const offerOf = (a: ClientAnswer) => (a.ok ? a.body.update : undefined);

  test('a sync carries the health: devices list shows it, /metrics exports fleet gauges', async (ctx) => {
    const a = await beat(ctx, 'CAISSE-1', { outbox: 3, errors: 2, boot: 'watchdog' });
    assert.ok(a.ok, JSON.stringify(a.body));
    assert.equal(a.ok && a.body.results, []);
    await beat(ctx, 'CAISSE-2', { fw: '0.2.0', slot: 'B', outbox: 1, ledger: 30, errors: 0 });
    const list = await ctx.store.listDevices();
    assert.equal(
      list.map((d) => [d.device_id, d.health?.fw, d.health?.slot, d.health?.outbox, d.health?.boot, d.stale]),
      [
        ['CAISSE-1', '0.1.0', 'A', 3, 'watchdog', false],
        ['CAISSE-2', '0.2.0', 'B', 1, 'power-on', false],
      ],
    );
    assert.is(list[0].health?.up, 3600);
    assert.is(list[0].health?.ledger, 12);
    assert.is(list[0].health?.errors, 2);
    assert.is(list[0].health?.notice, 0);
    const m = await (await fetch(`${ctx.url}/metrics`)).text();
    for (const line of [
      'saphir_fleet_devices_reporting 2',
      'saphir_fleet_devices_stale{days="7"} 0',
      'saphir_fleet_firmware_devices{version="0.1.0"} 1',
      'saphir_fleet_firmware_devices{version="0.2.0"} 1',
      'saphir_fleet_boot_reason_devices{reason="watchdog"} 1',
      'saphir_fleet_outbox_entries 4',
      'saphir_fleet_outbox_entries_max 3',
      'saphir_fleet_ledger_payments 42',
      'saphir_fleet_device_errors 2',
    ])
      assert.ok(m.split('\n').includes(line), `${line} in\n${m}`);
    // The next sync replaces it.
    await beat(ctx, 'CAISSE-1', { outbox: 0 });
    assert.is((await ctx.store.listDevices())[0].health?.outbox, 0);
  });

  test('a device silent for N days is listed as stale', async (ctx) => {
    await beat(ctx, 'CAISSE-1');
    ctx.clock.now += 3 * DAY;
    await beat(ctx, 'CAISSE-2');
    ctx.clock.now += 5 * DAY; // CAISSE-1 silent 8 days, CAISSE-2 5
    const stale = (l: Awaited<ReturnType<RegistryStore['listDevices']>>) =>
      l.filter((d) => d.stale).map((d) => d.device_id);
    assert.equal(stale(await ctx.store.listDevices({ staleDays: 7 })), ['CAISSE-1']);
    assert.equal(stale(await ctx.store.listDevices({ staleDays: 4 })), ['CAISSE-1', 'CAISSE-2']);
    assert.equal(stale(await ctx.store.listDevices({ staleDays: 9 })), []);
    const m = await (await fetch(`${ctx.url}/metrics`)).text();
    assert.ok(m.includes('saphir_fleet_devices_stale{days="7"} 1\n'), m);
  });

  test('health refusals: malformed fields, a heartbeat without health, health on a claim', async (ctx) => {
    for (const h of [{ fw: 'a b' }, { outbox: -1 }, { up: 1.5 }, { slot: '' }, { update: 'x'.repeat(201) }]) {
      const r = await postRegistry(ctx.url, 'sync', dev('CAISSE-1'), [], {
        sentAt: ctx.clock.now,
        health: health(h as Partial<Health>),
      });
      assert.is(r.status, 400, JSON.stringify(h));
    }
    const none = await postRegistry(ctx.url, 'sync', dev('CAISSE-1'), [], { sentAt: ctx.clock.now });
    assert.is(none.status, 400);
    assert.equal(await ctx.store.listDevices(), []);
  });

  test('phases: cumulative percentages, at least one more device a phase', () => {
    assert.equal(phaseOf(10, [1, 10, 100]), [1, 2, 3, 3, 3, 3, 3, 3, 3, 3]);
    assert.equal(phaseOf(200, [1, 10, 100]).filter((p) => p === 2).length, 18);
    assert.equal(phaseOf(1, [1, 10, 100]), [1]);
    for (const bad of ['10,1,100', '1,10', '0,100', 'x', '1,1,100']) assert.throws(() => parsePhases(bad), /phases/);
  });

  test('a campaign moves phase by phase on its devices reports; a failure at --max-failures stops it', async (ctx) => {
    const ids = Array.from({ length: 10 }, (_, i) => `CAISSE-${String(i + 1).padStart(2, '0')}`);
    for (const id of ids) await beat(ctx, id);
    const c = await ctx.db.tx((q) =>
      createCampaign(q, { name: 'v0.2', image: IMAGE, phases: [1, 10, 100], maxFailures: 1, now: ctx.clock.now }),
    );
    const hash = c.image_hash;
    assert.equal(
      c.per_phase.map((p) => [p.phase, p.devices]),
      [
        [1, 1],
        [2, 1],
        [3, 8],
      ],
    );
    // Phase 1: CAISSE-01 gets the order, signed with the answer; CAISSE-02 (phase 2) does not yet.
    const nonce = `order-${ctx.clock.now}`;
    const a = await postRegistry(ctx.url, 'sync', dev('CAISSE-01'), [], {
      sentAt: ctx.clock.now,
      health: health(),
      nonce,
    });
    const offer = offerOf(a);
    assert.ok(offer && a.ok);
    assert.equal([offer.hash, offer.size, offer.campaign], [hash, IMAGE.length, 'v0.2']);
    // The order is under the registry's signature with the answer (a device checks it before acting).
    const text = utf8Encode(answerText({ device_id: 'CAISSE-01', nonce }, [], offer));
    assert.ok(nodeVerify(fromHex(a.body.signature), text, fromHex(DEV_REGISTRY_PUBLIC_KEY_HEX)));
    const without = utf8Encode(answerText({ device_id: 'CAISSE-01', nonce }, []));
    assert.not.ok(nodeVerify(fromHex(a.body.signature), without, fromHex(DEV_REGISTRY_PUBLIC_KEY_HEX)));
    assert.is(offerOf(await beat(ctx, 'CAISSE-02')), undefined);
    // The download finished, the device restarts into it: no new order meanwhile.
    assert.is(offerOf(await beat(ctx, 'CAISSE-01', { update: `${hash}:installed` })), undefined);
    assert.is((await campaignStatus(ctx.db, 'v0.2'))!.devices[0].state, 'installed');
    // It runs the image: confirmed, and phase 2 starts.
    await beat(ctx, 'CAISSE-01', { image: hash, fw: '0.2.0', slot: 'B', boot: 'update' });
    let s = (await campaignStatus(ctx.db, 'v0.2'))!;
    assert.equal([s.state, s.phase, s.devices[0].state], ['running', 2, 'confirmed']);
    assert.is(offerOf(await beat(ctx, 'CAISSE-03')), undefined, 'phase 3 not started');
    assert.ok(offerOf(await beat(ctx, 'CAISSE-02')));
    // Its download fails (the slot does not hash to the manifest): the failure reaches --max-failures 1.
    await beat(ctx, 'CAISSE-02', { update: `${hash}:failed:hash` });
    s = (await campaignStatus(ctx.db, 'v0.2'))!;
    assert.equal([s.state, s.phase, s.failures], ['stopped', 2, 1]);
    assert.equal(s.devices.find((d) => d.device_id === 'CAISSE-02')!.detail, 'hash');
    // Phase 3 never starts: no order to any of its devices, however often they ask.
    for (const id of ids.slice(2)) assert.is(offerOf(await beat(ctx, id)), undefined, id);
    s = (await campaignStatus(ctx.db, 'v0.2'))!;
    assert.equal(s.per_phase[2].states, { pending: 8 });
    const m = await (await fetch(`${ctx.url}/metrics`)).text();
    assert.ok(m.includes('saphir_fleet_firmware_devices{version="0.2.0"} 1\n'), m);
  });

  test('a device that installed the image and comes back on another one was reverted: a failure', async (ctx) => {
    for (const id of ['A-1', 'A-2']) await beat(ctx, id);
    const c = await ctx.db.tx((q) =>
      createCampaign(q, { name: 'r', image: IMAGE, phases: [50, 100], maxFailures: 2, now: ctx.clock.now }),
    );
    assert.ok(offerOf(await beat(ctx, 'A-1')));
    await beat(ctx, 'A-1', { update: `${c.image_hash}:installed` });
    await beat(ctx, 'A-1', { boot: 'revert' }); // the trial was not confirmed: back on the old image
    let s = (await campaignStatus(ctx.db, 'r'))!;
    assert.equal([s.devices[0].state, s.state, s.phase], ['failed', 'running', 2]);
    assert.match(String(s.devices[0].detail), /reverted \(boot: revert/);
    // One failure of two allowed: phase 2 started, and its device finishing ends the campaign.
    assert.ok(offerOf(await beat(ctx, 'A-2')));
    await beat(ctx, 'A-2', { image: c.image_hash });
    s = (await campaignStatus(ctx.db, 'r'))!;
    assert.is(s.state, 'done');
  });

  test('pause, resume, abort: orders and chunks follow; chunks are the image, 4 KiB each', async (ctx) => {
    await beat(ctx, 'CAISSE-1');
    const c = await ctx.db.tx((q) =>
      createCampaign(q, { name: 'p', image: IMAGE, phases: [100], maxFailures: 1, now: ctx.clock.now }),
    );
    const chunk = (offset: number, hash = c.image_hash) =>
      fetch(`${ctx.url}/v1/chunk`, { method: 'POST', body: JSON.stringify({ hash, offset }) });
    const r0 = await chunk(4096);
    assert.is(r0.status, 200);
    assert.is(await r0.text(), toHex(IMAGE.subarray(4096, 8192)));
    const last = Math.floor((IMAGE.length - 1) / 4096) * 4096;
    assert.is(await (await chunk(last)).text(), toHex(IMAGE.subarray(last)));
    assert.is((await chunk(last + 4096)).status, 404);
    assert.is((await chunk(100)).status, 400);
    assert.is((await chunk(0, 'zz')).status, 400);
    assert.is((await chunk(0, 'ab'.repeat(32))).status, 404);

    assert.is(await setCampaignState(ctx.db, 'p', 'pause', ctx.clock.now), 'paused');
    assert.is((await chunk(0)).status, 409);
    assert.is(offerOf(await beat(ctx, 'CAISSE-1')), undefined);
    await rejects(setCampaignState(ctx.db, 'p', 'pause', ctx.clock.now), /paused: cannot pause/);
    assert.is(await setCampaignState(ctx.db, 'p', 'resume', ctx.clock.now), 'running');
    assert.is((await chunk(0)).status, 200);
    assert.ok(offerOf(await beat(ctx, 'CAISSE-1')));
    assert.is(await setCampaignState(ctx.db, 'p', 'abort', ctx.clock.now), 'aborted');
    assert.is((await chunk(0)).status, 410);
    assert.is(offerOf(await beat(ctx, 'CAISSE-1')), undefined);
    await rejects(setCampaignState(ctx.db, 'p', 'resume', ctx.clock.now), /aborted: cannot resume/);
    await rejects(setCampaignState(ctx.db, 'nope', 'pause', ctx.clock.now), /no campaign nope/);
  });

  test('a failed download is ordered again up to --retries times, then the device fails', async (ctx) => {
    for (const id of ['R-1', 'R-2']) await beat(ctx, id);
    const c = await ctx.db.tx((q) =>
      createCampaign(q, { name: 'retry', image: IMAGE, phases: [100], maxFailures: 1, retries: 2, now: ctx.clock.now }),
    );
    const h = c.image_hash;
    const state = async () => (await campaignStatus(ctx.db, 'retry'))!.devices.find((d) => d.device_id === 'R-1')!;
    for (const n of [1, 2]) {
      assert.ok(offerOf(await beat(ctx, 'R-1')), `order ${n}`);
      await beat(ctx, 'R-1', { update: `${h}:failed:hash` });
      const d = await state();
      assert.equal([d.state, d.detail, d.attempts], ['pending', `retry ${n} of 2: hash`, n]);
      assert.is((await campaignStatus(ctx.db, 'retry'))!.state, 'running');
    }
    // The third failure is the device's: --max-failures 1 stops the campaign.
    assert.ok(offerOf(await beat(ctx, 'R-1')));
    await beat(ctx, 'R-1', { update: `${h}:failed:hash` });
    assert.equal([(await state()).state, (await state()).detail], ['failed', 'hash']);
    assert.is((await campaignStatus(ctx.db, 'retry'))!.state, 'stopped');
    // A retried device that then confirms is a success.
    await ctx.db.tx((q) =>
      createCampaign(q, {
        name: 'retry2',
        image: IMAGE,
        devices: ['R-2'],
        phases: [100],
        maxFailures: 1,
        retries: 1,
        now: ctx.clock.now,
      }),
    );
    assert.ok(offerOf(await beat(ctx, 'R-2')));
    await beat(ctx, 'R-2', { update: `${h}:failed:mismatch` });
    assert.ok(offerOf(await beat(ctx, 'R-2')), 'ordered again');
    await beat(ctx, 'R-2', { image: h });
    const s = (await campaignStatus(ctx.db, 'retry2'))!;
    assert.equal([s.state, s.devices[0].state, s.devices[0].attempts], ['done', 'confirmed', 1]);
  });

  test('a device silent past --device-deadline fails; the deadline runs from its phase, and from a resume', async (ctx) => {
    const HOUR = 3_600_000;
    for (const id of ['D-1', 'D-2', 'D-3']) await beat(ctx, id);
    const c = await ctx.db.tx((q) =>
      createCampaign(q, {
        name: 'dl',
        image: IMAGE,
        phases: [33, 100],
        maxFailures: 2,
        deviceDeadlineMs: 2 * HOUR,
        now: ctx.clock.now,
      }),
    );
    // What `campaign status` does: the silent devices expire, then the campaign is read.
    const status = async () => {
      await ctx.db.tx((q) => expireSilent(q, ctx.clock.now));
      return campaignStatus(ctx.db, 'dl');
    };
    // D-1 (phase 1) never reports: at the deadline it fails, and phase 2 starts without it.
    ctx.clock.now += 2 * HOUR - 1000;
    assert.equal(
      (await status())!.devices.map((d) => d.state),
      ['pending', 'pending', 'pending'],
    );
    ctx.clock.now += 1000;
    let s = (await status())!;
    assert.equal([s.devices[0].state, s.devices[0].detail, s.phase, s.failures], ['failed', 'deadline', 2, 1]);
    // Phase 2's devices have 2 hours from its start, not from the campaign's: D-2 takes the order.
    ctx.clock.now += HOUR;
    assert.ok(offerOf(await beat(ctx, 'D-2')));
    // A pause stops the clock: resumed, the devices have the whole deadline again.
    await setCampaignState(ctx.db, 'dl', 'pause', ctx.clock.now);
    ctx.clock.now += 5 * HOUR;
    assert.is((await status())!.failures, 1, 'no deadline while paused');
    await setCampaignState(ctx.db, 'dl', 'resume', ctx.clock.now);
    ctx.clock.now += HOUR;
    await beat(ctx, 'D-2', { image: c.image_hash }); // confirmed in time
    ctx.clock.now += HOUR;
    // D-3 stayed silent: the sync of another device is enough to fail it (here D-2's heartbeat).
    await beat(ctx, 'D-2', { image: c.image_hash });
    s = (await campaignStatus(ctx.db, 'dl'))!;
    assert.equal(
      s.devices.map((d) => [d.device_id, d.state, d.detail]),
      [
        ['D-1', 'failed', 'deadline'],
        ['D-2', 'confirmed', null],
        ['D-3', 'failed', 'deadline'],
      ],
    );
    assert.is(s.state, 'stopped');
    // Without --device-deadline a silent device holds its phase for good.
    await ctx.db.tx((q) =>
      createCampaign(q, { name: 'nodl', image: IMAGE, phases: [100], maxFailures: 1, now: ctx.clock.now }),
    );
    ctx.clock.now += 1000 * HOUR;
    await ctx.db.tx((q) => expireSilent(q, ctx.clock.now));
    assert.is((await campaignStatus(ctx.db, 'nodl'))!.state, 'running');
  });

  test('an image kept in a folder (--images DIR): no chunk rows, chunks read from HASH.img, 503 without the folder', async (ctx) => {
    const dir = mkdtempSync(join(tmpdir(), 'saphir-images-'));
    const served = await serveRegistry(ctx.store, { imagesDir: dir });
    try {
      await beat(ctx, 'CAISSE-1');
      const c = await ctx.db.tx((q) =>
        createCampaign(q, {
          name: 'f',
          image: IMAGE,
          phases: [100],
          maxFailures: 1,
          imagesDir: dir,
          now: ctx.clock.now,
        }),
      );
      const hash = c.image_hash;
      assert.equal(readdirSync(dir), [`${hash}.img`]);
      assert.equal(new Uint8Array(readFileSync(join(dir, `${hash}.img`))), IMAGE);
      const rows = await ctx.db.query<{ n: number }>(
        `SELECT COUNT(*)::INTEGER AS n FROM image_chunks WHERE hash = $1`,
        [hash],
      );
      assert.is(Number(rows.rows[0].n), 0);
      // The order is the same (manifest and size from the database).
      const offer = offerOf(await beat(ctx, 'CAISSE-1'));
      assert.equal([offer?.hash, offer?.size], [hash, IMAGE.length]);
      const chunk = (url: string, offset: number) =>
        fetch(`${url}/v1/chunk`, { method: 'POST', body: JSON.stringify({ hash, offset }) });
      const whole = new Uint8Array(IMAGE.length);
      for (let at = 0; at < IMAGE.length; at += 4096) {
        const r = await chunk(served.url, at);
        assert.is(r.status, 200, `offset ${at}`);
        whole.set(fromHex(await r.text()), at);
      }
      assert.equal(whole, IMAGE);
      assert.is((await chunk(served.url, Math.ceil(IMAGE.length / 4096) * 4096)).status, 404);
      // A server without the folder, or a file that is not the image's size: ask again later (503).
      assert.is((await chunk(ctx.url, 0)).status, 503);
      writeFileSync(join(dir, `${hash}.img`), IMAGE.subarray(0, 100));
      assert.is((await chunk(served.url, 0)).status, 503);
      // Paused and aborted campaigns answer as for chunks in the database.
      await setCampaignState(ctx.db, 'f', 'pause', ctx.clock.now);
      assert.is((await chunk(served.url, 0)).status, 409);
      await setCampaignState(ctx.db, 'f', 'abort', ctx.clock.now);
      assert.is((await chunk(served.url, 0)).status, 410);
    } finally {
      await served.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('refusals: a name taken, a damaged image, no device to update', async (ctx) => {
    const make = (name: string, image = IMAGE, group?: string) =>
      ctx.db.tx((q) => createCampaign(q, { name, image, group, phases: [100], maxFailures: 1, now: ctx.clock.now }));
    await rejects(make('none'), /no device/);
    await beat(ctx, 'CAISSE-1');
    await make('a');
    await rejects(make('a'), /exists already/);
    const bad = IMAGE.slice();
    bad[100] ^= 1;
    await rejects(make('b', bad), /damaged/);
    await rejects(make('c', IMAGE.subarray(0, 20)), /not a firmware image/);
    await rejects(make('d', IMAGE, 'north'), /no enrolled device in group north/);
  });

  return test;
}
