// `saphir sim --registry embedded`, and the tests: a registry on in-memory PGlite (or in `dir`) in a
// worker thread, on 127.0.0.1 and a free port.
import type { Worker } from 'node:worker_threads';
import { startWorkers } from '../workers/pool.ts';
import type { RegistryStore } from './store.ts';

export interface EmbeddedRegistry {
  url: string;
  report(): Promise<{
    report: Awaited<ReturnType<RegistryStore['report']>>;
    counts: Awaited<ReturnType<RegistryStore['counts']>>;
    holders: Awaited<ReturnType<RegistryStore['holders']>>;
  }>;
  close(): Promise<void>;
}

/**
 * `freshnessMs`: how far a request's time may be from the registry's clock. Default: no limit, since a
 * simulated device runs on its own virtual clock (replays are still refused by their nonce).
 */
export async function startEmbeddedRegistry(
  opts: { dir?: string; freshnessMs?: number } = {},
): Promise<EmbeddedRegistry> {
  const [w] = startWorkers(new URL('./embedded-worker.ts', import.meta.url), 1, {
    dir: opts.dir,
    freshnessMs: opts.freshnessMs ?? Infinity,
  });
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
  const ready = await next('ready');
  let closed = false;
  return {
    url: String(ready.url),
    async report() {
      const r = next('report');
      w.postMessage({ type: 'report' });
      return (await r) as never;
    },
    async close() {
      if (closed) return;
      closed = true;
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
  };
}
