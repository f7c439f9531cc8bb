// Worker thread of an embedded registry: PGlite and the HTTP server, off the main thread (the
// simulator's main thread blocks while its device waits for an answer).
import { parentPort, workerData } from 'node:worker_threads';
import { openPglite } from './db.ts';
import { RegistryStore } from './store.ts';
import { serveRegistry } from './server.ts';
import { testKeyRing } from '../../sph1/keys.ts';

const { dir, freshnessMs } = workerData as { dir?: string; freshnessMs?: number };
const db = await openPglite(dir);
const store = new RegistryStore(db, { keys: testKeyRing(), freshnessMs });
const srv = await serveRegistry(store);
parentPort!.on('message', async (m: { type: string; id?: number }) => {
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
    await srv.close();
    await db.close();
    parentPort!.postMessage({ type: 'closed' });
  }
});
parentPort!.postMessage({ type: 'ready', url: srv.url });
