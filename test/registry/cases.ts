// The registry's behaviour, as one suite run against PGlite (always) and PostgreSQL (when a server can
// be started here). Each case gets an empty database.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { publicKeyOf } from '../../src/crypto/ed25519.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import {
  DEV_DEVICE_PUBLIC_KEY_HEX,
  DEV_DEVICE_SEED_HEX,
  DEV_REGISTRY_PUBLIC_KEY_HEX,
  answerText,
  devEnrolText,
  signRequest,
  type Health,
} from '../../src/registry/protocol.ts';
import { utf8Encode } from '../../src/utf8.ts';
import { nodeSha512, nodeSign, nodeVerify } from '../../tools/node-crypto.ts';
import type { Db } from '../../host/registry/db.ts';
import { RegistryStore } from '../../host/registry/store.ts';
import { serveRegistry, type RegistryServer } from '../../host/registry/server.ts';
import { postRegistry, type DeviceCredentials } from '../../host/registry/client.ts';
import { testKeyRing } from '../../src/sph1/keys.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import '../../hw-sim/node-host.ts';
import { LONG } from '../helpers.ts';
import {
  DEV_OPERATOR_PUBLIC_KEY_HEX,
  DEV_OPERATOR_SEED_HEX,
  noticeRefusal,
  parseSignedNotice,
  signNotice,
  signedNoticeText,
  type Notice,
  type SignedNotice,
} from '../../src/notice.ts';
import { enrolDevelopmentKey, newNonce } from '../../host/registry/client.ts';

const NOTICE: Notice = {
  version: 1,
  payout_limit_eur: 300,
  offline_limit_eur: 150,
  id_threshold_eur: 5000,
  emissions: [{ number: 7, name: 'SAPHIR 7', on_sale: '2026-01-05', closes: '2026-06-30' }],
  holidays: [],
};
/** A device's health in a heartbeat (the cases spread their own values over it). */
export const HEALTH: Health = {
  fw: '0.1.0',
  slot: 'A',
  image: 'aa'.repeat(32),
  notice: 0,
  ledger: 0,
  outbox: 0,
  boot: 'power-on',
  up: 60,
  errors: 0,
  update: '-',
};
const noticeText = (version: number) =>
  signedNoticeText(signNotice({ ...NOTICE, version }, (m) => nodeSign(m, fromHex(DEV_OPERATOR_SEED_HEX))));
const signedSync = (deviceId: string) =>
  signRequest(
    {
      kind: 'sync',
      device_id: deviceId,
      nonce: newNonce(),
      sent_at: Date.now(),
      payments: [],
      // A sync without payments is a heartbeat: it carries the device's health.
      health: HEALTH,
    },
    fromHex(DEV_DEVICE_SEED_HEX),
    nodeSign,
    nodeSha512,
  );

export const dev = (deviceId: string): DeviceCredentials => ({ deviceId, seedHex: DEV_DEVICE_SEED_HEX });
export function ownKey(deviceId: string): DeviceCredentials & { publicHex: string } {
  const seedHex = toHex(new Uint8Array(32).map((_, i) => (deviceId.charCodeAt(i % deviceId.length) * 31 + i) & 255));
  return { deviceId, seedHex, publicHex: toHex(publicKeyOf(Uint8Array.from(Buffer.from(seedHex, 'hex')))) };
}
export const win = (number: number, prize = 30) => ticketCode({ emission: 7, block: 3, number, prize });
export const lose = (number: number) => ticketCode({ emission: 7, block: 3, number, prize: 0 });
export const forged = (number: number) => ticketCode({ emission: 7, block: 3, number, prize: 150, key: 'other' });

interface Ctx {
  db: Db;
  store: RegistryStore;
  srv: RegistryServer;
  url: string;
}

