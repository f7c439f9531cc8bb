// Issue #30 items 3 and 4, as an attacker tries them: the published development device key against a
// production registry (enrolment and authentication), and requests that must be refused before any
// ticket is looked at (their cost is the flood's), a per-device rate limit (429, Retry-After).
import { connect } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { noStack, saphirIn } from '../cli/run-cli.ts';
import { openPglite, type Db } from '../../host/registry/db.ts';
import { RegistryStore, RequestError, parseRequest, requestHead } from '../../host/registry/store.ts';
import { DRAIN_BYTES, SMALL_BODY_BYTES, serveRegistry } from '../../host/registry/server.ts';
import { newNonce, postRegistry, postSigned } from '../../host/registry/client.ts';
import {
  DEV_DEVICE_PUBLIC_KEY_HEX,
  authText,
  signRequest,
  type RegistryRequest,
  type RequestKind,
  type SignedRequest,
} from '../../src/registry/protocol.ts';
import { testKeyRing, type KeyRing } from '../../src/sph1/keys.ts';
import { fromHex } from '../../src/hex.ts';
import { nodeSha512, nodeSign } from '../../tools/node-crypto.ts';
import { dev, ownKey, win } from './cases.ts';
import { serve } from './serve-cli.ts';
import { sharedDb } from './shared-db.ts';
import '../../hw-sim/node-host.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-refusals-'));
// One in-memory database for the stores of this file, emptied before each.
const shared = sharedDb(() => openPglite());
test.after(async () => {
  await shared.closeAll();
  rmSync(dir, { recursive: true, force: true });
});

test('devices add refuses the published development device key (exit 2, fr and en), enrols nothing', async () => {
  const db = join(dir, 'add');
  // (devices add runs as a process in cli.test.ts: here, in this one.)
  const fr = await saphirIn(['registry', 'devices', 'add', 'CAISSE-1', DEV_DEVICE_PUBLIC_KEY_HEX, '--db', db]);
  assert.is(fr.code, 2, fr.stderr);
  assert.match(fr.stderr, /clé d’appareil de DÉVELOPPEMENT publiée/);
  assert.ok(noStack(fr.stderr), fr.stderr);
  const en = await saphirIn([
    'registry',
    'devices',
    'add',
    'CAISSE-1',
    DEV_DEVICE_PUBLIC_KEY_HEX.toUpperCase(),
    '--db',
    db,
    '--lang',
    'en',
  ]);
  assert.is(en.code, 2, en.stderr);
  assert.match(en.stderr, /published DEVELOPMENT device key/);
  const list = await saphirIn(['registry', 'devices', 'list', '--db', db, '--lang', 'en']);
  // Nothing enrolled (a refused add may not even leave a database behind).
  assert.match(list.stdout + list.stderr, /no device enrolled|no registry database/);
  // A device's own key is enrolled as before.
  assert.is(
    (await saphirIn(['registry', 'devices', 'add', 'CAISSE-1', ownKey('CAISSE-1').publicHex, '--db', db])).code,
    0,
  );
});

test('--production refuses the development key at authentication, even enrolled before; /health says which fleet', async () => {
  const db = join(dir, 'prod');
  // A row an older registry (or a development one) enrolled with the published key.
  const old = new RegistryStore(await openPglite(db), { keys: testKeyRing() });
  await old.addDevice('CAISSE-2', DEV_DEVICE_PUBLIC_KEY_HEX);
  await old.db.close();
  const k = ownKey('CAISSE-3');
  assert.is((await saphirIn(['registry', 'devices', 'add', 'CAISSE-3', k.publicHex, '--db', db])).code, 0);
  const srv = await serve(['--db', db, '--production', '--key', '0f'.repeat(32), '--registry-key', '1e'.repeat(32)]);
  try {
    const enrolled = await postRegistry(srv.url, 'claim', dev('CAISSE-2'), [{ code: win(1), paid_at: Date.now() }]);
    assert.is(enrolled.status, 403);
    assert.match(JSON.stringify(enrolled.body), /published development key/);
    const stranger = await postRegistry(srv.url, 'claim', dev('SIM-0001'), [{ code: win(2), paid_at: Date.now() }]);
    assert.equal([stranger.status, !stranger.ok && stranger.body.error], [403, 'unknown_device']);
    const own = await postRegistry(srv.url, 'claim', k, [{ code: win(3), paid_at: Date.now() }]);
    assert.ok(own.ok, JSON.stringify(own.body)); // heard (the ticket itself is of the test key: invalid)
    const health = (await (await fetch(`${srv.url}/health`)).json()) as { fleet: string };
    assert.is(health.fleet, 'production');
  } finally {
    await srv.stop();
  }
  // Without --production and no device enrolled, /health says `development`: registry/cli.test.ts's serve.
});

