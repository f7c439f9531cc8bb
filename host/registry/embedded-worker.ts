// Worker thread of an embedded registry: PGlite and the HTTP server, off the main thread (the
// simulator's main thread blocks while its device waits for an answer).
import { parentPort, workerData } from 'node:worker_threads';
import { emptyRegistry, openPglite } from './db.ts';
import { RegistryStore } from './store.ts';
import { serveRegistry } from './server.ts';
import { testKeyRing, type KeyRing } from '../../src/sph1/keys.ts';
import { fromHex } from '../../src/hex.ts';
import { CampaignError, campaignStatus, createCampaign, setCampaignState } from './campaigns.ts';
import type { CampaignOp } from '../../src/registry/protocol.ts';

interface Options {
  dir?: string;
  registrySeedHex?: string;
  freshnessMs?: number;
  production?: boolean;
  ticketKeys?: [number, string][];
}
let keys: KeyRing = testKeyRing();
let freshnessMs: number | undefined;
let production: boolean | undefined;
let registrySeed: Uint8Array | undefined;
/** The options of the store and server (a reused registry takes those of its new start). */
function use(o: Options): void {
  // The simulated devices' tickets are signed with the test key unless other keys are given.
  keys = o.ticketKeys ? new Map(o.ticketKeys.map(([id, hex]) => [id, fromHex(hex)])) : testKeyRing();
  ({ freshnessMs, production } = o);
  registrySeed = o.registrySeedHex ? fromHex(o.registrySeedHex) : undefined;
}
use(workerData as Options);
const db = await openPglite((workerData as Options).dir);
let store = new RegistryStore(db, { keys, freshnessMs, production });
let srv: Awaited<ReturnType<typeof serveRegistry>> | null = await serveRegistry(store, { registrySeed });
let port = Number(new URL(srv.url).port);
parentPort!.on(
  'message',
  async (m: {
    type: string;
    id?: number;
    deviceId?: string;
    publicKeyHex?: string;
    op?: CampaignOp;
    text?: string;
    options?: Options;
  }) => {
    // A restart: the server and its store go (nothing of theirs survives), the database stays; the same port.
    if (m.type === 'stop') {
      await srv?.close();
      srv = null;
      parentPort!.postMessage({ type: 'stopped' });
    }
    if (m.type === 'start') {
      if (!srv) {
        store = new RegistryStore(db, { keys, freshnessMs, production });
        srv = await serveRegistry(store, { port, registrySeed });
      }
      parentPort!.postMessage({ type: 'started' });
    }
    // A fresh registry on the same database (the fleet explorer, between schedules).
    if (m.type === 'reset') {
      await emptyRegistry(db);
      store.forgetDevices(); // what it remembers of the ids (a run's own key) goes with the tables
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
    // `saphir registry campaign …` on this registry (scenario steps, tests).
    if (m.type === 'campaign') {
      const o = m.op!;
      try {
        if (o.verb === 'create') await db.tx((q) => createCampaign(q, { ...o, now: Date.now() }));
        else if (o.verb !== 'status') await db.tx((q) => setCampaignState(q, o.name, o.verb as 'pause', Date.now()));
        parentPort!.postMessage({ type: 'campaign', status: await campaignStatus(db, o.name) });
      } catch (e) {
        const code = e instanceof CampaignError ? e.code : undefined;
        parentPort!.postMessage({ type: 'campaign', error: (e as Error).message, code });
      }
    }
    if (m.type === 'publish-notice') {
      let error: string | undefined;
      try {
        await store.publishNotice(m.text!);
      } catch (e) {
        error = (e as Error).message;
      }
      parentPort!.postMessage({ type: 'published', error });
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
    // Closed but kept for the next registry of the same options in this process (embedded.ts): the
    // server goes; taken again, the tables emptied, a new store and server on a free port.
    if (m.type === 'park') {
      await srv?.close();
      srv = null;
      parentPort!.postMessage({ type: 'parked' });
    }
    if (m.type === 'reuse') {
      use(m.options!);
      await emptyRegistry(db);
      store = new RegistryStore(db, { keys, freshnessMs, production });
      srv = await serveRegistry(store, { registrySeed });
      port = Number(new URL(srv.url).port);
      parentPort!.postMessage({ type: 'reused', url: srv.url });
    }
    if (m.type === 'close') {
      await srv?.close();
      await db.close();
      parentPort!.postMessage({ type: 'closed' });
    }
  },
);
parentPort!.postMessage({ type: 'ready', url: srv.url });
