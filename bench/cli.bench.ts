// CLI start-up, where people wait: `saphir --version` and `saphir check CODE` against `node -e 0`, the
// three interleaved in one run (medians of 15 each), so the ratios hold on a busy machine.
// cli_start_ratio_vs_node_version ≤ 2.0 and cli_start_ratio_vs_node_check ≤ 2.5 (issue #33): the
// prebuilt bundle (tools/cli-bundle.mjs), built first, is what runs.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ticketCode } from '../hw-sim/tickets.ts';
import { ROOT } from '../tools/paths.ts';
import { buildCliBundle } from '../tools/cli-bundle.mjs';

const RUNS = 15;

function ms(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore', env: { ...process.env, LANG: 'C.UTF-8' } });
  const t = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${args.join(' ')}: exit ${r.status}`);
  return t;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

export default async function (): Promise<Record<string, number>> {
  await buildCliBundle();
  const bin = join(ROOT, 'bin', 'saphir.mjs');
  const code = ticketCode({ emission: 9, block: 1, number: 1, prize: 30 });
  const cases = { node: ['-e', '0'], version: [bin, '--version'], check: [bin, 'check', code] };
  const times: Record<keyof typeof cases, number[]> = { node: [], version: [], check: [] };
  for (let i = 0; i < RUNS; i++)
    for (const k of Object.keys(cases) as (keyof typeof cases)[]) times[k].push(ms(cases[k]));
  const node = median(times.node);
  const r = (x: number) => Math.round(x * 100) / 100;
  return {
    cli_start_node_ms: r(node),
    cli_start_version_ms: r(median(times.version)),
    cli_start_check_ms: r(median(times.check)),
    cli_start_ratio_vs_node_version: r(median(times.version) / node),
    cli_start_ratio_vs_node_check: r(median(times.check) / node),
  };
}