test('a production store refuses to enrol the development key', async () => {
  const store = new RegistryStore(await shared.open(), { keys: testKeyRing(), production: true });
  try {
    await store.addDevice('CAISSE-4', DEV_DEVICE_PUBLIC_KEY_HEX).then(
      () => assert.unreachable('enrolled'),
      (e: unknown) => assert.ok(e instanceof RequestError && /development device key/.test(e.message)),
    );
  } finally {
    await store.db.close();
  }
});

/** Counts JSON.parse calls on texts longer than `over` (a body's parse, not the client's small answers) until `restore()`. */
function countParses(over: number) {
  const parse = JSON.parse;
  let n = 0;
  JSON.parse = ((text: string, reviver?: (k: string, v: unknown) => unknown) => {
    if (text.length > over) n++;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  return { count: () => n, parse, restore: () => void (JSON.parse = parse) };
}

/** A key ring that counts how often a ticket's key is looked up: the mark of a ticket being checked. */
function countingRing(): KeyRing & { lookups: number } {
  const ring = testKeyRing() as KeyRing & { lookups: number };
  ring.lookups = 0;
  const get = ring.get.bind(ring);
  ring.get = (id: number) => {
    ring.lookups++;
    return get(id);
  };
  return ring;
}

/** `db` counting its queries (those whose SQL matches `which`; all without). */
function countQueries(db: Db, which = /./): { db: Db; count: () => number } {
  let n = 0;
  const query: Db['query'] = (sql, params) => {
    if (which.test(sql)) n++;
    return db.query(sql, params);
  };
  return { db: { ...db, query }, count: () => n };
}

const batch = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ code: win(from + i), paid_at: 1_790_000_000_000 + i }));

