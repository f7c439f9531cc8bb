// `saphir sim --explore N --fleet`: N fleet schedules on worker threads (each with its own embedded
// registry), results in index order, failing schedules shrunk and written as fleet scenarios.
import { closeFleetRegistry, exploreFleetOne, type FleetResult } from './fleet.ts';
import { emptySummary, runSchedules, tally, type ExploreSummary } from './index.ts';

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
  /** Draw the attacker's operations too (ATTACKER_MENU). */
  attacker?: boolean;
  /** false: no operator notices (the schedules of seeds found before they were drawn). */
  notices?: boolean;
  outDir?: string;
  maxViolations?: number;
  /** Leaves the registry a run in this thread started open for the next run (the caller closes it: closeFleetRegistry). */
  keepRegistry?: boolean;
  /** The worker thread's module: the host's, which gives each thread its registry (host/commands/sim-fleet-worker.ts). */
  worker: URL;
  onResult?: (r: FleetResult, summary: FleetSummary) => void;
  onStart?: (threads: number) => void;
}

export interface FleetSummary extends ExploreSummary {
  fleet: true;
  /** Registry holds of a ticket the holder never paid (a granted claim whose answer was lost). */
  phantomHolds: number;
  /** Double payments by one device id hidden by a rollback (fleet-model.ts). */
  erasedDoubles: number;
  payments: { online: number; offline: number; unknown: number };
  /** Operator notices: taken by devices, refusals shown, TICKET EXPIRÉ verdicts (fleet.ts FleetRun). */
  notices: { adopted: number; refused: number; expired: number };
}

export async function exploreFleet(o: FleetExploreRun): Promise<FleetSummary> {
  const t0 = performance.now();
  const first = o.first ?? 0;
  const s: FleetSummary = {
    ...emptySummary(o.seed, []),
    fleet: true,
    phantomHolds: 0,
    erasedDoubles: 0,
    payments: { online: 0, offline: 0, unknown: 0 },
    notices: { adopted: 0, refused: 0, expired: 0 },
  };
  const add = (r: FleetResult) => {
    s.phantomHolds += r.phantomHolds;
    s.erasedDoubles += r.erasedDoubles;
    for (const k of ['online', 'offline', 'unknown'] as const) s.payments[k] += r.payments[k];
    for (const k of ['adopted', 'refused', 'expired'] as const) s.notices[k] += r.notices[k];
    tally(s, r, t0, o.outDir, 'fleet');
    o.onResult?.(r, s);
  };
  const opts = {
    devices: o.devices,
    bundle: o.bundle,
    shrink: o.shrink !== false,
    minOps: o.minOps,
    maxOps: o.maxOps,
    attacker: o.attacker,
    notices: o.notices,
  };
  try {
    await runSchedules<FleetResult>({
      ...o,
      first,
      opts,
      one: (index) => exploreFleetOne(o.seed, index, opts),
      add,
      violations: () => s.violations,
    });
  } finally {
    // The registry a schedule run here started (worker threads close theirs with them).
    if (!o.keepRegistry) await closeFleetRegistry();
  }
  return s;
}
