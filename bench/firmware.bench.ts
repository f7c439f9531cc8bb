// Firmware figures, on the real bundle in QuickJS (quickjs-emscripten release-sync) on hw-sim's
// device (a Simulator, the firmware tests' harness): scan → verdict time (injected, and end to end on a
// 115 200-baud serial line), heap peak on the text path, camera VGA frame → verdict, boot time,
// bundle sizes. Targets: docs/firmware.md.
import { readFileSync } from 'node:fs';
import { boot, bundleText, chipWith, scanSerial, showFrame, ticket } from '../test/firmware/harness.ts';
import type { Simulator } from '../hw-sim/sim.ts';
import { CORE_PATH, DIST } from '../tools/paths.ts';
import { join } from 'node:path';
import { qrFrame } from '../test/input/helpers.ts';
import { serialTransmit } from '../hw-sim/scanners/serial.ts';
import { build } from 'esbuild';
import { FIRMWARE_ESBUILD, slim } from '../tools/build.ts';
import { getQuickJS } from 'quickjs-emscripten';
import { evaluator } from './qjs-eval.ts';
import { nodeSign } from '../tools/node-crypto.ts';
import { cameraPathHeap, fullLedgerHeap, registryPathHeap, textPathHeap } from '../hw-sim/heap-budget.ts';
import { functionSourceBytes } from '../hw-sim/function-source.ts';
import { existsSync } from 'node:fs';
import { fromHex, toHex } from '../src/hex.ts';
import { TEST_KEY_SEED_HEX, TEST_PUBLIC_KEY_HEX } from '../src/sph1/keys.ts';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The bundle booted on a fresh chip (`ledgerSectors` 0: the real 1 MiB ledger partition). */
const start = (bundle: string, ledgerSectors = 16) => boot(chipWith(), { bundle, ledgerSectors });

/**
 * The heap and size figures of a firmware/dist directory: the budgets' heap peaks (and the camera path on a full ledger;
 * a fleet device: a registry configured, a notice on flash, on a young and on a full ledger) (hw-sim/heap-budget.ts), the sizes of size.json, the function sources QuickJS keeps.
 */
async function heapAndSizes(dist: string, suffix = ''): Promise<Record<string, number>> {
  const bundle = readFileSync(join(dist, 'saphir-fw.js'), 'utf8');
  const size = JSON.parse(readFileSync(join(dist, 'size.json'), 'utf8'));
  return {
    [`qjs_heap_peak_kib${suffix}`]: (await textPathHeap(bundle)).peak / 1024,
    [`qjs_heap_full_ledger_kib${suffix}`]: (await fullLedgerHeap(bundle)).peak / 1024,
    // the camera path after its first frame, on a young ledger (the build's budget) and on a full one
    [`qjs_heap_camera_kib${suffix}`]: (await cameraPathHeap(bundle)).peak / 1024,
    [`qjs_heap_camera_full_ledger_kib${suffix}`]:
      (await cameraPathHeap(bundle, 'quickjs', undefined, true)).peak / 1024,
    // the largest state: a fleet device's camera path on a full ledger
    [`qjs_heap_fleet_camera_full_ledger_kib${suffix}`]:
      (await cameraPathHeap(bundle, 'quickjs', undefined, true, true)).peak / 1024,
    [`qjs_heap_registry_kib${suffix}`]: (await registryPathHeap(bundle)).peak / 1024,
    [`qjs_heap_registry_full_ledger_kib${suffix}`]:
      (await fullLedgerHeap(bundle, 'quickjs', undefined, true)).peak / 1024,
    [`fw_bundle_kib${suffix}`]: size.bundle_bytes / 1024,
    [`fw_core_kib${suffix}`]: size.core_bytes / 1024,
    [`fw_function_source_kib${suffix}`]: functionSourceBytes(bundle).bytes / 1024,
  };
}

/**
 * SAPHIR_BENCH_BEFORE=ROOT (a worktree of an earlier commit, built: its firmware/dist is read): the same
 * heap and size figures of that bundle too, suffixed `_before`, measured in this run
 * between two measurements of the current one (the figure kept is the current one's lower peak; both
 * runs boot fresh simulators, nothing of the VM is shared; the bundle texts are read once).
 */
export async function heapBeforeAfter(): Promise<Record<string, number>> {
  const now = await heapAndSizes(DIST);
  const root = process.env.SAPHIR_BENCH_BEFORE;
  if (!root) return now;
  const dir = join(root, 'firmware', 'dist');
  if (!existsSync(join(dir, 'saphir-fw.js'))) throw new Error(`SAPHIR_BENCH_BEFORE: no saphir-fw.js in ${dir}`);
  const before = await heapAndSizes(dir, '_before');
  const again = await heapAndSizes(DIST);
  for (const k of ['qjs_heap_peak_kib', 'qjs_heap_full_ledger_kib']) now[k] = Math.min(now[k], again[k]);
  return { ...now, ...before };
}