test('refused requests never reach the tickets: unknown device, bad signature, stale, replay, revoked', async () => {
  const keys = countingRing();
  const store = new RegistryStore(await shared.open(), { keys, freshnessMs: 60_000 });
  const srv = await serveRegistry(store);
  try {
    const k = ownKey('CAISSE-5');
    await store.addDevice(k.deviceId, k.publicHex);
    const codes = batch(500);
    const signed = (who: typeof k, over: Partial<SignedRequest> = {}): SignedRequest =>
      signRequest(
        { kind: 'sync', device_id: who.deviceId, nonce: newNonce(), sent_at: Date.now(), payments: codes, ...over },
        fromHex(who.seedHex),
        nodeSign,
        nodeSha512,
      );
    const refusals: [string, SignedRequest, number][] = [
      ['unknown device', signed(ownKey('NOBODY-1')), 403],
      ['bad signature', { ...signed(k), signature: 'ab'.repeat(64) }, 401],
      ['another key', signed({ ...k, seedHex: '11'.repeat(32) }), 401],
      ['stale', signed(k, { sent_at: Date.now() - 3 * 86400_000 }), 401],
    ];
    const first = signed(k, { payments: codes.slice(0, 1) });
    assert.ok((await postSigned(srv.url, first)).ok);
    const afterOne = keys.lookups;
    // The nonce again, on a new (genuinely signed) batch of 500.
    refusals.push(['replay', signed(k, { nonce: first.nonce, sent_at: first.sent_at }), 409]);
    for (const [what, req, status] of refusals) {
      const r = await postSigned(srv.url, req);
      assert.is(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
      assert.is(keys.lookups, afterOne, `${what}: ${keys.lookups - afterOne} ticket(s) checked before the refusal`);
    }
    await store.revokeDevice(k.deviceId);
    const revoked = await postSigned(srv.url, signed(k));
    assert.is(revoked.status, 403);
    assert.is(keys.lookups, afterOne);
    assert.equal(await store.counts(), { payments: 1, conflicts: 0, devices: 1 });
  } finally {
    await srv.close();
    await store.db.close();
  }
});

test('a flood of forged requests under one id reads the devices table once in 2 s and is logged 5 a second; a revocation elsewhere still holds at once', async () => {
  const db = await shared.open();
  const deviceReads = countQueries(db, /FROM devices WHERE device_id/);
  const store = new RegistryStore(deviceReads.db, { keys: testKeyRing() });
  const lines: Record<string, unknown>[] = [];
  const srv = await serveRegistry(store, { log: (e) => void lines.push(e) });
  try {
    const k = ownKey('CAISSE-6');
    await store.addDevice(k.deviceId, k.publicHex);
    const signed = (seedHex = k.seedHex): SignedRequest =>
      signRequest(
        { kind: 'sync', device_id: k.deviceId, nonce: newNonce(), sent_at: Date.now(), payments: batch(20) },
        fromHex(seedHex),
        nodeSign,
        nodeSha512,
      );
    const t0 = Date.now();
    // Signed by another key: well formed, so refused by the device's key, not before (a garbage S is, below).
    for (let i = 0; i < 30; i++) assert.is((await postSigned(srv.url, signed('33'.repeat(32)))).status, 401);
    const seconds = Math.ceil((Date.now() - t0) / 2000) + 1;
    assert.ok(deviceReads.count() <= seconds, `${deviceReads.count()} reads of the devices table in ${seconds * 2} s`);
    const logged = lines.filter((l) => l.msg === 'refused').length;
    assert.ok(logged <= 5 * (Math.ceil((Date.now() - t0) / 1000) + 1) && logged < 30, `${logged} refusals logged`);
    // Revoked by another process (its own store: this one's memory knows nothing of it): refused at once.
    await new RegistryStore(db, { keys: testKeyRing() }).revokeDevice(k.deviceId);
    const r = await postSigned(srv.url, signed());
    assert.is(r.status, 403);
    assert.is(!r.ok && r.body.error, 'revoked');
  } finally {
    await srv.close();
    await db.close();
  }
});

test('a request is refused from its head, before the rest of its body is read: unknown device, garbage signature, no head', async () => {
  const k = ownKey('CAISSE-7');
  const genuine = signRequest(
    { kind: 'sync', device_id: k.deviceId, nonce: newNonce(), sent_at: Date.now(), payments: batch(3) },
    fromHex(k.seedHex),
    nodeSign,
    nodeSha512,
  );
  const db = await shared.open();
  const queries = countQueries(db);
  const store = new RegistryStore(queries.db, { keys: testKeyRing() });
  await store.addDevice(k.deviceId, k.publicHex);
  const srv = await serveRegistry(store);
  const post = async (body: string) => {
    const r = await fetch(`${srv.url}/v1/sync`, { method: 'POST', body });
    return [r.status, ((await r.json()) as { error: string }).error];
  };
  try {
    const before = queries.count();
    // Payments not even an array: the head alone refuses these, the rest is never parsed.
    const rest = { payments: 'x', more: 'y'.repeat(5000) };
    assert.equal(await post(JSON.stringify({ ...genuine, device_id: 'NOBODY-9', ...rest })), [403, 'unknown_device']);
    assert.equal(await post(JSON.stringify({ ...genuine, signature: 'ab'.repeat(64), ...rest })), [
      401,
      'bad_signature',
    ]);
    assert.equal(await post(JSON.stringify({ ...genuine, digest: 'cd'.repeat(64), ...rest })), [401, 'bad_signature']);
    // The unknown id: its row, then whether the fleet is a development one; CAISSE-7's row once. Nothing else.
    assert.is(queries.count() - before, 3);
    // No head first (keys in another order, whitespace, no digest): 400, whatever follows.
    const { signature, ...unsigned } = genuine;
    for (const body of [
      JSON.stringify({ signature, ...unsigned }),
      JSON.stringify(genuine, null, 1),
      JSON.stringify({ ...unsigned, digest: undefined, signature }),
      'x'.repeat(3000),
      '',
    ])
      assert.equal(await post(body), [400, 'bad_request'], body.slice(0, 80));
    assert.is(queries.count() - before, 3);
  } finally {
    await srv.close();
    await db.close();
  }
});

test('a forged head is answered at once while the body is still on its way; a body over 128 KiB has its connection closed', async () => {
  const db = await shared.open();
  const store = new RegistryStore(db, { keys: testKeyRing() });
  const k = ownKey('CAISSE-7');
  await store.addDevice(k.deviceId, k.publicHex);
  const srv = await serveRegistry(store);
  try {
    const forged = signRequest(
      { kind: 'sync', device_id: k.deviceId, nonce: newNonce(), sent_at: Date.now(), payments: batch(500) },
      fromHex('55'.repeat(32)),
      nodeSign,
      nodeSha512,
    );
    // A device-sized body: Node discards the rest as it comes, the connection serves the next request.
    const body = Buffer.from(JSON.stringify(forged));
    assert.ok(body.length <= DRAIN_BYTES, String(body.length));
    assert.equal(await stalledPost(srv.url, body), { status: 401, connection: 'keep-alive', error: 'bad_signature' });
    assert.equal(await refusedThenNext(srv.url, body), ['HTTP/1.1 401 Unauthorized', 'HTTP/1.1 200 OK']);
    // Past DRAIN_BYTES (members after the head may be anything): cut by closing the connection.
    const big = Buffer.from(JSON.stringify({ ...forged, pad: 'x'.repeat(DRAIN_BYTES) }));
    assert.equal(await stalledPost(srv.url, big), { status: 401, connection: 'close', error: 'bad_signature' });
  } finally {
    await srv.close();
    await db.close();
  }
});

/**
 * On one connection: the first 2 KiB of `body`, its answer, then the rest of it and `GET /health`: the
 * status lines of both answers (the refused body's rest must be discarded for the second to come).
 */
function refusedThenNext(url: string, body: Buffer): Promise<string[]> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    let sent = false;
    const statuses = () => text.match(/HTTP\/1\.1 \d{3} [^\r]*/g) ?? [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve([...statuses(), 'no answer within 5 s']);
    }, 5000);
    socket.on('error', (e) => {
      clearTimeout(timer);
      resolve([...statuses(), (e as NodeJS.ErrnoException).code ?? e.message]);
    });
    socket.on('data', (c: Buffer) => {
      text += c.toString('latin1');
      const s = statuses();
      if (!sent && s.length === 1 && text.endsWith('}')) {
        sent = true;
        socket.write(body.subarray(2048));
        socket.write(`GET /health HTTP/1.1\r\nhost: ${hostname}\r\n\r\n`);
      }
      if (s.length === 2 && text.endsWith('}')) {
        clearTimeout(timer);
        socket.destroy();
        resolve(s);
      }
    });
    socket.write(`POST /v1/sync HTTP/1.1\r\nhost: ${hostname}\r\ncontent-length: ${body.length}\r\n\r\n`);
    socket.write(body.subarray(0, 2048));
  });
}

