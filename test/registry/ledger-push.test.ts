// `saphir ledger export --to URL` marks an outbox slot heard only when the registry's answer is for
// it: as many results as payments sent, each for the ticket sent. A wrong URL answering
// {"results": []} (or results for other tickets) marks nothing, and says why.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answersFor, pushOutbox } from '../../host/commands/ledger.ts';
import { Failure } from '../../host/args.ts';
import type { ServiceClient } from '../../host/flash-client.ts';
import { openPglite } from '../../host/registry/db.ts';
import { RegistryStore } from '../../host/registry/store.ts';
import { serveRegistry } from '../../host/registry/server.ts';
import { DEV_DEVICE_SEED_HEX, signRequest, type SignedRequest } from '../../src/registry/protocol.ts';
import { testKeyRing } from '../../src/sph1/keys.ts';
import { fromHex } from '../../src/hex.ts';
import { nodeSha512, nodeSign } from '../../tools/node-crypto.ts';
import { lose, win } from './cases.ts';
import '../../hw-sim/node-host.ts';

/** A device's service port as pushOutbox sees it: one signed batch of `codes` in slots 10, 11, …. */
function device(codes: string[]) {
  const done: number[][] = [];
  let waiting = codes.map((code, i) => ({ code, slot: 10 + i }));
  const client = {
    async outbox(): Promise<{ request: SignedRequest | null; slots: number[] }> {
      if (waiting.length === 0) return { request: null, slots: [] };
      const request = signRequest(
        {
          kind: 'sync',
          device_id: 'CAISSE-2',
          nonce: `push-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`,
          sent_at: Date.now(),
          payments: waiting.map((w) => ({ code: w.code, paid_at: Date.now() - 60_000 })),
        },
        fromHex(DEV_DEVICE_SEED_HEX),
        nodeSign,
        nodeSha512,
      );
      return { request, slots: waiting.map((w) => w.slot) };
    },
    async outboxDone(slots: number[]): Promise<number> {
      done.push(slots);
      waiting = waiting.filter((w) => !slots.includes(w.slot));
      return waiting.length;
    },
  };
  return { client: client as unknown as ServiceClient, done };
}

/** An HTTP server answering every POST with `body` (status 200). */
async function fake(body: unknown): Promise<{ url: string; close(): Promise<void> }> {
  const srv: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    close: () => new Promise((r) => srv.close(() => r())),
  };
}

async function quietly<T>(f: () => Promise<T>): Promise<{ value?: T; error?: unknown; out: string }> {
  const write = process.stdout.write.bind(process.stdout);
  let out = '';
  process.stdout.write = ((s: string) => ((out += String(s)), true)) as typeof process.stdout.write;
  try {
    return { value: await f(), out };
  } catch (error) {
    return { error, out };
  } finally {
    process.stdout.write = write;
  }
}

test('a 200 with {"results": []}: nothing marked, and the reason', async () => {
  const { client, done } = device([win(51), win(52)]);
  const srv = await fake({ results: [] });
  try {
    const r = await quietly(() => pushOutbox(client, srv.url, 'en'));
    assert.instance(r.error, Failure);
    assert.match((r.error as Failure).text('en'), /answered 0 result\(s\) for 2 payment\(s\) sent/);
    assert.match((r.error as Failure).text('fr'), /rien n’a été marqué transmis/);
    assert.equal(done, []);
  } finally {
    await srv.close();
  }
});

test('results for other tickets: only the matching entries are marked; the rest stay, and it fails', async () => {
  const { client, done } = device([win(61), win(62), win(63)]);
  const ticket = (number: number) => ({ emission: 7, block: 3, number });
  const srv = await fake({
    results: [
      { result: 'granted', ticket: ticket(61), prize_eur: 30 },
      { result: 'granted', ticket: ticket(99), prize_eur: 30 },
      { result: 'maybe' },
    ],
  });
  try {
    const r = await quietly(() => pushOutbox(client, srv.url, 'en'));
    assert.instance(r.error, Failure);
    assert.match((r.error as Failure).text('en'), /2 of 3 result\(s\) .* are not for the ticket sent/);
    assert.equal(done, [[10]]);
    assert.match(r.out, /1 offline payment\(s\) sent/);
  } finally {
    await srv.close();
  }
});

test('the registry’s own answers mark every entry: granted, conflict and invalid', async () => {
  const db = await openPglite();
  const store = new RegistryStore(db, { keys: testKeyRing() });
  const srv = await serveRegistry(store);
  try {
    const { client, done } = device([win(71), lose(72), win(73)]);
    const r = await quietly(() => pushOutbox(client, srv.url, 'en'));
    assert.is(r.value, 0, String(r.error));
    assert.equal(done, [[10, 11, 12]]);
    assert.match(r.out, /3 offline payment\(s\) sent to the registry, 0 conflict\(s\), 1 refused/);
  } finally {
    await srv.close();
    await db.close();
  }
});

test('answersFor: the ticket of the code, decoded without its key', () => {
  const t = { emission: 7, block: 3, number: 81 };
  assert.ok(answersFor({ result: 'granted', ticket: t, prize_eur: 30 }, win(81)));
  assert.ok(answersFor({ result: 'conflict', ticket: t, by: { device_id: 'X', paid_at: 1 } }, win(81)));
  assert.not.ok(answersFor({ result: 'granted', ticket: { ...t, number: 82 } }, win(81)));
  assert.not.ok(answersFor({ result: 'granted', ticket: t }, 'SPH1:garbage'));
  assert.not.ok(answersFor({ result: 'already_paid', ticket: t }, win(81)));
  assert.ok(answersFor({ result: 'invalid', reason: 'E_KEY' }, 'SPH1:garbage'));
  assert.not.ok(answersFor({ result: 'invalid' }, win(81)));
  assert.not.ok(answersFor(null, win(81)));
});

test.run();
