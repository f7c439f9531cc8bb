// `saphir sim --registry embedded`, and the tests: a registry on in-memory PGlite (or in `dir`) in a
// worker thread, on 127.0.0.1 and a free port.
import type { Worker } from 'node:worker_threads';
import { startBundledWorkers } from '../workers/bundle.ts';
import type { RegistryStore } from './store.ts';
import { CampaignError, type CampaignStatus } from './campaigns.ts';
import type { KeyRing } from '../../src/sph1/keys.ts';
import { toHex } from '../../src/hex.ts';
import type { CampaignOp } from '../../src/registry/protocol.ts';

export interface EmbeddedRegistry {
  url: string;
  report(): Promise<{
    report: Awaited<ReturnType<RegistryStore['report']>>;
    counts: Awaited<ReturnType<RegistryStore['counts']>>;
    holders: Awaited<ReturnType<RegistryStore['holders']>>;
  }>;
  close(): Promise<void>;
  /** Stops the HTTP server (requests are refused, as by a registry that is down); the database stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port, with a new store over the same database (a restart). */
  start(): Promise<void>;
  /** Empties every table (the fleet explorer's next schedule starts from a fresh registry). */
  reset(): Promise<void>;
  /** `saphir registry devices add`: enrols a device (ends the development fleet). */
  addDevice(deviceId: string, publicKeyHex: string): Promise<void>;
  /** `saphir registry campaign …`: the campaign's status after the operation (throws its refusal, a CampaignError). */
  campaign(op: CampaignOp): Promise<CampaignStatus>;
  /** `saphir registry notice publish`: a signed operator notice for the devices' next syncs. */
  publishNotice(text: string): Promise<void>;
}

/**
 * `freshnessMs`: how far a request's time may be from the registry's clock. Default: no limit, since a
 * simulated device runs on its own virtual clock (replays are still refused by their nonce).
 * `ticketKeys`: the ticket keys it trusts (default: the published test key, the simulator's tickets').
 * `registrySeedHex`: the seed that signs its answers (default: the published development registry key).
 */
/** In-memory registries closed in this process (two at most), for the next starts (below). */
const parked: Worker[] = [];

export async function startEmbeddedRegistry(
  opts: {
    dir?: string;
    freshnessMs?: number;
    production?: boolean;
    ticketKeys?: KeyRing;
    registrySeedHex?: string;
  } = {},
): Promise<EmbeddedRegistry> {
  const data = {
    dir: opts.dir,
    freshnessMs: opts.freshnessMs ?? Infinity,
    production: opts.production,
    registrySeedHex: opts.registrySeedHex,
    ticketKeys: opts.ticketKeys && [...opts.ticketKeys].map(([id, k]) => [id, toHex(k)]),
  };
  // An in-memory registry closed earlier in this process is taken again, emptied, with these options (a
  // thread, PGlite and its database: ~1.3 s of CPU to start, 0.05 s to empty).
  const inMemory = opts.dir === undefined;
  const kept = inMemory ? parked.pop() : undefined;
  // A new one from the worker's bundle (host/workers/bundle.ts): no tsx to register in the thread.
  const w = kept ?? (await startBundledWorkers(new URL('./embedded-worker.ts', import.meta.url), 1, data))[0];
  const next = (type: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const onMsg = (m: Record<string, unknown>) => {
        if (m.type !== type) return;
        w.off('message', onMsg);
        w.off('error', reject);
        resolve(m);
      };
      w.on('message', onMsg);
      w.once('error', reject);
    });
  let ready: Record<string, unknown>;
  if (kept) {
    kept.ref();
    const reused = next('reused');
    w.postMessage({ type: 'reuse', options: data });
    ready = await reused;
  } else ready = await next('ready');
  let closed = false;
  const ask = async (type: string, reply: string, extra: Record<string, unknown> = {}) => {
    const r = next(reply);
    w.postMessage({ type, ...extra });
    return r;
  };
  return {
    stop: async () => void (await ask('stop', 'stopped')),
    start: async () => void (await ask('start', 'started')),
    reset: async () => void (await ask('reset', 'reset')),
    async addDevice(deviceId, publicKeyHex) {
      const r = await ask('add-device', 'added', { deviceId, publicKeyHex });
      if (r.error) throw new Error(String(r.error));
    },
    async campaign(op) {
      const r = await ask('campaign', 'campaign', { op });
      if (r.error)
        throw r.code ? new CampaignError(r.code as CampaignError['code'], String(r.error)) : new Error(String(r.error));
      return r.status as CampaignStatus;
    },
    async publishNotice(text) {
      const r = await ask('publish-notice', 'published', { text });
      if (r.error) throw new Error(String(r.error));
    },
    url: String(ready.url),
    async report() {
      const r = next('report');
      w.postMessage({ type: 'report' });
      return (await r) as never;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (inMemory && parked.length < 2) {
        const done = next('parked');
        w.postMessage({ type: 'park' });
        await done;
        w.unref(); // a kept registry never holds the process
        parked.push(w);
        return;
      }
      const done = next('closed');
      w.postMessage({ type: 'close' });
      await done;
      await (w as Worker).terminate();
    },
  };
}

/** What a scenario run sees of an embedded registry (hw-sim/runner.ts). */
export function scenarioRegistry(reg: EmbeddedRegistry) {
  return {
    url: reg.url,
    async state() {
      const r = await reg.report();
      return { holders: r.holders, conflicts: r.counts.conflicts };
    },
    stop: () => reg.stop(),
    start: () => reg.start(),
    campaign: (op: CampaignOp) => reg.campaign(op),
    publishNotice: (text: string) => reg.publishNotice(text),
  };
}
