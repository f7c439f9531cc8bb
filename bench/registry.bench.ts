// Registry throughput: claims from 50 concurrent clients (PGlite, and PostgreSQL when a throwaway
// cluster can start here), and a device's 10 000 offline payments pushed in batches.
import { openPglite, openPostgres, type Db } from '../src/node/registry/db.ts';
import { RegistryStore } from '../src/node/registry/store.ts';
import { serveRegistry } from '../src/node/registry/server.ts';
import { postRegistry } from '../src/node/registry/client.ts';
import { MAX_BATCH } from '../src/registry/protocol.ts';
import { testKeyRing } from '../src/sph1/keys.ts';
import { ticketCode } from '../hw-sim/tickets.ts';
import { dev } from '../test/registry/cases.ts';
import { postgresBin, startPostgres } from '../test/registry/pg-cluster.ts';
import { startEmbeddedRegistry } from '../src/node/registry/embedded.ts';
import { Simulator } from '../hw-sim/sim.ts';
import { transmit } from '../hw-sim/scanners/index.ts';
import '../hw-sim/node-host.ts';

const CLIENTS = 50;
const CLAIMS = 2000;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function claims(db: Db, prefix: string): Promise<Record<string, number>> {
  const store = new RegistryStore(db, { keys: testKeyRing() });
  const srv = await serveRegistry(store);
  const codes = Array.from({ length: CLAIMS }, (_, i) => ticketCode({ emission: 9, block: 1, number: i, prize: 30 }));
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      while (next < CLAIMS) {
        const i = next++;
        const s = performance.now();
        const r = await postRegistry(srv.url, 'claim', dev(`BENCH-${c}`), [{ code: codes[i], paid_at: Date.now() }], {
          timeoutMs: 60_000,
        });
        if (!r.ok) throw new Error(JSON.stringify(r.body));
        lat.push(performance.now() - s);
      }
    }),
  );
  const s = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  // A device's 10 000 offline payments, pushed as the device does: batches, one after the other.
  const sync = Array.from({ length: 10_000 }, (_, i) => ({
    code: ticketCode({ emission: 9, block: 2, number: i, prize: 30 }),
    paid_at: 1_790_000_000_000 + i,
  }));
  const t1 = performance.now();
  for (let i = 0; i < sync.length; i += MAX_BATCH) {
    const r = await postRegistry(srv.url, 'sync', dev('BENCH-SYNC'), sync.slice(i, i + MAX_BATCH), {
      timeoutMs: 120_000,
    });
    if (!r.ok) throw new Error(JSON.stringify(r.body));
  }
  const syncS = (performance.now() - t1) / 1000;
  await srv.close();
  await db.close();
  return {
    [`registry_claims_per_s_${prefix}`]: CLAIMS / s,
    [`registry_claim_p50_ms_${prefix}`]: quantile(lat, 0.5),
    [`registry_claim_p99_ms_${prefix}`]: quantile(lat, 0.99),
    [`registry_sync_10k_s_${prefix}`]: syncS,
  };
}

/**
 * A retailer's wait on a device with a 50 ms (one-way) network: the device's work from the scan to
 * the verdict and from OK to PAYÉ (wall time, QuickJS and the real registry on PGlite) plus the
 * simulated network's round trip (virtual time). The person's own OK press is not counted.
 */
async function onlineScanToPaid(): Promise<Record<string, number>> {
  const reg = await startEmbeddedRegistry();
  const sim = new Simulator({ registry: reg.url, deviceId: 'BENCH-1', clockMs: Date.UTC(2027, 0, 12, 10) });
  sim.configure({ deviceId: 'BENCH-1' });
  await sim.boot();
  await sim.run(500);
  sim.network!.state = { up: true, latencyMs: 50, loss: 0 };
  const samples: number[] = [];
  for (let i = 0; i < 30; i++) {
    const code = ticketCode({ emission: 1, block: 9, number: 5000 + i, prize: 30 });
    const tx = transmit('serial', code, {}, sim.rng);
    const w0 = performance.now();
    const end = sim.transmit(tx);
    await sim.run(end - sim.now);
    await sim.runUntil(() => sim.screen[0] === 'GAGNANT', 1000);
    const w1 = performance.now();
    const v0 = sim.now;
    await sim.press('OK');
    await sim.runUntil(() => sim.screen[0] === 'PAYÉ', 5000);
    if (sim.screen[0] !== 'PAYÉ') throw new Error(`not paid: ${sim.screen.join(' | ')}`);
    samples.push(w1 - w0 + (performance.now() - w1) + (sim.now - v0));
    await sim.run(9000);
  }
  sim.dispose();
  await reg.close();
  samples.sort((a, b) => a - b);
  return { online_scan_to_paid_ms: quantile(samples, 0.5) };
}

export default async function (): Promise<Record<string, number>> {
  const out = await onlineScanToPaid();
  Object.assign(out, await claims(await openPglite(), 'pglite'));
  if (postgresBin()) {
    const cluster = await startPostgres();
    try {
      Object.assign(out, await claims(await openPostgres(cluster.url, CLIENTS), 'postgres'));
    } finally {
      cluster.stop();
    }
  } else process.stderr.write('registry bench: PostgreSQL not installed (apt-get install postgresql): PGlite only\n');
  return out;
}