/** POSTs the first 2 KiB of `body` (announcing all of it), then stalls: the answer's status, error and connection. */
function stalledPost(url: string, body: Buffer) {
  return new Promise<{ status: number; connection: string | undefined; error: string }>((resolve, reject) => {
    const req = httpRequest(`${url}/v1/sync`, { method: 'POST', headers: { 'content-length': String(body.length) } });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          connection: res.headers.connection,
          error: (JSON.parse(text) as { error: string }).error,
        }),
      );
    });
    req.on('error', reject);
    req.write(body.subarray(0, 2048));
    setTimeout(() => {
      req.destroy();
      reject(new Error('no answer within 5 s while the body was incomplete'));
    }, 5000).unref();
  });
}

test('a genuine head replayed, or too old, is refused before the rest of its body is read (a captured sync replayed endlessly costs no body)', async () => {
  const keys = countingRing();
  const store = new RegistryStore(await shared.open(), { keys, freshnessMs: 60_000 });
  const k = ownKey('CAISSE-8');
  await store.addDevice(k.deviceId, k.publicHex);
  const srv = await serveRegistry(store);
  const parses = countParses(50_000);
  try {
    const sync = (over: Partial<RegistryRequest> = {}) =>
      signRequest(
        { kind: 'sync', device_id: k.deviceId, nonce: newNonce(), sent_at: Date.now(), payments: batch(500), ...over },
        fromHex(k.seedHex),
        nodeSign,
        nodeSha512,
      );
    const heard = sync();
    assert.ok((await postSigned(srv.url, heard)).ok);
    const [parsed, looked] = [parses.count(), keys.lookups];
    assert.is(looked, 500);
    const replayed = await stalledPost(srv.url, Buffer.from(JSON.stringify(heard)));
    assert.equal(replayed, { status: 409, connection: 'keep-alive', error: 'replay' });
    const stale = await stalledPost(srv.url, Buffer.from(JSON.stringify(sync({ sent_at: Date.now() - 3_600_000 }))));
    assert.equal(stale, { status: 401, connection: 'keep-alive', error: 'stale' });
    // Whole, too: refused the same, no body parsed, no ticket looked at.
    assert.is((await postSigned(srv.url, heard)).status, 409);
    assert.equal([parses.count(), keys.lookups], [parsed, looked]);
  } finally {
    parses.restore();
    await srv.close();
    await store.db.close();
  }
});

