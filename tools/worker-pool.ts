// A small pool of worker threads running a TypeScript worker (through worker-boot.mjs, which registers tsx).
import { Worker, parentPort } from 'node:worker_threads';
import { availableParallelism } from 'node:os';

export function workerCount(requested?: number): number {
  return Math.max(1, requested ?? availableParallelism());
}

/**
 * Starts `count` workers of `script` (a URL of a .ts file beside this one), each with `data`;
 * `youngGenerationMb` sizes each worker's young generation (V8's default when unset).
 */
export function startWorkers(
  script: URL,
  count: number,
  data: Record<string, unknown>,
  youngGenerationMb?: number,
): Worker[] {
  const boot = new URL('./worker-boot.mjs', import.meta.url);
  const resourceLimits = youngGenerationMb ? { maxYoungGenerationSizeMb: youngGenerationMb } : undefined;
  const workers: Worker[] = [];
  for (let i = 0; i < count; i++)
    workers.push(new Worker(boot, { workerData: { ...data, script: script.href }, resourceLimits }));
  return workers;
}

/**
 * Runs jobs 0 … jobCount-1 on the workers, at most `depth` in flight per worker, and hands the results
 * to `consume` strictly in job order (awaited, so a slow consumer holds the workers back). At most
 * `ahead` results wait for an earlier one (default: two a slot): jobs of very different lengths need
 * more, or one long job leaves the other workers idle.
 */
export async function runOrdered<R>(
  workers: Worker[],
  jobCount: number,
  makeJob: (id: number) => unknown,
  consume: (result: R, id: number) => Promise<void> | void,
  depth = 2,
  ahead = workers.length * depth * 2,
): Promise<void> {
  const done = new Map<number, R>();
  let nextJob = 0;
  let nextOut = 0;
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  const inFlight = new Map<Worker, number>();
  const dispatch = () => {
    for (const w of workers) {
      while ((inFlight.get(w) ?? 0) < depth && nextJob < jobCount && done.size < ahead) {
        w.postMessage(makeJob(nextJob++));
        inFlight.set(w, (inFlight.get(w) ?? 0) + 1);
      }
    }
  };
  const listeners: [Worker, (m: { id: number } & R) => void, (e: unknown) => void][] = [];
  for (const w of workers) {
    const onMessage = (m: { id: number } & R) => {
      inFlight.set(w, (inFlight.get(w) ?? 1) - 1);
      done.set(m.id, m);
      // A worker done ahead of a slow earlier job gets its next job now, not when that job is consumed.
      if (!failure) dispatch();
      wake?.();
    };
    const onError = (e: unknown) => {
      failure = e;
      wake?.();
    };
    w.on('message', onMessage);
    w.on('error', onError);
    listeners.push([w, onMessage, onError]);
  }
  try {
    dispatch();
    while (nextOut < jobCount) {
      if (failure) throw failure;
      const r = done.get(nextOut);
      if (r === undefined) {
        await new Promise<void>((res) => (wake = res));
        wake = null;
        continue;
      }
      done.delete(nextOut);
      await consume(r, nextOut++);
      dispatch();
    }
  } finally {
    for (const [w, m, e] of listeners) {
      w.off('message', m);
      w.off('error', e);
    }
  }
}

/**
 * Jobs submitted as input arrives, results consumed strictly in submission order. `submit` waits while
 * `maxPending` jobs are unconsumed (back-pressure on the producer).
 */
export class OrderedPool<R> {
  private nextId = 0;
  private nextOut = 0;
  private readonly done = new Map<number, R>();
  private readonly load = new Map<Worker, number>();
  private failure: unknown = null;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly workers: Worker[],
    private readonly consume: (result: R, id: number) => void,
    private readonly maxPending = workers.length * 3,
  ) {
    for (const w of workers) {
      this.load.set(w, 0);
      w.on('message', (m: { id: number } & R) => {
        this.load.set(w, this.load.get(w)! - 1);
        this.done.set(m.id, m);
        try {
          for (let r = this.done.get(this.nextOut); r !== undefined; r = this.done.get(this.nextOut)) {
            this.done.delete(this.nextOut);
            this.consume(r, this.nextOut++);
          }
        } catch (e) {
          this.failure = e;
        }
        this.notify();
      });
      w.on('error', (e) => {
        this.failure = e;
        this.notify();
      });
      w.on('exit', (code) => {
        if (this.nextOut < this.nextId && !this.failure) this.failure = new Error(`worker exited (${code})`);
        this.notify();
      });
    }
  }

  private notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private wait(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }

  async submit(job: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<void> {
    while (!this.failure && this.nextId - this.nextOut >= this.maxPending) await this.wait();
    if (this.failure) throw this.failure;
    let best = this.workers[0];
    for (const w of this.workers) if (this.load.get(w)! < this.load.get(best)!) best = w;
    this.load.set(best, this.load.get(best)! + 1);
    best.postMessage({ ...job, id: this.nextId++ }, transfer);
  }

  /** Waits until every submitted job is consumed. */
  async finish(): Promise<void> {
    while (!this.failure && this.nextOut < this.nextId) await this.wait();
    if (this.failure) throw this.failure;
  }
}

/**
 * In a worker: runs `run` on each job posted, one job at a time in the order they came, and posts
 * `{ id, result }` or `{ id, error }`. With `depth` 2 in runOrdered, the next job waits here while one
 * runs, so the worker does not idle through a round trip to the pool (~14 % of two explorer workers).
 */
export function serveJobs<J extends { id: number }>(run: (job: J) => Promise<unknown>): void {
  let queue: Promise<void> = Promise.resolve();
  parentPort!.on('message', (job: J) => {
    queue = queue.then(async () => {
      try {
        parentPort!.postMessage({ id: job.id, result: await run(job) });
      } catch (e) {
        parentPort!.postMessage({ id: job.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
      }
    });
  });
}
