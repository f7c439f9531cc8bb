// Many servers, one PostgreSQL (issue #30 item 6): two `saphir registry serve` processes on one
// throwaway cluster; the same ticket claimed at the same moment by two devices, one through each server,
// has exactly one holder, every time. npm test runs 40 rounds (each device wins ~half); the long tier (two-servers.long.ts) 1 000.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LONG, requireTool } from '../helpers.ts';
import { openPostgres } from '../../host/registry/db.ts';
import { RegistryStore } from '../../host/registry/store.ts';
import { newNonce, postSigned } from '../../host/registry/client.ts';
import { signRequest } from '../../src/registry/protocol.ts';
import { testKeyRing } from '../../src/sph1/keys.ts';
import { fromHex } from '../../src/hex.ts';
import { nodeSha512, nodeSign } from '../../tools/node-crypto.ts';
import { ownKey, win } from './cases.ts';
import { serve, type Served } from './serve-cli.ts';
import { PG_INSTALL_HINT, postgresBin, startPostgres } from './pg-cluster.ts';
import '../../hw-sim/node-host.ts';

const ROUNDS = LONG ? 1000 : 40;
/** Bounded: a round costs a few ms here; this is many times what the rounds need on a loaded machine. */
const LIMIT_S = LONG ? 600 : 240;

const pgTest = requireTool('postgres', PG_INSTALL_HINT, { check: () => (postgresBin() ? null : 'no initdb') });

pgTest(
  `two registry serve on one PostgreSQL: ${ROUNDS} simultaneous claims of one ticket, one holder each`,
  async () => {
    const cluster = await startPostgres();
    const servers: Served[] = [];
    try {
      const a = ownKey('CAISSE-A');
      const b = ownKey('CAISSE-B');
      const admin = new RegistryStore(await openPostgres(cluster.url, 2), { keys: testKeyRing() });
      await admin.addDevice(a.deviceId, a.publicHex);
      await admin.addDevice(b.deviceId, b.publicHex);
      // Both start at once: both apply the migrations (the version's primary key decides).
      servers.push(
        ...(await Promise.all([
          serve(['--postgres', cluster.url, '--rate-limit', '0']),
          serve(['--postgres', cluster.url, '--rate-limit', '0']),
        ])),
      );
      const t0 = Date.now();
      const winners = new Map<number, string>();
      for (let i = 0; i < ROUNDS; i++) {
        assert.ok((Date.now() - t0) / 1000 < LIMIT_S, `only ${i} rounds in ${LIMIT_S} s`);
        const code = win(10_000 + i);
        // Signed beforehand, sent together; each round swaps which device goes through which server.
        const [first, second] = i % 2 ? [a, b] : [b, a];
        const reqs = [first, second].map((who) =>
          signRequest(
            {
              kind: 'claim',
              device_id: who.deviceId,
              nonce: newNonce(),
              sent_at: Date.now(),
              payments: [{ code, paid_at: Date.now() }],
            },
            fromHex(who.seedHex),
            nodeSign,
            nodeSha512,
          ),
        );
        const answers = await Promise.all(reqs.map((r, s) => postSigned(servers[s].url, r, 30_000)));
        const results = answers.map((x) => {
          assert.ok(x.ok, `round ${i}: ${x.status} ${JSON.stringify(x.body)}`);
          return x.ok ? x.body.results[0] : null;
        });
        const granted = results.flatMap((r, s) => (r?.result === 'granted' ? [reqs[s].device_id] : []));
        assert.is(granted.length, 1, `round ${i}: ${JSON.stringify(results)}`);
        const other = results.find((r) => r?.result !== 'granted');
        assert.is(other?.result, 'already_paid', `round ${i}: ${JSON.stringify(results)}`);
        if (other?.result === 'already_paid') assert.is(other.by.device_id, granted[0], `round ${i}`);
        winners.set(10_000 + i, granted[0]);
      }
      // The database agrees with every answer: one payment a ticket, held by the device that was granted it.
      const holders = await admin.holders();
      assert.is(holders.length, ROUNDS);
      for (const h of holders) assert.is(h.device_id, winners.get(h.number), `ticket ${h.number}`);
      const byDevice = [a, b].map((d) => holders.filter((h) => h.device_id === d.deviceId).length);
      // Both servers and both devices won some: the race was a race, not one side always first.
      assert.ok(Math.min(...byDevice) > 0, `holders by device: ${byDevice}`);
      await admin.db.close();
    } finally {
      for (const s of servers) assert.is(await s.stop(), 0, s.err());
      cluster.stop();
    }
  },
);

test.run();
