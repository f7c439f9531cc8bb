// Worker thread of the fleet explorer: runs fleet schedules (seed, index) against its own embedded registry
// (given by sim-fleet.ts), one at a time.
import { workerData } from 'node:worker_threads';
import { serveJobs } from '../../tools/worker-pool.ts';
import { exploreFleetOne, type FleetExploreOptions } from '../../hw-sim/explore/fleet.ts';
import './sim-fleet.ts';

const { seed, ...opts } = workerData as FleetExploreOptions & { seed: string };
serveJobs((job: { id: number; index: number }) => exploreFleetOne(seed, job.index, opts));
