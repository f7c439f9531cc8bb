// Worker thread of `saphir gen`: encodes the ranges the main thread asks for, and hands the bytes back.
import { parentPort, workerData } from 'node:worker_threads';
import { blockGenerator } from '../../src/gen/index.ts';
import { fromHex } from '../../src/hex.ts';
import { nodeSign } from '../../tools/node-crypto.ts';
import { RangeEncoder } from './gen-core.ts';

export interface GenWorkerData {
  script: string;
  seed: string;
  emission: number;
  block: number;
  keyId: number;
  seedHex: string;
}
export interface GenJob {
  id: number;
  from: number;
  count: number;
}

const d = workerData as GenWorkerData;
const enc = new RangeEncoder(
  blockGenerator(d.seed, d.emission, d.block),
  { keyId: d.keyId, seed: fromHex(d.seedHex) },
  nodeSign,
);
parentPort!.on('message', (job: GenJob) => {
  const bytes = enc.encode(job.from, job.count);
  parentPort!.postMessage({ id: job.id, bytes }, [bytes.buffer as ArrayBuffer]);
});
