// `saphir sim --explore N --fleet`: N fleet schedules on worker threads (each with its own embedded
// registry), results in index order, failing schedules shrunk and written as fleet scenarios.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startWorkers, runOrdered, workerCount } from '../../tools/worker-pool.ts';
import { closeFleetRegistry, exploreFleetOne, type FleetResult } from './fleet.ts';
import type { ExploreSummary, Failure } from './index.ts';

export interface FleetExploreRun {
  count: number;
  seed: string;
  first?: number;
  jobs?: number;
  /** Devices a schedule (2–4; default drawn per schedule). */
  devices?: number;
  bundle?: string;
  shrink?: boolean;
  minOps?: number;
  maxOps?: number;
  outDir?: string;
  maxViolations?: number;
  /** The worker thread's module: the host's, which gives each thread its registry (src/node/commands/sim-fleet-worker.ts). */
  worker: URL;
  onResult?: (r: FleetResult, summary: FleetSummary) => void;
}

export interface FleetSummary extends ExploreSummary {
  fleet: true;
  /** Registry holds of a ticket the holder never paid (a granted claim whose answer was lost). */
  phantomHolds: number;
  payments: { online: number; offline: number; unknown: number };
}

export async function exploreFleet(o: FleetExploreRun): Promise<FleetSummary> {
  const t0 = performance.now();
  const first = o.first ?? 0;
  const s: FleetSummary = {
    fleet: true,
    seed: o.seed,
    schedules: 0,
    operations: 0,
    steps: 0,
    violations: 0,
    wallMs: 0,
    schedulesPerS: 0,
    stepsPerS: 0,
    kinds: {},
    checks: {},
    broken: {},
    failures: [],
    gates: [],
    phantomHolds: 0,
    payments: { online: 0, offline: 0, unknown: 0 },
  };
  const add = (r: FleetResult) => {
    s.schedules++;
    s.operations += r.ops;
    s.steps += r.steps;
    s.phantomHolds += r.phantomHolds;
    for (const k of ['online', 'offline', 'unknown'] as const) s.payments[k] += r.payments[k];
    for (const [k, n] of Object.entries(r.kinds)) s.kinds[k] = (s.kinds[k] ?? 0) + n;
    for (const [k, n] of Object.entries(r.checks)) s.checks[k] = (s.checks[k] ?? 0) + n;
    if (r.violation) {
      s.violations++;
      const v = r.violation;
      s.broken[v.invariant] = (s.broken[v.invariant] ?? 0) + 1;
      const f: Failure = { seed: r.seed, index: r.index, invariant: v.invariant, step: v.step, message: v.message };
      if (r.shrunk) {
        f.shrunkOps = r.shrunk.ops;
        f.reproduces = r.shrunk.reproduces;
        if (o.outDir) {
          mkdirSync(o.outDir, { recursive: true });
          f.file = join(o.outDir, `fleet-${r.seed}-${r.index}.yaml`);
          writeFileSync(f.file, r.shrunk.yaml);
        }
      }
      s.failures.push(f);
    }
    s.wallMs = performance.now() - t0;
    s.schedulesPerS = s.schedules / (s.wallMs / 1000);
    s.stepsPerS = s.steps / (s.wallMs / 1000);
    o.onResult?.(r, s);
  };
  const opts = {
    devices: o.devices,
    bundle: o.bundle,
    shrink: o.shrink !== false,
    minOps: o.minOps,
    maxOps: o.maxOps,
  };
  const jobs = Math.min(workerCount(o.jobs), o.count);
  if (jobs <= 1) {
    try {
      for (let i = 0; i < o.count; i++) {
        add(await exploreFleetOne(o.seed, first + i, opts));
        if (o.maxViolations !== undefined && s.violations >= o.maxViolations) break;
      }
    } finally {
      await closeFleetRegistry();
    }
    return s;
  }
  const workers = startWorkers(o.worker, jobs, { seed: o.seed, ...opts });
  let stop = false;
  try {
    await runOrdered<{ result?: FleetResult; error?: string }>(
      workers,
      o.count,
      (id) => ({ id, index: first + id }),
      (m) => {
        if (m.error) throw new Error(`fleet explorer worker: ${m.error}`);
        if (stop) return;
        add(m.result!);
        if (o.maxViolations !== undefined && s.violations >= o.maxViolations) stop = true;
      },
      1,
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return s;
}
