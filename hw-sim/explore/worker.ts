// Worker thread of the fault explorer: runs schedules (seed, index) on the firmware bundle it was given.
import { workerData } from 'node:worker_threads';
import { serveJobs } from '../../tools/worker-pool.ts';
import { exploreOne, type ExploreOptions } from './explore.ts';
import '../node-host.ts';

const { seed, ...opts } = workerData as { seed: string } & ExploreOptions;
serveJobs((job: { id: number; index: number }) => exploreOne(seed, job.index, opts));
