// Worker entry: registers tsx in this thread, then loads the TypeScript worker named in workerData.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.script);