test('a genuine head on a body that is not the one signed (a payment added, a code changed) is refused, nothing recorded', async () => {
  const store = new RegistryStore(await shared.open(), { keys: testKeyRing() });
  const k = ownKey('CAISSE-7');
  await store.addDevice(k.deviceId, k.publicHex);
  const srv = await serveRegistry(store);
  try {
    const genuine = signRequest(
      { kind: 'sync', device_id: k.deviceId, nonce: newNonce(), sent_at: Date.now(), payments: batch(3) },
      fromHex(k.seedHex),
      nodeSign,
      nodeSha512,
    );
    for (const payments of [batch(4), [...batch(2), batch(1, 7)[0]], batch(3).map((p) => ({ ...p, paid_at: 1 }))]) {
      const r = await postSigned(srv.url, { ...genuine, payments });
      assert.equal([r.status, !r.ok && r.body.detail], [401, 'the body does not match its signed digest']);
    }
    assert.equal(await store.counts(), { payments: 0, conflicts: 0, devices: 1 });
    // The same head on its own body is heard.
    assert.ok((await postSigned(srv.url, genuine)).ok);
    assert.is((await store.counts()).payments, 3);
  } finally {
    await srv.close();
    await store.db.close();
  }
});

/** A request as the firmware writes it (firmware/registry/link.ts): the signed fields, the signature, notice_version. */
function deviceBody(
  kind: RequestKind,
  over: Partial<SignedRequest> = {},
  seedHex = ownKey('CAISSE-8').seedHex,
): string {
  const signed = signRequest(
    { kind, device_id: 'CAISSE-8', nonce: newNonce(), sent_at: Date.now(), payments: batch(3), ...over },
    fromHex(seedHex),
    nodeSign,
    nodeSha512,
  );
  return JSON.stringify({ ...signed, notice_version: 2 });
}

const health = {
  fw: '0.3.0',
  slot: 'A',
  image: 'ab'.repeat(32),
  notice: 1,
  ledger: 12,
  outbox: 3,
  boot: 'power-on',
  up: 3600,
  errors: 0,
  update: '-',
};

test('requestHead reads from a device’s body the text its signature covers, and nothing from a body whose head is not first', () => {
  const same = (raw: string, kind: RequestKind) => {
    const early = requestHead(Buffer.from(raw).toString('latin1', 0, 1024), kind);
    assert.ok(early, raw.slice(0, 80));
    const parsed = parseRequest(JSON.parse(raw), kind);
    assert.is(early.text.toString('latin1'), authText(parsed, parsed.digest));
    assert.equal([early.deviceId, early.signature], [parsed.device_id, parsed.signature]);
  };
  same(deviceBody('claim', { payments: batch(1) }), 'claim');
  same(deviceBody('sync', { payments: batch(500), health }), 'sync');
  same(deviceBody('confirm'), 'confirm');
  // An id and a nonce with quotes and backslashes: escaped in the JSON, read back as they are.
  same(deviceBody('sync', { device_id: 'A"B\\C', nonce: 'n"o\\nce-123' } as Partial<SignedRequest>), 'sync');
  const raw = deviceBody('sync', { health });
  for (const other of [
    JSON.stringify(JSON.parse(raw), null, 1), // whitespace
    raw.replace('"nonce"', '"kind":"sync","nonce"'), // another key inside the head
    raw.replace(/"digest":"[0-9a-f]+",/, ''), // no digest
    raw.replace(/"sent_at":\d+/, '"sent_at":-1'), // a time that is none
    raw.replace('"CAISSE-8"', '"CAISSE-8-IS-TOO-LONG-AN-ID"'), // an id over 16 characters
  ])
    assert.is(requestHead(other, 'sync'), null, other.slice(0, 120));
});