/** Peak heap over a text session: scans of every kind, payments, keys. */
async function heapPeak(bundle: string, device = true): Promise<number> {
  const sim = await start(bundle);
  const heap = () => (device ? sim.heapDevice() : sim.heapUsed());
  let peak = heap();
  for (let i = 0; i < 120; i++) {
    const kind = i % 4;
    await scanSerial(
      sim,
      kind === 0 ? 'garbage' : ticket({ number: 1000 + i, prizeEur: kind === 1 ? 0 : kind === 2 ? 150 : 500 }),
    );
    peak = Math.max(peak, heap());
    await sim.press(kind === 2 ? 'OK' : 'C');
    peak = Math.max(peak, heap());
  }
  sim.dispose();
  return peak;
}

/**
 * The device's verify beside noble's own, in one QuickJS run (same engine as the device), alternating
 * per signature, each call timed in CPU time of this thread (steadier than wall time on a busy machine).
 */
export async function verifyVsNoble(): Promise<{ device: number; noble: number; noblePatched: number }> {
  const resolveDir = new URL('..', import.meta.url).pathname;
  // The device's verify built as the firmware is (its SHA-512, its own arithmetic); noble's own verify as
  // published, and as the firmware's size patches build it (tools/build.ts `slim`: the small SHA-512, no
  // class field declarations in Point). Three bundles, one engine, the same signatures, alternating.
  const nobleEntry = (name: string) => ({
    contents: `import { nobleVerify } from './src/crypto/ed25519.ts';
globalThis.${name} = { nobleVerify };`,
    resolveDir,
    loader: 'ts' as const,
  });
  const [mine, stock, patched] = await Promise.all([
    build({
      ...FIRMWARE_ESBUILD,
      stdin: {
        contents: `import { deviceVerify, prepareVerify } from './firmware/verify.ts';
globalThis.V = { deviceVerify, prepareVerify };`,
        resolveDir,
        loader: 'ts',
      },
      plugins: [slim],
      write: false,
    }),
    build({ ...FIRMWARE_ESBUILD, stdin: nobleEntry('N'), write: false }),
    build({ ...FIRMWARE_ESBUILD, stdin: nobleEntry('P'), plugins: [slim], write: false }),
  ]);
  const vm = (await getQuickJS()).newContext();
  const ev = evaluator(vm);
  ev(mine.outputFiles[0].text);
  ev(stock.outputFiles[0].text);
  ev(patched.outputFiles[0].text);
  ev('V.nobleVerify = N.nobleVerify; V.noblePatched = P.nobleVerify;');
  const seed = fromHex(TEST_KEY_SEED_HEX);
  const sigs = Array.from({ length: 41 }, (_, i) => {
    const m = Uint8Array.from({ length: 42 }, (_, j) => (i * 31 + j) & 255);
    return [toHex(nodeSign(m, seed)), toHex(m)];
  });
  ev(`const H = (h) => Uint8Array.from({ length: h.length / 2 }, (_, i) => parseInt(h.substr(2 * i, 2), 16));
globalThis.PUB = H('${TEST_PUBLIC_KEY_HEX}');
globalThis.SIGS = ${JSON.stringify(sigs)}.map(([s, m]) => [H(s), H(m)]);
V.prepareVerify([PUB]);
globalThis.run = (f, i) => { if (!V[f](SIGS[i][0], SIGS[i][1], PUB)) throw new Error(f + ' refused ' + i); };`);
  ev('run("nobleVerify", 0); run("noblePatched", 0); run("deviceVerify", 0)'); // noble builds its table of B on first use
  const cpu = (code: string) => {
    const c = process.cpuUsage();
    ev(code);
    const d = process.cpuUsage(c);
    return (d.user + d.system) / 1000;
  };
  const device: number[] = [];
  const noble: number[] = [];
  const noblePatched: number[] = [];
  for (let i = 1; i < sigs.length; i++) {
    device.push(cpu(`run("deviceVerify", ${i})`));
    noble.push(cpu(`run("nobleVerify", ${i})`));
    noblePatched.push(cpu(`run("noblePatched", ${i})`));
  }
  vm.dispose();
  return { device: median(device), noble: median(noble), noblePatched: median(noblePatched) };
}

