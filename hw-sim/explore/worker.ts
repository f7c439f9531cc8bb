// Worker thread of the fault explorer: runs schedules (seed, index) on the firmware bundle it was given.
import { parentPort, workerData } from 'node:worker_threads';
import { exploreOne, type ExploreOptions } from './explore.ts';
import '../node-host.ts';

const { seed, ...opts } = workerData as { seed: string } & ExploreOptions;
parentPort!.on('message', async (job: { id: number; index: number }) => {
  try {
    const r = await exploreOne(seed, job.index, opts);
    parentPort!.postMessage({ id: job.id, result: r });
  } catch (e) {
    parentPort!.postMessage({ id: job.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  }
});
