// The firmware on Moddable XS (hw-sim/xs-host.ts) beside QuickJS, in one run: scan → verdict on the same
// codes (each code scanned on QuickJS then XS: the ratio is of one moment of a shared machine), camera VGA
// frame → verdict, and XS's own meters (docs/firmware.md, "Engines") on the scan path and on the
// budgets' two cases (hw-sim/heap-budget.ts: the text path, the full ledger), QuickJS's peaks of the
// same cases beside them. Wall time: XS runs in its own process, whose CPU this process's cpuUsage does
// not count.
import { boot, bundleText, chipWith, scanSerial, showFrame, ticket } from '../test/firmware/harness.ts';
import { qrFrame } from '../test/input/helpers.ts';
import { XS_INSTALL, XsDevice, xsnapWorker } from '../hw-sim/xs-host.ts';
import type { Simulator } from '../hw-sim/sim.ts';
import { fullLedgerHeap, textPathHeap, type HeapFigure, type HeapProbe } from '../hw-sim/heap-budget.ts';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function timed(f: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

/**
 * XS's meters over one of the budgets' cases, read after the boot and after every step: `allocate`
 * (bytes of the arenas XS reserved), the largest entry's `compute`, the slots in use as metered at the end
 * of an entry (garbage included), and after a garbage collection the live slots and the bytes of the
 * machine as XS writes it in a snapshot (objects, strings, buffers, bytecode, XS's built-ins).
 */
async function xsHeap(run: (probe: HeapProbe) => Promise<HeapFigure>) {
  const m = { allocate: 0, compute: 0, slots: 0, liveSlots: 0, snapshot: 0, screen: '' };
  const fig = await run((sim) => {
    const x = sim.vm as XsDevice;
    m.allocate = Math.max(m.allocate, x.meters.allocate);
    m.compute = Math.max(m.compute, x.meters.compute);
    m.slots = Math.max(m.slots, x.meters.currentHeapCount);
    const live = x.liveHeap();
    if (live) {
      m.liveSlots = Math.max(m.liveSlots, live.slots);
      m.snapshot = Math.max(m.snapshot, live.snapshotBytes);
    }
  });
  m.screen = fig.screen;
  return m;
}

/** The snapshot of an XS machine with the bridge and no firmware: XS's own built-ins, which a device keeps in flash. */
async function emptySnapshot(): Promise<number> {
  const x = await XsDevice.start({ bundle: '0', device: { identity: {} } as never });
  try {
    return x.liveHeap()!.snapshotBytes;
  } finally {
    x.dispose();
  }
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
  // The budgets' cases: XS's meters, and QuickJS's peaks (heapDevice) in the same run.
  const empty = await emptySnapshot();
  const full = await xsHeap((probe) => fullLedgerHeap(bundle, 'xs', probe));
  const text = await xsHeap((probe) => textPathHeap(bundle, 'xs', probe));
  if (!/PRÊT/.test(full.screen) || !/PRÊT/.test(text.screen))
    throw new Error(`XS heap cases: ${full.screen} / ${text.screen}`);
  const qFull = (await fullLedgerHeap(bundle)).peak;
  const qText = (await textPathHeap(bundle)).peak;
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
    // the firmware's heap on XS: the snapshot less an empty machine's (XS's built-ins), against the device's 512 KiB
    xs_heap_full_ledger_kib: (full.snapshot - empty) / 1024,
    xs_heap_text_path_kib: (text.snapshot - empty) / 1024,
    xs_heap_full_ledger_ratio_vs_qjs: (full.snapshot - empty) / qFull,
    xs_heap_text_path_ratio_vs_qjs: (text.snapshot - empty) / qText,
    xs_qjs_heap_full_ledger_kib: qFull / 1024,
    xs_qjs_heap_text_path_kib: qText / 1024,
    xs_empty_machine_kib: empty / 1024,
    xs_live_slots_full_ledger: full.liveSlots,
    xs_live_slots_text_path: text.liveSlots,
    xs_slots_max_full_ledger: full.slots,
    xs_slots_max_text_path: text.slots,
    xs_compute_max_full_ledger: full.compute,
    xs_compute_max_text_path: text.compute,
    xs_allocate_kib_full_ledger: full.allocate / 1024,
  };
}
