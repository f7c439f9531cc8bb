// The firmware on Moddable XS (hw-sim/xs-host.ts) beside QuickJS, in one run: scan → verdict on the same
// codes (each code scanned on QuickJS then XS: the ratio is of one moment of a shared machine), camera VGA
// frame → verdict, and XS's own meters (docs/firmware.md, "Engines"). Wall time: XS runs in its own
// process, whose CPU this process's cpuUsage does not count.
import { boot, bundleText, chipWith, scanSerial, showFrame, ticket } from '../test/firmware/harness.ts';
import { qrFrame } from '../test/input/helpers.ts';
import { XS_INSTALL, xsnapWorker, type XsDevice } from '../hw-sim/xs-host.ts';
import type { Simulator } from '../hw-sim/sim.ts';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function timed(f: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

export default async function (): Promise<Record<string, number>> {
  const worker = xsnapWorker();
  if ('missing' in worker) {
    const why = `XS engine unavailable: ${worker.missing}; ${XS_INSTALL}`;
    if (process.env.SAPHIR_TEST_STRICT === '1') throw new Error(`${why} (SAPHIR_TEST_STRICT=1 requires it)`);
    process.stderr.write(`bench xs: skipped, ${why}\n`);
    return {};
  }
  const bundle = await bundleText();
  const qjs = await boot(chipWith(), { bundle });
  const xsBoot0 = performance.now();
  const xs = await boot(chipWith(), { bundle, variant: 'xs' });
  const xsBootMs = performance.now() - xsBoot0;
  const meters = () => (xs.vm as XsDevice).meters;
  const codes = Array.from({ length: 41 }, (_, i) => ticket({ number: 500 + i, prizeEur: i % 3 === 0 ? 150 : 0 }));
  for (const c of codes.slice(0, 3)) for (const sim of [qjs, xs]) await scanSerial(sim, c);
  const q: number[] = [];
  const x: number[] = [];
  let allocate = 0;
  let slots = 0;
  let compute = 0;
  for (const c of codes) {
    q.push(await timed(() => scanSerial(qjs, c)));
    x.push(await timed(() => scanSerial(xs, c)));
    allocate = Math.max(allocate, meters().allocate);
    slots = Math.max(slots, meters().currentHeapCount);
    compute = Math.max(compute, meters().compute);
    for (const sim of [qjs, xs]) await sim.press('C');
  }
  const cam = async (sim: Simulator) => {
    const ms: number[] = [];
    for (let i = 0; i < 5; i++) {
      const frame = qrFrame(ticket({ number: 900 + i, prizeEur: i % 2 ? 150 : 0 }), { x: 30 + 25 * i, y: 20 + 12 * i });
      await sim.run(4000);
      const before = sim.screens.length;
      const t = await timed(() => showFrame(sim, frame));
      if (sim.screens.length > before) ms.push(t);
      await sim.press('C');
    }
    return ms;
  };
  const camQ = await cam(qjs);
  const camX = await cam(xs);
  const faults = xs.faults.length;
  qjs.dispose();
  xs.dispose();
  return {
    xs_boot_ms: xsBootMs,
    xs_scan_to_verdict_ms_median: median(x),
    xs_qjs_scan_to_verdict_ms_median: median(q),
    xs_scan_ratio_vs_qjs: median(x) / median(q),
    xs_camera_vga_ms_median: camX.length ? median(camX) : NaN,
    xs_camera_vga_decoded: camX.length,
    xs_camera_ratio_vs_qjs: camX.length && camQ.length ? median(camX) / median(camQ) : NaN,
    xs_allocate_kib_max: allocate / 1024,
    xs_heap_slots_max: slots,
    xs_compute_max: compute,
    xs_faults: faults,
  };
}