test('a request signed by another key is refused before its body is parsed, its device read again or a ticket looked at; a genuine one is heard', async () => {
  const keys = countingRing();
  const db = await shared.open();
  const queries = countQueries(db);
  // The devices table is read again once its 2 s are over (a loaded machine may take that long): nothing else.
  const deviceReads = countQueries(queries.db, /FROM devices WHERE device_id/);
  const store = new RegistryStore(deviceReads.db, { keys });
  const srv = await serveRegistry(store);
  const parses = countParses(50_000);
  try {
    const k = ownKey('CAISSE-8');
    await store.addDevice(k.deviceId, k.publicHex);
    const post = async (body: string) => {
      const r = await fetch(`${srv.url}/v1/sync`, { method: 'POST', body });
      return [r.status, ((await r.json()) as { error?: string }).error];
    };
    // The first request under the id reads the devices table (then remembered 2 s, for refusals).
    assert.equal(await post(deviceBody('sync', { payments: batch(500) }, '44'.repeat(32))), [401, 'bad_signature']);
    const [parsed, looked, others] = [parses.count(), keys.lookups, queries.count() - deviceReads.count()];
    assert.is(parsed, 0, 'the body was parsed before its signature was checked');
    const t0 = Date.now();
    const reads = deviceReads.count();
    for (let i = 0; i < 5; i++)
      assert.equal(await post(deviceBody('sync', { payments: batch(500) }, '44'.repeat(32))), [401, 'bad_signature']);
    assert.equal([parses.count(), keys.lookups, queries.count() - deviceReads.count() - others], [0, looked, 0]);
    assert.ok(deviceReads.count() - reads <= Math.ceil((Date.now() - t0) / 2000), 'the devices table read each time');
    // Not in the device's form (whitespace): no head first, refused unparsed, the device's key or not.
    const spaced = (body: string) => JSON.stringify(parses.parse(body), null, 1);
    assert.equal(await post(spaced(deviceBody('sync', { payments: batch(500) }))), [400, 'bad_request']);
    assert.equal([parses.count(), keys.lookups], [0, looked]);
    // The device's own request is heard, each ticket checked once.
    assert.equal(await post(deviceBody('sync', { payments: batch(500) })), [200, undefined]);
    assert.is(keys.lookups, looked + 500);
    assert.is((await store.counts()).payments, 500);
  } finally {
    parses.restore();
    await srv.close();
    await db.close();
  }
});

