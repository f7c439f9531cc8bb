// Worker thread of an embedded registry: PGlite and the HTTP server, off the main thread (the
// simulator's main thread blocks while its device waits for an answer).
import { parentPort, workerData } from 'node:worker_threads';
import { openPglite } from './db.ts';
import { RegistryStore } from './store.ts';
import { serveRegistry } from './server.ts';
import { testKeyRing } from '../../sph1/keys.ts';

const { dir, freshnessMs, production } = workerData as { dir?: string; freshnessMs?: number; production?: boolean };
const db = await openPglite(dir);
let store = new RegistryStore(db, { keys: testKeyRing(), freshnessMs, production });
let srv: Awaited<ReturnType<typeof serveRegistry>> | null = await serveRegistry(store);
const port = Number(new URL(srv.url).port);
parentPort!.on('message', async (m: { type: string; id?: number; deviceId?: string; publicKeyHex?: string }) => {
  // A restart: the server and its store go (nothing of theirs survives), the database stays; the same port.
  if (m.type === 'stop') {
    await srv?.close();
    srv = null;
    parentPort!.postMessage({ type: 'stopped' });
  }
  if (m.type === 'start') {
    if (!srv) {
      store = new RegistryStore(db, { keys: testKeyRing(), freshnessMs, production });
      srv = await serveRegistry(store, { port });
    }
    parentPort!.postMessage({ type: 'started' });
  }
  // A fresh registry on the same database (the fleet explorer, between schedules).
  if (m.type === 'reset') {
    await db.query(`TRUNCATE payments, conflicts, nonces, device_seen, devices`);
    parentPort!.postMessage({ type: 'reset' });
  }
  if (m.type === 'add-device') {
    let error: string | undefined;
    try {
      await store.addDevice(m.deviceId!, m.publicKeyHex!);
    } catch (e) {
      error = (e as Error).message;
    }
    parentPort!.postMessage({ type: 'added', error });
  }
  if (m.type === 'report') {
    parentPort!.postMessage({
      type: 'report',
      id: m.id,
      report: await store.report(),
      counts: await store.counts(),
      holders: await store.holders(),
    });
  }
  if (m.type === 'close') {
    await srv?.close();
    await db.close();
    parentPort!.postMessage({ type: 'closed' });
  }
});
parentPort!.postMessage({ type: 'ready', url: srv.url });
