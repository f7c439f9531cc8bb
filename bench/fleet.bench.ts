// The fault explorer's fleet mode: fleet schedules (2–4 devices on one embedded registry each) a
// wall-clock second on all cores, over SAPHIR_BENCH_FLEET schedules (default 100). Each worker starts
// its own registry (PGlite), counted in the time. Violations are a figure (target 0), each listed.
import { availableParallelism } from 'node:os';
import { ensureBundle } from '../hw-sim/sim.ts';
import { exploreFleet } from '../host/commands/sim-fleet.ts';

export default async function (): Promise<Record<string, number>> {
  const count = Number(process.env.SAPHIR_BENCH_FLEET ?? 100);
  if (!Number.isInteger(count) || count < 1) throw new Error('SAPHIR_BENCH_FLEET must be a whole number ≥ 1');
  const s = await exploreFleet({
    count,
    seed: 'bench',
    jobs: availableParallelism(),
    bundle: ensureBundle(),
    outDir: '.sim/fleet-bench',
  });
  process.stderr.write(
    `  fleet: ${s.schedules} schedules, ${s.operations} operations, ${s.steps} steps, ${s.violations} violations in ${(s.wallMs / 1000).toFixed(1)} s; ` +
      `payments ${s.payments.online} online, ${s.payments.offline} offline, ${s.payments.unknown} cut; ${s.phantomHolds} phantom holds\n`,
  );
  for (const f of s.failures) process.stderr.write(`  violation: ${JSON.stringify(f)}\n`);
  return {
    fleet_schedules_per_s: Math.round(s.schedulesPerS * 100) / 100,
    fleet_ops_per_s: Math.round((s.operations / (s.wallMs / 1000)) * 10) / 10,
    fleet_schedules: s.schedules,
    fleet_violations: s.violations,
    fleet_phantom_holds: s.phantomHolds,
  };
}
