// Worker thread of the fleet explorer: runs fleet schedules (seed, index) against its own embedded registry
// (given by sim-fleet.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { exploreFleetOne, type FleetExploreOptions } from '../../../hw-sim/explore/fleet.ts';
import './sim-fleet.ts';

const { seed, ...opts } = workerData as FleetExploreOptions & { seed: string };
parentPort!.on('message', async (job: { id: number; index: number }) => {
  try {
    parentPort!.postMessage({ id: job.id, result: await exploreFleetOne(seed, job.index, opts) });
  } catch (e) {
    parentPort!.postMessage({ id: job.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  }
});