test('rate limit: a device over its budget gets 429 with Retry-After; bad signatures spend nobody’s budget', async () => {
  const store = new RegistryStore(await shared.open(), { keys: testKeyRing(), rateLimit: { perSecond: 1, burst: 3 } });
  const srv = await serveRegistry(store);
  try {
    const k = ownKey('CAISSE-6');
    await store.addDevice(k.deviceId, k.publicHex);
    // An attacker posing as CAISSE-6 without its key: refused 401, and the device's budget is intact.
    for (let i = 0; i < 10; i++) {
      const r = await postRegistry(srv.url, 'claim', { ...k, seedHex: '22'.repeat(32) }, [
        { code: win(100 + i), paid_at: 0 },
      ]);
      assert.is(r.status, 401);
    }
    for (let i = 0; i < 3; i++) {
      const r = await postRegistry(srv.url, 'claim', k, [{ code: win(200 + i), paid_at: Date.now() }]);
      assert.ok(r.ok, `claim ${i}: ${JSON.stringify(r.body)}`);
    }
    const res = await fetch(`${srv.url}/v1/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        signRequest(
          { kind: 'claim', device_id: k.deviceId, nonce: newNonce(), sent_at: Date.now(), payments: batch(1, 300) },
          fromHex(k.seedHex),
          nodeSign,
          nodeSha512,
        ),
      ),
    });
    assert.is(res.status, 429);
    assert.ok(Number(res.headers.get('retry-after')) >= 1, String(res.headers.get('retry-after')));
    assert.is(((await res.json()) as { error: string }).error, 'rate_limited');
    // Nothing of the refused claim was recorded; another device is not held back.
    assert.is((await store.counts()).payments, 3);
    const other = ownKey('CAISSE-7');
    await store.addDevice(other.deviceId, other.publicHex);
    assert.ok((await postRegistry(srv.url, 'claim', other, [{ code: win(301), paid_at: Date.now() }])).ok);
  } finally {
    await srv.close();
    await store.db.close();
  }
});

test('a body announced over 1 MiB is refused 413 before it is read', async () => {
  const store = new RegistryStore(await shared.open(), { keys: testKeyRing() });
  const srv = await serveRegistry(store);
  try {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${srv.url}/v1/sync`, { method: 'POST', headers: { 'content-length': String(64 << 20) } });
      req.on('response', (res) => resolve(res.statusCode ?? 0));
      setTimeout(() => {
        req.destroy();
        resolve(0);
      }, 10_000).unref();
      req.on('error', reject);
      req.write('{'); // and never the rest: the answer must not wait for 64 MiB
    });
    assert.is(status, 413);
  } finally {
    await srv.close();
    await store.db.close();
  }
});

test('the routes no signature guards (/v1/enrol, /v1/chunk) refuse a body over 4 KiB unparsed, announced or chunked', async () => {
  const store = new RegistryStore(await shared.open(), { keys: testKeyRing() });
  const srv = await serveRegistry(store);
  const parses = countParses(SMALL_BODY_BYTES);
  try {
    // Valid JSON of 200 KB (under the 1 MiB of a device's request): parsed whole it costs the server ~1 ms, unsigned.
    const big = JSON.stringify({ device_id: 'SIM-1', pad: 'x'.repeat(200_000) });
    const { request } = await import('node:http');
    const chunked = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${srv.url}${path}`, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } });
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', () => resolve(-1));
        setTimeout(() => reject(new Error('no answer')), 10_000).unref();
        for (let i = 0; i < 4; i++) req.write(big.slice(i * 3000, (i + 1) * 3000));
        req.end();
      });
    for (const path of ['/v1/enrol', '/v1/chunk']) {
      const r = await fetch(`${srv.url}${path}`, { method: 'POST', body: big });
      assert.is(r.status, 413, path);
      assert.match(await r.text(), /body over 4096 bytes/);
      assert.is(await chunked(path), 413, `${path}, chunked`);
    }
    assert.is(parses.count(), 0);
    // A genuine enrolment's body is small, and still heard (a refusal of its signature, not of its size).
    const small = await fetch(`${srv.url}/v1/enrol`, {
      method: 'POST',
      body: JSON.stringify({
        device_id: 'SIM-1',
        public_key: 'ab'.repeat(32),
        sent_at: Date.now(),
        signature: 'cd'.repeat(64),
      }),
    });
    assert.is(small.status, 401);
  } finally {
    parses.restore();
    await srv.close();
    await store.db.close();
  }
});

test('the shape check takes a code of 1–400 printable ASCII characters, nothing else (the signed text is encoded as Latin-1 on that ground)', () => {
  const body = (code: string) => ({
    device_id: 'CAISSE-1',
    nonce: 'nonce-shape-1',
    sent_at: 1,
    digest: 'cd'.repeat(64),
    signature: 'ab'.repeat(64),
    payments: [{ code, paid_at: 1 }],
  });
  for (const code of ['', 'x'.repeat(401), 'SPH1-é', 'SPH1-\u0141', 'a\nb', 'a\tb', '\x7f'])
    assert.throws(
      () => parseRequest(body(code), 'sync'),
      (e: unknown) => e instanceof RequestError && e.status === 400 && /code: a ticket code/.test(e.message),
      JSON.stringify(code),
    );
  for (const code of ['x', ' ~'.repeat(200)]) assert.is(parseRequest(body(code), 'sync').payments[0].code, code);
});

test.run();
