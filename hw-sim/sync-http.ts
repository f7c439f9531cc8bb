// Blocking HTTP for the simulator: the simulated device lives on virtual time, so a network answer must
// be there when the scheduler reaches it. A worker thread does the request; this thread waits on a
// shared buffer (Atomics.wait) until it is done. Node-only.
import { Worker } from 'node:worker_threads';
import type { BlockingHttp, SyncAnswer } from './host.ts';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { flag, data } = workerData;
const i32 = new Int32Array(flag);
const u8 = new Uint8Array(data);
let latest = 0;
parentPort.on('message', async ({ seq, url, body, timeoutMs }) => {
  latest = seq;
  let status = 0, text = '';
  try {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(timeoutMs) });
    status = r.status;
    text = await r.text();
  } catch { status = 0; text = ''; }
  if (seq !== latest) return; // the caller gave up on this one
  const b = Buffer.from(text, 'utf8');
  const n = Math.min(b.length, u8.length - 8);
  new DataView(data).setUint32(0, status);
  new DataView(data).setUint32(4, n);
  u8.set(b.subarray(0, n), 8);
  Atomics.store(i32, 0, seq);
  Atomics.notify(i32, 0);
});
`;

export type { SyncAnswer };

export class SyncHttp implements BlockingHttp {
  private worker: Worker | null = null;
  private readonly flag = new SharedArrayBuffer(4);
  private readonly data = new SharedArrayBuffer(1 << 20);
  private seq = 0;

  /** POSTs `body`; blocks this thread until the answer or `timeoutMs`; status 0 when none came. */
  post(url: string, body: string, timeoutMs: number): SyncAnswer {
    if (!this.worker) {
      this.worker = new Worker(WORKER, { eval: true, workerData: { flag: this.flag, data: this.data } });
      this.worker.unref();
    }
    const i32 = new Int32Array(this.flag);
    const seq = (this.seq = (this.seq % 0x7fffffff) + 1);
    this.worker.postMessage({ seq, url, body, timeoutMs });
    const end = Date.now() + timeoutMs + 2000;
    for (let v = Atomics.load(i32, 0); v !== seq; v = Atomics.load(i32, 0)) {
      const left = end - Date.now();
      if (left <= 0) return { status: 0, body: '' };
      Atomics.wait(i32, 0, v, left);
    }
    const v = new DataView(this.data);
    const n = v.getUint32(4);
    return { status: v.getUint32(0), body: Buffer.from(new Uint8Array(this.data, 8, n)).toString('utf8') };
  }

  close(): void {
    void this.worker?.terminate();
    this.worker = null;
  }
}
