// Blocking HTTP for the simulator: the simulated device lives on virtual time, so a network answer must
// be there when the scheduler reaches it. A worker thread does the request; this thread waits on a
// shared buffer (Atomics.wait) until it is done. Node-only.
import { Worker } from 'node:worker_threads';
import type { BlockingHttp, SyncAnswer } from './host.ts';

// `use` hands the thread the buffers of its (next) SyncHttp; an answer to a request of an earlier one
// (`gen` moved on since) is dropped.
const WORKER = `
const { parentPort } = require('node:worker_threads');
let i32, u8, data, gen = 0, latest = 0;
parentPort.on('message', async (m) => {
  if (m.use) {
    ({ data } = m.use);
    i32 = new Int32Array(m.use.flag);
    u8 = new Uint8Array(data);
    gen++;
    latest = 0;
    return;
  }
  const { seq, url, body, timeoutMs } = m;
  const g = gen;
  latest = seq;
  let status = 0, text = '';
  try {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(timeoutMs) });
    status = r.status;
    text = await r.text();
  } catch { status = 0; text = ''; }
  if (g !== gen || seq !== latest) return; // the caller gave up on this one, or is gone
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

/**
 * Threads of closed SyncHttps, kept for the next ones of this process: a thread and its first fetch cost
 * ~0.1 s of CPU, and a fleet run closes a device's every schedule (the explorer, the fleet tests).
 */
const idle: Worker[] = [];
const KEEP = 4;

export class SyncHttp implements BlockingHttp {
  private worker: Worker | null = null;
  private readonly flag = new SharedArrayBuffer(4);
  private readonly data = new SharedArrayBuffer(1 << 20);
  private seq = 0;

  /** POSTs `body`; blocks this thread until the answer or `timeoutMs`; status 0 when none came. */
  post(url: string, body: string, timeoutMs: number): SyncAnswer {
    if (!this.worker) {
      this.worker = idle.pop() ?? new Worker(WORKER, { eval: true });
      this.worker.unref();
      this.worker.postMessage({ use: { flag: this.flag, data: this.data } });
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
    const w = this.worker;
    this.worker = null;
    if (!w) return;
    if (idle.length < KEEP) idle.push(w);
    else void w.terminate();
  }
}