/**
 * The same scans on the serial line at 115 200 baud (8N1, the UART's 16-byte FIFO: hw-sim/scanners/serial.ts),
 * end to end from the first byte on the line to the verdict: the line's time (virtual ms, to the last
 * byte) plus the device's work once the last chunk is in (CPU time of the run that takes it); its work on
 * the earlier chunks (a few µs of decoding each) is done while the line still brings the next ones.
 */
export async function serialEndToEnd(sim: Simulator, codes: string[]): Promise<{ e2e: number; line: number }> {
  const lineMs: number[] = [];
  const e2e: number[] = [];
  for (const c of codes) {
    const tx = serialTransmit(c, { baud: 115200 });
    const last = tx.deliveries[tx.deliveries.length - 1].t;
    const before = sim.screens.length;
    sim.transmit(tx);
    await sim.run(last - 0.01);
    const c0 = process.cpuUsage();
    await sim.run(0.02);
    const cpu = process.cpuUsage(c0);
    if (sim.screens.length === before)
      throw new Error('firmware bench: no verdict after the last byte at 115 200 baud');
    lineMs.push(last);
    e2e.push(last + (cpu.user + cpu.system) / 1000);
    await sim.press('C');
  }
  return { e2e: median(e2e), line: median(lineMs) };
}

export default async function (): Promise<Record<string, number>> {
  const bundle = await bundleText();
  const core = readFileSync(CORE_PATH, 'utf8');

  // Warm the WASM engine (first-run tier-up), then boot on the real 1 MiB ledger partition.
  (await start(bundle)).dispose();
  const boots: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const sim = await start(bundle, 0);
    boots.push(performance.now() - t);
    sim.dispose();
  }

  const sim = await start(bundle);
  const codes = Array.from({ length: 61 }, (_, i) => ticket({ number: 500 + i, prizeEur: i % 3 === 0 ? 150 : 0 }));
  for (const c of codes.slice(0, 5)) await scanSerial(sim, c);
  const scans: number[] = [];
  const scansCpu: number[] = [];
  for (const c of codes) {
    const c0 = process.cpuUsage();
    const t = performance.now();
    await scanSerial(sim, c);
    scans.push(performance.now() - t);
    const cpu = process.cpuUsage(c0);
    scansCpu.push((cpu.user + cpu.system) / 1000);
    await sim.press('C');
  }
  const line = await serialEndToEnd(sim, codes);
  // Wall and CPU time of this thread (QuickJS runs synchronously here): CPU is steadier on a busy machine.
  const cams: number[] = [];
  const camsCpu: number[] = [];
  for (let i = 0; i < 15; i++) {
    const frame = qrFrame(ticket({ number: 900 + i, prizeEur: i % 2 ? 150 : 0 }), { x: 30 + 25 * i, y: 20 + 12 * i });
    await sim.run(4000);
    const before = sim.screens.length;
    const c = process.cpuUsage();
    const t = performance.now();
    await showFrame(sim, frame);
    const ms = performance.now() - t;
    const cpu = process.cpuUsage(c);
    if (sim.screens.length > before) {
      cams.push(ms);
      camsCpu.push((cpu.user + cpu.system) / 1000);
    }
    await sim.press('C');
  }
  sim.dispose();

  const v = await verifyVsNoble();
  return {
    qjs_verify_ms_median: v.device,
    qjs_verify_noble_ms_median: v.noblePatched,
    // Against noble built with the device's size patches (the fair comparison), and as published.
    qjs_verify_ratio_vs_noble: v.device / v.noblePatched,
    qjs_verify_noble_unpatched_ms_median: v.noble,
    qjs_verify_ratio_vs_noble_unpatched: v.device / v.noble,
    qjs_scan_to_verdict_ms_median: median(scans),
    qjs_scan_to_verdict_cpu_ms_median: median(scansCpu),
    qjs_scan_to_verdict_115200_ms_median: line.e2e,
    qjs_scan_to_verdict_115200_line_ms: line.line,
    ...(await heapBeforeAfter()),
    // The text path's peak (qjs_heap_peak_kib, hw-sim/heap-budget.ts) with the debug line tables the simulator's QuickJS keeps and a device strips.
    qjs_heap_peak_with_debug_kib: (await heapPeak(bundle, false)) / 1024,
    qjs_heap_peak_core_kib: (await heapPeak(core)) / 1024,
    qjs_camera_vga_ms_median: cams.length ? median(cams) : NaN,
    qjs_camera_vga_cpu_ms_median: camsCpu.length ? median(camsCpu) : NaN,
    qjs_camera_vga_decoded: cams.length,
    qjs_boot_ms: median(boots),
  };
}
