// The fault explorer's throughput on all cores: schedules and operations a wall-clock second, over
// SAPHIR_BENCH_EXPLORE schedules (default 10 000, as the issue asks; fewer for a quick figure), with
// the explorer's defaults: v8, one schedule in 32 on QuickJS.
// Violations are reported (explore_violations, target 0) with their replayable scenarios. The rate is also
// given without the memo of the host's Ed25519 answers (SAPHIR_BENCH_EXPLORE_MEMO schedules, default 1 000,
// run with and without it).
import { availableParallelism } from 'node:os';
import { ensureBundle } from '../hw-sim/sim.ts';
import { GATES } from '../hw-sim/explore/menu.ts';
import { explore } from '../hw-sim/explore/index.ts';
import '../hw-sim/node-host.ts';

export default async function (): Promise<Record<string, number>> {
  const count = Number(process.env.SAPHIR_BENCH_EXPLORE ?? 10_000);
  if (!Number.isInteger(count) || count < 1) throw new Error('SAPHIR_BENCH_EXPLORE must be a whole number ≥ 1');
  const bundle = ensureBundle();
  const cpu0 = process.cpuUsage();
  const s = await explore({
    count,
    seed: 'bench',
    jobs: availableParallelism(),
    bundle,
    outDir: '.sim/explore-bench',
    gates: [...GATES],
    // A line every 100 schedules: a 10 000-schedule run is long, and an interrupted one still tells how far it got.
    onResult: (r, sum) => {
      if (sum.schedules % 100 === 0 || r.violation)
        process.stderr.write(
          `  explore: ${sum.schedules}/${count} schedules, ${sum.operations} operations, ${sum.violations} violations, ${(sum.wallMs / 1000).toFixed(0)} s, ${sum.schedulesPerS.toFixed(2)} schedules/s\n`,
        );
    },
  });
  const cpu = process.cpuUsage(cpu0);
  process.stderr.write(
    `  explore: ${s.schedules} schedules, ${s.operations} operations, ${s.violations} violations in ${(s.wallMs / 1000).toFixed(1)} s (${JSON.stringify(s.engines)})\n`,
  );
  // A violation is a finding, not a crash of the bench: it is a figure (target 0), each one listed with
  // the scenario that replays it.
  for (const f of s.failures) process.stderr.write(`  violation: ${JSON.stringify(f)}\n`);
  // The same first schedules with and without the answer memo of the host's Ed25519 (hw-sim/v8-host.ts),
  // one after the other: how much of the rate the memo makes.
  const ab = Math.min(count, Number(process.env.SAPHIR_BENCH_EXPLORE_MEMO ?? 1000));
  const rate = async (verifyMemo: boolean) =>
    (
      await explore({
        count: ab,
        seed: 'bench',
        jobs: availableParallelism(),
        bundle,
        outDir: '.sim/explore-bench',
        gates: [...GATES],
        verifyMemo,
      })
    ).schedulesPerS;
  const noMemo = await rate(false);
  const memo = await rate(true);
  process.stderr.write(
    `  explore: ${ab} schedules, ${noMemo.toFixed(2)}/s without the memo, ${memo.toFixed(2)}/s with\n`,
  );
  return {
    explore_schedules_per_s: Math.round(s.schedulesPerS * 100) / 100,
    explore_schedules_per_s_no_memo: Math.round(noMemo * 100) / 100,
    explore_memo_speedup: Math.round((memo / noMemo) * 100) / 100,
    explore_memo_ab_schedules: ab,
    explore_ops_per_s: Math.round((s.operations / (s.wallMs / 1000)) * 10) / 10,
    explore_schedules: s.schedules,
    explore_violations: s.violations,
    // Machine load aside: CPU time of all threads a schedule (v8 schedules and the QuickJS share together).
    explore_cpu_ms_per_schedule: Math.round((cpu.user + cpu.system) / 1000 / s.schedules),
    explore_schedules_on_quickjs: s.engines.quickjs ?? 0,
  };
}
