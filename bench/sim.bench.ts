// Simulator benchmarks: scans a wall-clock second through the simulated device running the real
// firmware in QuickJS (virtual time, so this is simulator + firmware cost), and the wall time of
// `npm start` (the demo) once the firmware is built.
import { spawnSync } from 'node:child_process';
import { Simulator, ensureBundle } from '../hw-sim/sim.ts';
import { ROOT } from '../tools/paths.ts';
import { transmit } from '../hw-sim/scanners/index.ts';
import { ticketCode } from '../hw-sim/tickets.ts';
import '../hw-sim/node-host.ts';

export default async function (): Promise<Record<string, number>> {
  const bundle = ensureBundle();
  const sim = new Simulator({ bundle, seed: 'bench', clockMs: Date.UTC(2027, 0, 15, 9) });
  sim.configure({});
  await sim.boot();
  // Genuine tickets (losing, so no payment waits for OK) through the HID POS model.
  const codes = Array.from({ length: 300 }, (_, i) => ticketCode({ emission: 1, block: 3, number: i, prize: 0 }));
  const txs = codes.map((c) => transmit('hid-pos', c, {}, sim.rng));
  for (const tx of txs.slice(0, 20)) await sim.run(sim.transmit(tx) - sim.now + 1);
  const t0 = performance.now();
  for (const tx of txs) await sim.run(sim.transmit(tx) - sim.now + 1);
  const scansPerS = txs.length / ((performance.now() - t0) / 1000);
  if (!sim.screen.some((l) => l.includes('PERDANT'))) throw new Error(`unexpected screen: ${sim.screen.join(' | ')}`);
  sim.dispose();

  const d0 = performance.now();
  const r = spawnSync('npm', ['start', '--silent'], { cwd: ROOT, encoding: 'utf8' });
  const demoS = (performance.now() - d0) / 1000;
  if (r.status !== 0) throw new Error(`npm start failed:\n${r.stdout.slice(-1500)}${r.stderr.slice(-1500)}`);
  return { sim_scans_per_s: Math.round(scansPerS * 10) / 10, sim_demo_s: Math.round(demoS * 100) / 100 };
}
