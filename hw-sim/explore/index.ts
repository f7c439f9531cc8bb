// The fault explorer (docs/explorer.md): N schedules on worker threads, results in index order, failing
// schedules shrunk and written as scenario YAML files.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startWorkers, runOrdered, workerCount } from '../../tools/worker-pool.ts';
import { exploreOne, withBundles, type ScheduleResult } from './explore.ts';
import type { Gate } from './menu.ts';
import type { SimVariant } from '../sim.ts';
import '../node-host.ts';

export { exploreOne, makeSchedule, scenarioYaml, replays, type ScheduleResult } from './explore.ts';
export { MENU, GATES, INVARIANTS, gatesOf, type Gate } from './menu.ts';

export interface ExploreRun {
  /** Number of schedules. */
  count: number;
  seed: string;
  /** First index (default 0): schedules first … first+count-1. */
  first?: number;
  jobs?: number;
  gates?: Gate[];
  bundle?: string;
  shrink?: boolean;
  minOps?: number;
  maxOps?: number;
  noCamera?: boolean;
  /** Swarm weights per schedule (default true); false: the menu's weights (schedule.ts). */
  swarm?: boolean;
  /** The engine (default v8, with every `quickjsEvery`-th schedule on QuickJS): ExploreOptions. */
  variant?: SimVariant;
  quickjsEvery?: number;
  /** Under v8: the host's Ed25519 (default) or the firmware's own curve work: ExploreOptions. */
  ed25519?: 'host' | 'firmware';
  /** Under v8 with the host's Ed25519: its answers remembered (default true): ExploreOptions. */
  verifyMemo?: boolean;
  /** Where failing schedules are written (none when undefined). */
  outDir?: string;
  /** Stop after this many violations (default: run all). */
  maxViolations?: number;
  onResult?: (r: ScheduleResult, summary: ExploreSummary) => void;
  /** Once the schedules start (bundles built, workers started), with how many threads run them. */
  onStart?: (threads: number) => void;
}

export interface Failure {
  seed: string;
  index: number;
  invariant: number;
  step: number;
  message: string;
  file?: string;
  shrunkOps?: number;
  reproduces?: boolean;
  /** The engine the schedule ran on; found under v8, whether QuickJS broke the same invariant. */
  engine?: string;
  onQuickjs?: boolean;
}

export interface ExploreSummary {
  seed: string;
  schedules: number;
  operations: number;
  steps: number;
  violations: number;
  wallMs: number;
  schedulesPerS: number;
  stepsPerS: number;
  /** Operations drawn, by kind. */
  kinds: Record<string, number>;
  /** Checks passed by invariant, and violations by invariant. */
  checks: Record<string, number>;
  /** Update steps by how they went: direct, service, service-cut, service-resumed… (explore.ts countUpdate). */
  updates: Record<string, number>;
  broken: Record<string, number>;
  failures: Failure[];
  gates: Gate[];
  /** Schedules by the engine they ran on. */
  engines: Record<string, number>;
  /** Who did the v8 runs' Ed25519 curve work (ExploreOptions.ed25519); unset when none ran on v8. */
  v8Ed25519?: 'host' | 'firmware';
}

/** A summary before any schedule. */
export function emptySummary(seed: string, gates: Gate[]): ExploreSummary {
  return {
    seed,
    schedules: 0,
    operations: 0,
    steps: 0,
    violations: 0,
    wallMs: 0,
    schedulesPerS: 0,
    stepsPerS: 0,
    kinds: {},
    checks: {},
    updates: {},
    broken: {},
    failures: [],
    gates,
    engines: {},
  };
}

/** What `tally` needs of one schedule's result (single-device or fleet). */
export interface Tallied {
  seed: string;
  index: number;
  ops: number;
  steps: number;
  kinds: Record<string, number>;
  checks: Record<string | number, number>;
  updates?: Record<string, number>;
  violation?: { invariant: number; step: number; message: string };
  shrunk?: { ops: number; reproduces: boolean; yaml: string };
  engine?: string;
  onQuickjs?: boolean;
}

