// The retail counter's cost on the verdict (issue #32): scan → verdict with the check journal on and off
// (a device without the journal partition), the same codes alternated between the two devices in one
// run, CPU time of this thread (QuickJS runs synchronously here). Each scan ends on its screen and its
// journal record.
import { boot, chipWith, scanSerial, ticket } from '../test/firmware/harness.ts';
import { Simulator } from '../hw-sim/sim.ts';
import { bundleText } from '../test/firmware/harness.ts';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
};

async function device(journal: boolean): Promise<Simulator> {
  if (journal) return boot(chipWith());
  const sim = new Simulator({ chip: chipWith(), bundle: await bundleText(), journal: false, ledgerSectors: 16 });
  await sim.boot();
  return sim;
}

export default async function (): Promise<Record<string, number>> {
  const on = await device(true);
  const off = await device(false);
  const codes = Array.from({ length: 81 }, (_, i) => ticket({ number: 700 + i, prizeEur: i % 3 === 0 ? 150 : 0 }));
  const times: Record<'on' | 'off', number[]> = { on: [], off: [] };
  for (const [i, c] of codes.entries()) {
    for (const [name, sim] of (i % 2
      ? [
          ['on', on],
          ['off', off],
        ]
      : [
          ['off', off],
          ['on', on],
        ]) as ['on' | 'off', Simulator][]) {
      const c0 = process.cpuUsage();
      await scanSerial(sim, c);
      const cpu = process.cpuUsage(c0);
      if (i >= 5) times[name].push((cpu.user + cpu.system) / 1000);
      await sim.press('C');
    }
  }
  const journaled = on.periph!.logs.some((l) => /journal/.test(l));
  on.dispose();
  off.dispose();
  if (journaled) throw new Error('the journal failed during the bench');
  return {
    counter_scan_to_verdict_journal_cpu_ms_median: median(times.on),
    counter_scan_to_verdict_no_journal_cpu_ms_median: median(times.off),
    counter_scan_to_verdict_journal_ratio: median(times.on) / median(times.off),
  };
}
