// Firmware figures, on the real bundle in QuickJS (quickjs-emscripten release-sync) through the test
// HAL device: scan → verdict time, heap peak on the text path, camera VGA frame → verdict, boot time,
// bundle sizes. Targets: docs/firmware.md.
import { readFileSync } from 'node:fs';
import { QjsDevice } from '../hw-sim/qjs-host.ts';
import { TestDevice } from '../test/firmware/test-device.ts';
import { bundleText, chipWith, ticket } from '../test/firmware/harness.ts';
import { CORE_PATH, DIST } from '../tools/paths.ts';
import { VM_LIMITS } from '../hw-sim/sim.ts';
import { join } from 'node:path';
import { qrFrame } from '../test/input/helpers.ts';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function start(bundle: string, ledgerSectors = 16) {
  const chip = chipWith();
  const td = new TestDevice({ chip, ledgerSectors });
  const vm = await QjsDevice.start({ bundle, device: td.device, ...VM_LIMITS });
  return { td, vm };
}

/** Peak heap over a text session: scans of every kind, payments, keys. */
async function heapPeak(bundle: string): Promise<number> {
  const { td, vm } = await start(bundle);
  let peak = vm.heapUsed();
  for (let i = 0; i < 120; i++) {
    const kind = i % 4;
    td.scanSerial(
      kind === 0 ? 'garbage' : ticket({ number: 1000 + i, prizeEur: kind === 1 ? 0 : kind === 2 ? 150 : 500 }),
    );
    peak = Math.max(peak, vm.heapUsed());
    td.press(kind === 2 ? 'OK' : 'C');
    peak = Math.max(peak, vm.heapUsed());
  }
  vm.dispose();
  return peak;
}

export default async function (): Promise<Record<string, number>> {
  const bundle = await bundleText();
  const core = readFileSync(CORE_PATH, 'utf8');
  const size = JSON.parse(readFileSync(join(DIST, 'size.json'), 'utf8'));

  // Warm the WASM engine (first-run tier-up), then boot on the real 1 MiB ledger partition.
  (await start(bundle)).vm.dispose();
  const boots: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const { vm } = await start(bundle, 0);
    boots.push(performance.now() - t);
    vm.dispose();
  }

  const { td, vm } = await start(bundle);
  const codes = Array.from({ length: 61 }, (_, i) => ticket({ number: 500 + i, prizeEur: i % 3 === 0 ? 150 : 0 }));
  for (const c of codes.slice(0, 5)) td.scanSerial(c);
  const scans: number[] = [];
  for (const c of codes) {
    const t = performance.now();
    td.scanSerial(c);
    scans.push(performance.now() - t);
    td.press('C');
  }
  // Wall and CPU time of this thread (QuickJS runs synchronously here): CPU is steadier on a busy machine.
  const cams: number[] = [];
  const camsCpu: number[] = [];
  for (let i = 0; i < 15; i++) {
    const frame = qrFrame(ticket({ number: 900 + i, prizeEur: i % 2 ? 150 : 0 }), { x: 30 + 25 * i, y: 20 + 12 * i });
    td.time.advance(4000);
    const before = td.screens.length;
    const c = process.cpuUsage();
    const t = performance.now();
    td.cameras[0].push(frame);
    const ms = performance.now() - t;
    const cpu = process.cpuUsage(c);
    if (td.screens.length > before) {
      cams.push(ms);
      camsCpu.push((cpu.user + cpu.system) / 1000);
    }
    td.press('C');
  }
  vm.dispose();

  return {
    qjs_scan_to_verdict_ms_median: median(scans),
    qjs_heap_peak_kib: (await heapPeak(bundle)) / 1024,
    qjs_heap_peak_core_kib: (await heapPeak(core)) / 1024,
    qjs_camera_vga_ms_median: cams.length ? median(cams) : NaN,
    qjs_camera_vga_cpu_ms_median: camsCpu.length ? median(camsCpu) : NaN,
    qjs_camera_vga_decoded: cams.length,
    qjs_boot_ms: median(boots),
    fw_bundle_kib: size.bundle_bytes / 1024,
    fw_core_kib: size.core_bytes / 1024,
  };
}
