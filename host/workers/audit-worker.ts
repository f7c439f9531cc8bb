// Worker thread of `saphir audit`: checks the lines of each chunk with node:crypto (the device's verdict: hostVerify).
import { parentPort, workerData } from 'node:worker_threads';
import { fromHex } from '../../src/hex.ts';
import { hostVerify } from '../../tools/node-crypto.ts';
import { checkChunk } from './audit-core.ts';

const keys = new Map<number, Uint8Array>(
  (workerData.keys as [number, string][]).map(([id, hex]) => [id, fromHex(hex)]),
);
const opts = { keys, verify: hostVerify };
parentPort!.on('message', (job: { id: number; bytes: Uint8Array }) => {
  const { lines, results } = checkChunk(job.bytes, opts);
  parentPort!.postMessage({ id: job.id, lines, results, size: job.bytes.length }, [results.buffer as ArrayBuffer]);
});
