// The fleet explorer on Node: the real registry (embedded PGlite, one a thread) given to
// hw-sim/explore/fleet.ts, and its worker threads (sim-fleet-worker.ts). Import this, not fleet-run.ts.
import { scenarioRegistry, startEmbeddedRegistry } from '../registry/embedded.ts';
import { useFleetRegistry } from '../../hw-sim/explore/fleet.ts';
import { exploreFleet as exploreOn, type FleetExploreRun, type FleetSummary } from '../../hw-sim/explore/fleet-run.ts';
import '../../hw-sim/node-host.ts';

useFleetRegistry(async () => {
  const reg = await startEmbeddedRegistry();
  return {
    scenario: scenarioRegistry(reg),
    report: async () => {
      const r = await reg.report();
      return { holders: r.holders, conflicts: r.report.conflicts, regrants: r.report.regrants };
    },
    start: () => reg.start(),
    reset: () => reg.reset(),
    close: () => reg.close(),
  };
});

export type { FleetSummary };
export function exploreFleet(o: Omit<FleetExploreRun, 'worker'>): Promise<FleetSummary> {
  return exploreOn({ ...o, worker: new URL('./sim-fleet-worker.ts', import.meta.url) });
}