/** Adds one schedule's result to the summary; a shrunk failure's scenario goes to `outDir/PREFIX-SEED-INDEX.yaml`. */
export function tally(s: ExploreSummary, r: Tallied, t0: number, outDir: string | undefined, prefix: string): void {
  s.schedules++;
  if (r.engine) s.engines[r.engine] = (s.engines[r.engine] ?? 0) + 1;
  s.operations += r.ops;
  s.steps += r.steps;
  for (const [k, n] of Object.entries(r.kinds)) s.kinds[k] = (s.kinds[k] ?? 0) + n;
  for (const [k, n] of Object.entries(r.checks)) s.checks[k] = (s.checks[k] ?? 0) + n;
  for (const [k, n] of Object.entries(r.updates ?? {})) s.updates[k] = (s.updates[k] ?? 0) + n;
  if (r.violation) {
    s.violations++;
    const v = r.violation;
    s.broken[v.invariant] = (s.broken[v.invariant] ?? 0) + 1;
    const f: Failure = { seed: r.seed, index: r.index, invariant: v.invariant, step: v.step, message: v.message };
    if (r.engine) f.engine = r.engine;
    if (r.onQuickjs !== undefined) f.onQuickjs = r.onQuickjs;
    if (r.shrunk) {
      f.shrunkOps = r.shrunk.ops;
      f.reproduces = r.shrunk.reproduces;
      if (outDir) {
        mkdirSync(outDir, { recursive: true });
        f.file = join(outDir, `${prefix}-${r.seed}-${r.index}.yaml`);
        writeFileSync(f.file, r.shrunk.yaml);
      }
    }
    s.failures.push(f);
  }
  s.wallMs = performance.now() - t0;
  s.schedulesPerS = s.schedules / (s.wallMs / 1000);
  s.stepsPerS = s.steps / (s.wallMs / 1000);
}

export async function explore(o: ExploreRun): Promise<ExploreSummary> {
  const t0 = performance.now();
  const first = o.first ?? 0;
  const s = emptySummary(o.seed, o.gates ?? []);
  const add = (r: ScheduleResult) => {
    tally(s, r, t0, o.outDir, 'explore');
    o.onResult?.(r, s);
  };
  // Built once here, so the workers do not each build the v8 bundle.
  const opts = await withBundles({
    gates: o.gates ?? [],
    bundle: o.bundle,
    shrink: o.shrink !== false,
    minOps: o.minOps,
    maxOps: o.maxOps,
    noCamera: o.noCamera,
    swarm: o.swarm,
    variant: o.variant,
    quickjsEvery: o.quickjsEvery,
    ed25519: o.ed25519,
    verifyMemo: o.verifyMemo,
  });
  if ((o.variant ?? 'v8') === 'v8') s.v8Ed25519 = opts.v8Bundle ? 'host' : 'firmware';
  await runSchedules<ScheduleResult>({
    ...o,
    first,
    opts,
    worker: new URL('./worker.ts', import.meta.url),
    one: (index) => exploreOne(o.seed, index, opts),
    add,
    violations: () => s.violations,
  });
  return s;
}

/**
 * Runs schedules `first`… (`count` of them) here, or on `jobs` worker threads of `worker` (each given
 * `seed` and `opts`), handing each result to `add` in index order; stops after `maxViolations`.
 */
export async function runSchedules<R>(o: {
  seed: string;
  count: number;
  first: number;
  jobs?: number;
  maxViolations?: number;
  opts: object;
  worker: URL;
  one: (index: number) => Promise<R>;
  add: (r: R) => void;
  violations: () => number;
  onStart?: (threads: number) => void;
}): Promise<void> {
  const enough = () => o.maxViolations !== undefined && o.violations() >= o.maxViolations;
  const jobs = Math.min(workerCount(o.jobs), o.count);
  if (jobs <= 1) {
    o.onStart?.(1);
    for (let i = 0; i < o.count && !enough(); i++) o.add(await o.one(o.first + i));
    return;
  }
  // A young generation of 96 MB (V8's default is about a sixth of it): a schedule's garbage dies young,
  // and fewer scavenges took ~7 % off a schedule (A/B, 3 × 500 schedules on two jobs).
  const workers = startWorkers(o.worker, jobs, { seed: o.seed, ...o.opts }, 96);
  o.onStart?.(jobs);
  let stop = false;
  try {
    await runOrdered<{ result?: R; error?: string }>(
      workers,
      o.count,
      (id) => ({ id, index: o.first + id }),
      (m) => {
        if (m.error) throw new Error(`explorer worker: ${m.error}`);
        if (stop) return;
        o.add(m.result!);
        stop = enough();
      },
      // Two in flight: the next schedule waits in the worker (serveJobs), not behind a round trip.
      2,
      // A schedule on QuickJS takes ~10 times one on v8: the other workers go on meanwhile.
      256,
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