/** Registers the cases on a suite; `open` gives a fresh, empty database for each case. */
export function registryCases(name: string, open: () => Promise<Db>, opts: { production?: boolean } = {}) {
  const test = suite<Ctx>(name, {} as Ctx);
  test.before.each(async (ctx) => {
    ctx.db = await open();
    ctx.store = new RegistryStore(ctx.db, { keys: testKeyRing(), production: opts.production });
    ctx.srv = await serveRegistry(ctx.store);
    ctx.url = ctx.srv.url;
  });
  test.after.each(async (ctx) => {
    await ctx.srv.close();
    await ctx.db.close();
  });

  test('the first device to claim a ticket gets it; another gets "already paid by" it, with when', async ({
    url,
    store,
  }) => {
    const a = await postRegistry(url, 'claim', dev('CAISSE-1'), [{ code: win(1), paid_at: Date.now() }]);
    assert.ok(a.ok);
    assert.equal(a.ok && a.body.results[0].result, 'granted');
    const b = await postRegistry(url, 'claim', dev('CAISSE-2'), [{ code: win(1), paid_at: Date.now() }]);
    assert.ok(b.ok);
    const r = b.ok ? b.body.results[0] : null;
    assert.equal(r?.result, 'already_paid');
    if (r?.result === 'already_paid') {
      assert.equal(r.by.device_id, 'CAISSE-1');
      assert.ok(Math.abs(r.by.paid_at - Date.now()) < 60_000);
    }
    // The holder asking again (its answer was lost) is granted again, and nothing is counted twice.
    const again = await postRegistry(url, 'claim', dev('CAISSE-1'), [{ code: win(1), paid_at: Date.now() }]);
    assert.equal(again.ok && again.body.results[0].result, 'granted');
    assert.equal((await store.counts()).payments, 1);
  });

  test("an online claim is dated with the registry's time, not the device's; an offline sync keeps the device's", async ({
    url,
  }) => {
    const behind = Date.now() - 3 * 3600_000; // the device's clock, 3 h behind
    const a = await postRegistry(url, 'claim', dev('CAISSE-1'), [{ code: win(11), paid_at: behind }]);
    assert.equal(a.ok && a.body.results[0].result, 'granted');
    const s = await postRegistry(url, 'sync', dev('CAISSE-1'), [{ code: win(12), paid_at: behind }]);
    assert.ok(s.ok);
    for (const [n, near] of [
      [11, Date.now()],
      [12, behind],
    ]) {
      const b = await postRegistry(url, 'claim', dev('CAISSE-2'), [{ code: win(n), paid_at: Date.now() }]);
      const r = b.ok ? b.body.results[0] : null;
      assert.equal(r?.result, 'already_paid', `ticket ${n}`);
      if (r?.result === 'already_paid')
        assert.ok(Math.abs(r.by.paid_at - near) < 60_000, `ticket ${n}: ${r.by.paid_at}`);
    }
  });

  test('two-phase: a reserved ticket is granted again to its holder; once its sync confirms it, DÉJÀ PAYÉ for everyone, the holder’s ask reported as a regrant', async ({
    url,
    store,
  }) => {
    const claim = (id: string) => postRegistry(url, 'claim', dev(id), [{ code: win(5), paid_at: Date.now() }]);
    const result = (a: Awaited<ReturnType<typeof claim>>) => (a.ok ? a.body.results[0].result : a.body.error);
    assert.equal(result(await claim('CAISSE-1')), 'granted');
    assert.equal(result(await claim('CAISSE-1')), 'granted'); // reserved only: the answer was lost
    assert.equal(result(await claim('CAISSE-2')), 'already_paid');
    // Granted again before any confirmation: reported (a lost answer, or a rolled-back device or a clone).
    const early = (await store.report()).regrants;
    assert.equal(
      early.map((r) => [r.device_id, r.kind]),
      [['CAISSE-1', 'reserved']],
    );
    // The holder's sync confirms (it paid); sent again, granted again (a retried batch).
    for (let i = 0; i < 2; i++) {
      const s = await postRegistry(url, 'sync', dev('CAISSE-1'), [{ code: win(5), paid_at: Date.now() }]);
      assert.equal(result(s), 'granted');
    }
    const before = Date.now();
    const again = await claim('CAISSE-1'); // a rolled-back or cloned CAISSE-1
    assert.equal(result(again), 'already_paid');
    assert.equal(
      again.ok && again.body.results[0].result === 'already_paid' && again.body.results[0].by.device_id,
      'CAISSE-1',
    );
    assert.equal(result(await claim('CAISSE-2')), 'already_paid');
    const rep = await store.report();
    const refused = rep.regrants.filter((r) => r.kind === 'refused');
    assert.equal(refused.length, 1);
    assert.equal(refused[0].device_id, 'CAISSE-1');
    assert.equal(refused[0].number, 5);
    assert.ok(Number(refused[0].asked_at) >= before && Number(refused[0].confirmed_at) <= before);
    assert.equal((await store.counts()).payments, 1);
    assert.equal(rep.conflicts, []);
  });

  test('a reservation never confirmed is released after --reservation-minutes: another device is granted it, the former holder’s late confirmation is a conflict (never a silent second payment), both in the report', async ({
    url,
    db,
    store,
  }) => {
    // A second server on the same database whose clock runs 31 minutes ahead: past the 30-minute default.
    const later = new RegistryStore(db, { keys: testKeyRing(), now: () => Date.now() + 31 * 60_000 });
    const srv = await serveRegistry(later);
    try {
      const result = (a: Awaited<ReturnType<typeof postRegistry>>) => (a.ok ? a.body.results[0].result : a.body.error);
      const claim = (u: string, id: string, n: number) =>
        postRegistry(u, 'claim', dev(id), [{ code: win(n), paid_at: Date.now() }]);
      const paidAt = Date.now();
      assert.is(result(await claim(url, 'CAISSE-1', 60)), 'granted'); // CAISSE-1 then dies unconfirmed
      assert.is(result(await claim(url, 'CAISSE-1', 61)), 'granted');
      assert.is(result(await claim(url, 'CAISSE-1', 62)), 'granted');
      // Within the reservation: still CAISSE-1's.
      assert.is(result(await claim(url, 'CAISSE-2', 60)), 'already_paid');
      // 61 is confirmed in time: never released.
      const confirm = (u: string, n: number) =>
        postRegistry(u, 'confirm', dev('CAISSE-1'), [{ code: win(n), paid_at: paidAt }]);
      assert.is(result(await confirm(url, 61)), 'granted');
      // 31 minutes on: 60 is released to CAISSE-2; 61 stays DÉJÀ PAYÉ; the holder itself is granted 62 again.
      const moved = await claim(srv.url, 'CAISSE-2', 60);
      assert.is(result(moved), 'granted');
      assert.is(result(await claim(srv.url, 'CAISSE-3', 60)), 'already_paid');
      assert.is(result(await claim(srv.url, 'CAISSE-2', 61)), 'already_paid');
      // CAISSE-1 comes back and confirms 60, which it paid: a conflict against CAISSE-2, reported.
      const late = await confirm(srv.url, 60);
      assert.is(result(late), 'conflict');
      assert.is(late.ok && late.body.results[0].result === 'conflict' && late.body.results[0].by.device_id, 'CAISSE-2');
      const rep = await store.report();
      assert.equal(
        rep.released.map((r) => [r.number, r.device_id, r.to_device_id]),
        [[60, 'CAISSE-1', 'CAISSE-2']],
      );
      assert.ok(Number(rep.released[0].released_at) - Number(rep.released[0].reserved_at) >= 30 * 60_000);
      assert.equal(
        rep.conflicts.map((c) => [c.number, c.device_id, c.first_device_id]),
        [[60, 'CAISSE-1', 'CAISSE-2']],
      );
      assert.equal(
        (await store.holders()).map((h) => [h.number, h.device_id]),
        [
          [60, 'CAISSE-2'],
          [61, 'CAISSE-1'],
          [62, 'CAISSE-1'],
        ],
      );
      // A shorter reservation is the server's option (registry serve --reservation-minutes N).
      const quick = new RegistryStore(db, {
        keys: testKeyRing(),
        reservationMs: 60_000,
        now: () => Date.now() + 2 * 60_000,
      });
      const srv2 = await serveRegistry(quick);
      try {
        assert.is(result(await claim(srv2.url, 'CAISSE-3', 62)), 'granted');
      } finally {
        await srv2.close();
      }
    } finally {
      await srv.close();
    }
  });

  test('POST /v1/confirm: a reserved claim confirmed on its own is then DÉJÀ PAYÉ for everyone, its holder included; answered signed; a second payment time is reported paid twice', async ({
    url,
    store,
  }) => {
    const result = (a: Awaited<ReturnType<typeof postRegistry>>) => (a.ok ? a.body.results[0].result : a.body.error);
    const paidAt = Date.now();
    assert.equal(
      result(await postRegistry(url, 'claim', dev('CAISSE-1'), [{ code: win(8), paid_at: paidAt }])),
      'granted',
    );
    const nonce = 'nonce-confirm-1';
    const c = await postRegistry(url, 'confirm', dev('CAISSE-1'), [{ code: win(8), paid_at: paidAt }], { nonce });
    assert.equal(result(c), 'granted');
    assert.ok(
      c.ok &&
        nodeVerify(
          Buffer.from(c.body.signature, 'hex'),
          utf8Encode(answerText({ device_id: 'CAISSE-1', nonce }, c.body.results)),
          Buffer.from(DEV_REGISTRY_PUBLIC_KEY_HEX, 'hex'),
        ),
    );
    for (const id of ['CAISSE-1', 'CAISSE-2'])
      assert.equal(
        result(await postRegistry(url, 'claim', dev(id), [{ code: win(8), paid_at: Date.now() }])),
        'already_paid',
        id,
      );
    // The same confirmation again (retried from the outbox): granted, nothing recorded twice.
    assert.equal(
      result(await postRegistry(url, 'confirm', dev('CAISSE-1'), [{ code: win(8), paid_at: paidAt }])),
      'granted',
    );
    assert.equal(
      (await store.report()).regrants.map((r) => r.kind),
      ['refused'],
    );
    // Another payment of it confirmed by its holder: a clone or a rolled-back device paid it twice.
    assert.equal(
      result(await postRegistry(url, 'confirm', dev('CAISSE-1'), [{ code: win(8), paid_at: paidAt + 5000 }])),
      'granted',
    );
    assert.equal((await store.report()).regrants.map((r) => r.kind).sort(), ['paid-twice', 'refused']);
    assert.equal((await store.counts()).payments, 1);
  });

  test('/v1/confirm refuses a replayed confirm, one signed by another key, and a sync or claim posted to it', async ({
    url,
    store,
  }) => {
    await postRegistry(url, 'claim', dev('CAISSE-1'), [{ code: win(9), paid_at: Date.now() }]);
    const body = (kind: 'confirm' | 'sync', nonce: string, seedHex = DEV_DEVICE_SEED_HEX) =>
      JSON.stringify(
        signRequest(
          { kind, device_id: 'CAISSE-1', nonce, sent_at: Date.now(), payments: [{ code: win(9), paid_at: 1 }] },
          Buffer.from(seedHex, 'hex'),
          nodeSign,
          nodeSha512,
        ),
      );
    const post = async (text: string) => {
      const r = await fetch(`${url}/v1/confirm`, { method: 'POST', body: text });
      return [r.status, ((await r.json()) as { error?: string }).error];
    };
    const once = body('confirm', 'nonce-confirm-2');
    assert.equal(await post(once), [200, undefined]);
    assert.equal(await post(once), [409, 'replay']);
    assert.equal(await post(body('confirm', 'nonce-confirm-3', '11'.repeat(32))), [401, 'bad_signature']);
    // A sync's signature covers `sync`: posted as a confirm it is not the device's.
    assert.equal(await post(body('sync', 'nonce-confirm-4')), [401, 'bad_signature']);
    assert.equal((await store.counts()).payments, 1);
  });

  test('every answer is signed by the registry key over the device id, the nonce and each result with its ticket', async ({
    url,
  }) => {
    const nonce = 'nonce-signed-1';
    const a = await postRegistry(
      url,
      'sync',
      dev('CAISSE-1'),
      [
        { code: win(6), paid_at: Date.now() },
        { code: lose(7), paid_at: Date.now() },
      ],
      { nonce },
    );
    assert.ok(a.ok);
    if (!a.ok) return;
    const verify = (results: typeof a.body.results, n = nonce, id = 'CAISSE-1') =>
      nodeVerify(
        Buffer.from(a.body.signature, 'hex'),
        utf8Encode(answerText({ device_id: id, nonce: n }, results)),
        Buffer.from(DEV_REGISTRY_PUBLIC_KEY_HEX, 'hex'),
      );
    assert.ok(verify(a.body.results));
    assert.not.ok(verify(a.body.results, 'nonce-signed-2'));
    assert.not.ok(verify(a.body.results, nonce, 'CAISSE-2'));
    const r0 = a.body.results[0];
    assert.ok(r0.result === 'granted');
    if (r0.result !== 'granted') return;
    assert.not.ok(verify([{ ...r0, ticket: { ...r0.ticket, number: r0.ticket.number + 1 } }, a.body.results[1]]));
    assert.not.ok(
      verify([{ result: 'conflict', ticket: r0.ticket, by: { device_id: 'X', paid_at: 1 } }, a.body.results[1]]),
    );
  });

  test('losing, forged and malformed codes are never granted, and change nothing', async ({ url, store }) => {
    for (const [code, reason] of [
      [lose(2), 'E_NOT_WINNER'],
      [forged(3), 'E_SIGNATURE'],
      ['SPH1:NOT-A-CODE', 'E_BASE45'],
      ['HELLO', 'E_PREFIX'],
    ]) {
      const r = await postRegistry(url, 'claim', dev('CAISSE-1'), [{ code, paid_at: Date.now() }]);
      assert.ok(r.ok, code);
      assert.equal(r.ok && r.body.results[0], { result: 'invalid', reason }, code);
    }
    assert.equal((await store.counts()).payments, 0);
  });

  test('replayed, unsigned, re-signed and stale requests are refused', async ({ url, store }) => {
    const body = { code: win(4), paid_at: Date.now() };
    const first = await postRegistry(url, 'claim', dev('CAISSE-1'), [body], { nonce: 'nonce-0001' });
    assert.ok(first.ok);
    const replay = await postRegistry(url, 'claim', dev('CAISSE-1'), [body], { nonce: 'nonce-0001' });
    assert.equal(replay.status, 409);
    assert.equal(!replay.ok && replay.body.error, 'replay');
    // A signature by another key, and no signature at all.
    const wrong = await postRegistry(url, 'claim', { deviceId: 'CAISSE-1', seedHex: '11'.repeat(32) }, [
      { code: win(5), paid_at: 1 },
    ]);
    assert.equal(wrong.status, 401);
    assert.equal(!wrong.ok && wrong.body.error, 'bad_signature');
    const unsigned = await fetch(`${url}/v1/claim`, {
      method: 'POST',
      body: JSON.stringify({
        device_id: 'CAISSE-1',
        nonce: 'abcdefgh1',
        sent_at: Date.now(),
        payments: [{ code: win(5), paid_at: 1 }],
      }),
    });
    assert.equal(unsigned.status, 400);
    const stale = await postRegistry(url, 'claim', dev('CAISSE-1'), [{ code: win(5), paid_at: 1 }], {
      sentAt: Date.now() - 3 * 86400_000,
    });
    assert.equal(!stale.ok && stale.body.error, 'stale');
    assert.equal((await store.counts()).payments, 1);
  });

  test('bad requests get a clear error and change nothing', async ({ url, store }) => {
    const post = (path: string, body: string) => fetch(`${url}${path}`, { method: 'POST', body });
    for (const [path, body] of [
      ['/v1/claim', 'not json'],
      ['/v1/claim', '[]'],
      ['/v1/claim', '{"device_id":"A\\nB","nonce":"12345678","sent_at":1,"payments":[],"signature":"00"}'],
      [
        '/v1/sync',
        JSON.stringify({
          device_id: 'X',
          nonce: '12345678',
          sent_at: 1,
          signature: '0'.repeat(128),
          payments: new Array(501).fill({ code: 'x', paid_at: 1 }),
        }),
      ],
    ]) {
      const r = await post(path, body);
      assert.equal(r.status, 400, body.slice(0, 40));
      const j = (await r.json()) as { error: string; detail: string };
      assert.equal(j.error, 'bad_request');
      assert.ok(j.detail.length > 5);
    }
    const big = await post('/v1/sync', 'x'.repeat(1.5 * 1024 * 1024)).catch(() => null);
    assert.ok(big === null || big.status === 413);
    assert.equal((await fetch(`${url}/v1/nothing`)).status, 404);
    assert.equal((await fetch(`${url}/v1/claim`)).status, 405);
    assert.equal((await store.counts()).payments, 0);
  });

  test('notices: a signed notice is published by version; a sync answer carries the latest to a device holding less, and nothing to one holding it', async ({
    url,
    store,
  }) => {
    assert.is(await store.latestNotice(), null);
    await store.publishNotice(noticeText(2));
    // Older, equal, unsigned and malformed notices are refused with the reason; the latest stays.
    for (const [text, re] of [
      [noticeText(2), /version 2 is not above the latest published, 2/],
      [noticeText(1), /version 1 is not above/],
      [signedNoticeText({ notice: { ...NOTICE, version: 5 } }), /not signed/],
      ['{"notice":{}}', /^notice: version/],
      ['not json', /not JSON/],
    ] as const) {
      const e = await store.publishNotice(text).catch((x: Error) => x);
      assert.ok(e instanceof Error && re.test(e.message), `${text.slice(0, 30)}: ${String(e)}`);
    }
    assert.is((await store.latestNotice())?.version, 2);
    await store.publishNotice(noticeText(3));
    const sync = async (have?: number) => {
      const r = await fetch(`${url}/v1/sync`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...signedSync('CAISSE-1'), ...(have === undefined ? {} : { notice_version: have }) }),
      });
      assert.is(r.status, 200);
      return (await r.json()) as { results: unknown[]; notice?: unknown };
    };
    for (const have of [undefined, 0, 2]) {
      const a = await sync(have);
      assert.equal(a.results, []);
      const p = parseSignedNotice(a.notice);
      assert.ok(!('error' in p) && p.notice.version === 3, `holding ${have}`);
      assert.is(noticeRefusal(p as SignedNotice, fromHex(DEV_OPERATOR_PUBLIC_KEY_HEX), have ?? 0, nodeVerify), null);
    }
    assert.is((await sync(3)).notice, undefined);
    assert.is((await sync(7)).notice, undefined);
  });

  test('a development fleet takes the published device key until a device is enrolled; revoked devices are refused', async ({
    url,
    store,
  }) => {
    assert.equal(
      ((await (await fetch(`${url}/health`)).json()) as { fleet: string }).fleet,
      opts.production ? 'production' : 'development',
    );
    const own = ownKey('CAISSE-9');
    await store.addDevice(own.deviceId, own.publicHex);
    assert.equal(((await (await fetch(`${url}/health`)).json()) as { fleet: string }).fleet, 'production');
    const devNow = await postRegistry(url, 'claim', dev('CAISSE-1'), [{ code: win(6), paid_at: 1 }]);
    assert.equal(!devNow.ok && devNow.body.error, 'unknown_device');
    // An enrolled device signing with the development key is refused too.
    const devKey = await postRegistry(url, 'claim', dev('CAISSE-9'), [{ code: win(6), paid_at: 1 }]);
    assert.equal(!devKey.ok && devKey.body.error, 'bad_signature');
    const ok = await postRegistry(url, 'claim', own, [{ code: win(6), paid_at: 1 }]);
    assert.equal(ok.ok && ok.body.results[0].result, 'granted');
    assert.ok(await store.revokeDevice('CAISSE-9'));
    const revoked = await postRegistry(url, 'claim', own, [{ code: win(7), paid_at: 1 }]);
    assert.equal(revoked.status, 403);
    assert.equal(!revoked.ok && revoked.body.error, 'revoked');
    const list = await store.listDevices();
    assert.equal(list.length, 1);
    assert.ok(list[0].revoked_at !== null && list[0].last_seen_at !== null);
    assert.equal((await store.counts()).payments, 1);
  });

  test('offline payments of one ticket by two devices: one conflict, nothing lost, nothing counted twice; a resent batch changes nothing', async ({
    url,
    store,
  }) => {
    const t0 = Date.parse('2027-01-10T10:00:00Z');
    const a = [
      { code: win(10, 150), paid_at: t0 },
      { code: win(11, 30), paid_at: t0 + 1000 },
    ];
    const b = [
      { code: win(10, 150), paid_at: t0 + 5000 },
      { code: win(12, 500), paid_at: t0 + 6000 },
    ];
    const ra = await postRegistry(url, 'sync', dev('CAISSE-1'), a);
    assert.equal(ra.ok && ra.body.results.map((r) => r.result), ['granted', 'granted']);
    const rb = await postRegistry(url, 'sync', dev('CAISSE-2'), b);
    assert.equal(rb.ok && rb.body.results.map((r) => r.result), ['conflict', 'granted']);
    for (let i = 0; i < 2; i++) {
      await postRegistry(url, 'sync', dev('CAISSE-1'), a);
      await postRegistry(url, 'sync', dev('CAISSE-2'), b);
    }
    const rep = await store.report();
    assert.equal(rep.conflicts.length, 1);
    assert.equal(rep.conflicts[0].device_id, 'CAISSE-2');
    assert.equal(rep.conflicts[0].first_device_id, 'CAISSE-1');
    assert.equal(rep.conflicts[0].number, 10);
    assert.equal(rep.totals, { payments: 3, total_eur: 680 });
    assert.equal(rep.per_device, [
      { device_id: 'CAISSE-1', payments: 2, total_eur: 180, offline: 2 },
      { device_id: 'CAISSE-2', payments: 1, total_eur: 500, offline: 1 },
    ]);
    assert.equal(rep.per_day, [{ day: '2027-01-10', payments: 3, total_eur: 680 }]);
  });

  test("a clone paying offline, under its original's id, a ticket the original paid offline too: each payment is a conflict; a retried batch is not", async ({
    url,
    store,
  }) => {
    const t0 = Date.parse('2027-01-10T10:00:00Z');
    const held = await postRegistry(url, 'sync', dev('CAISSE-3'), [{ code: win(20), paid_at: t0 }]);
    assert.equal(held.ok && held.body.results.map((r) => r.result), ['granted']);
    // The original and its clone (same id, same key) each paid it offline, at their own times.
    const original = [{ code: win(20), paid_at: t0 + 5000 }];
    const clone = [{ code: win(20), paid_at: t0 + 6500 }];
    for (const batch of [original, clone, original, clone]) {
      const r = await postRegistry(url, 'sync', dev('CAISSE-1'), batch);
      assert.equal(r.ok && r.body.results.map((x) => x.result), ['conflict']);
    }
    const rep = await store.report();
    assert.equal(
      rep.conflicts.map((c) => [c.device_id, c.paid_at, c.first_device_id]),
      [
        ['CAISSE-1', t0 + 5000, 'CAISSE-3'],
        ['CAISSE-1', t0 + 6500, 'CAISSE-3'],
      ],
    );
    assert.equal((await store.counts()).conflicts, 2);
  });

  test("a holder confirming a second payment twice (a clone's retried sync): one paid-twice regrant", async ({
    url,
    store,
  }) => {
    const t0 = Date.parse('2027-01-10T10:00:00Z');
    const first = [{ code: win(21), paid_at: t0 }];
    const second = [{ code: win(21), paid_at: t0 + 1500 }];
    for (const batch of [first, second, first, second, second]) {
      const r = await postRegistry(url, 'sync', dev('CAISSE-1'), batch);
      assert.equal(r.ok && r.body.results.map((x) => x.result), ['granted']);
    }
    assert.equal(
      (await store.report()).regrants.map((r) => [r.device_id, r.kind]),
      [['CAISSE-1', 'paid-twice']],
    );
  });

  test("POST /v1/enrol: on a development fleet a device enrols its own key (a simulator run's); then only that key speaks for its id; re-enrolled, the latest wins; refused once a device is enrolled", async ({
    url,
    store,
  }) => {
    if (opts.production) return;
    const result = (a: Awaited<ReturnType<typeof postRegistry>>) => (a.ok ? a.body.results[0].result : a.body.error);
    const signer = (k: { seedHex: string; publicHex: string }) => ({
      publicKey: fromHex(k.publicHex),
      sign: (m: Uint8Array) => nodeSign(m, fromHex(k.seedHex)),
    });
    const a = ownKey('SIM-A1');
    const b = ownKey('SIM-B2');
    const e = await enrolDevelopmentKey(url, 'SIM-A1', signer(a));
    assert.equal([e.ok, e.body.replaced], [true, false]);
    assert.is(result(await postRegistry(url, 'claim', a, [{ code: win(30), paid_at: Date.now() }])), 'granted');
    assert.is(
      result(await postRegistry(url, 'claim', dev('SIM-A1'), [{ code: win(31), paid_at: Date.now() }])),
      'bad_signature',
    );
    // Other ids keep the published key: still a development fleet.
    assert.is(
      result(await postRegistry(url, 'claim', dev('SIM-C3'), [{ code: win(31), paid_at: Date.now() }])),
      'granted',
    );
    assert.ok(await store.isDevelopmentFleet());
    // Signed by another key than the one it enrols, or the published key itself: refused, nothing changed.
    const forged = await enrolDevelopmentKey(url, 'SIM-A1', { ...signer(b), publicKey: fromHex(a.publicHex) });
    assert.is(forged.body.error, 'bad_signature');
    const devKey = await enrolDevelopmentKey(url, 'SIM-D4', {
      publicKey: fromHex(DEV_DEVICE_PUBLIC_KEY_HEX),
      sign: (m) => nodeSign(m, fromHex(DEV_DEVICE_SEED_HEX)),
    });
    assert.is(devKey.status, 400);
    // The same id started again with a new key: the latest enrolment wins, said.
    const again = await enrolDevelopmentKey(url, 'SIM-A1', { ...signer(b), publicKey: fromHex(b.publicHex) });
    assert.equal([again.ok, again.body.replaced], [true, true]);
    assert.is(
      result(await postRegistry(url, 'claim', { ...b, deviceId: 'SIM-A1' }, [{ code: win(32), paid_at: Date.now() }])),
      'granted',
    );
    assert.is(result(await postRegistry(url, 'claim', a, [{ code: win(33), paid_at: Date.now() }])), 'bad_signature');
    // A device enrolled by the operator ends the development fleet: no more self-enrolment, nor dev_keys.
    const op = ownKey('CAISSE-9');
    await store.addDevice('CAISSE-9', op.publicHex);
    const late = await enrolDevelopmentKey(url, 'SIM-E5', signer(ownKey('SIM-E5')));
    assert.equal([late.status, late.body.error], [403, 'unknown_device']);
    await new Promise((r) => setTimeout(r, 0));
    assert.is(
      result(await postRegistry(url, 'claim', { ...b, deviceId: 'SIM-A1' }, [{ code: win(34), paid_at: Date.now() }])),
      'unknown_device',
    );
  });

  test('POST /v1/enrol is single-use: a captured enrolment replayed within the freshness window is refused (409 replay) and changes no key', async ({
    url,
  }) => {
    if (opts.production) return;
    const a = ownKey('SIM-R1');
    const b = ownKey('SIM-R2');
    const enrolBody = (k: { seedHex: string; publicHex: string }) => {
      const sentAt = Date.now();
      const text = devEnrolText('SIM-R1', k.publicHex, sentAt);
      return JSON.stringify({
        device_id: 'SIM-R1',
        public_key: k.publicHex,
        sent_at: sentAt,
        signature: toHex(nodeSign(utf8Encode(text), fromHex(k.seedHex))),
      });
    };
    const post = async (body: string) => {
      const r = await fetch(`${url}/v1/enrol`, { method: 'POST', body });
      return { status: r.status, body: (await r.json()) as { enrolled?: boolean; error?: string } };
    };
    const captured = enrolBody(a);
    assert.is((await post(captured)).status, 200);
    // The simulator started again under the same id with a new key; then the old run's request is replayed.
    assert.is((await post(enrolBody(b))).status, 200);
    const replayed = await post(captured);
    assert.equal([replayed.status, replayed.body.error], [409, 'replay']);
    const result = (x: Awaited<ReturnType<typeof postRegistry>>) => (x.ok ? x.body.results[0].result : x.body.error);
    assert.is(
      result(await postRegistry(url, 'claim', { ...b, deviceId: 'SIM-R1' }, [{ code: win(40), paid_at: Date.now() }])),
      'granted',
    );
    assert.is(
      result(await postRegistry(url, 'claim', { ...a, deviceId: 'SIM-R1' }, [{ code: win(41), paid_at: Date.now() }])),
      'bad_signature',
    );
  });

  // npm test: 100 claims of 10 tickets (50 devices in flight, each ticket claimed 10 times: 0.45 s of CPU
  // on PGlite); npm run test:long (pglite.long.ts, postgres.long.ts): 1 000 of 100.
  const claims = LONG ? 1000 : 100;
  const tickets = claims / 10;
  test(`${claims} concurrent claims of ${tickets} tickets from 50 devices: exactly one grant per ticket`, async ({
    url,
    store,
  }) => {
    const codes = Array.from({ length: tickets }, (_, i) => win(1000 + i));
    const jobs = Array.from({ length: claims }, (_, i) => ({
      who: dev(`CAISSE-${i % 50}`),
      code: codes[(i * 37) % tickets],
    }));
    // 50 devices at once, each with its claims in flight one after the other (as a device sends them).
    const answers: Awaited<ReturnType<typeof postRegistry>>[] = [];
    await Promise.all(
      Array.from({ length: 50 }, async (_, d) => {
        for (let i = d; i < jobs.length; i += 50) {
          const j = jobs[i];
          answers[i] = await postRegistry(url, 'claim', j.who, [{ code: j.code, paid_at: Date.now() }], {
            timeoutMs: 60_000,
          });
        }
      }),
    );
    const grants = new Map<string, Set<string>>();
    for (let i = 0; i < jobs.length; i++) {
      const a = answers[i];
      assert.ok(a.ok, JSON.stringify(a.body));
      const r = a.ok ? a.body.results[0] : null;
      if (r?.result === 'granted') {
        const s = grants.get(jobs[i].code) ?? new Set();
        s.add(jobs[i].who.deviceId);
        grants.set(jobs[i].code, s);
      } else assert.equal(r?.result, 'already_paid');
    }
    assert.equal(grants.size, tickets);
    for (const s of grants.values()) assert.equal(s.size, 1);
    assert.equal((await store.counts()).payments, tickets);
  });

  return test;
}
