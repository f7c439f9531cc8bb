// Ledger figures on the device's ledger partition (rom/layout.ts): the mirrored ledger (two logs,
// src/ledger/mirror.ts): capacity in payments, time of a payment and of opening a full ledger, in Node
// and in QuickJS (the firmware's engine), and the RAM the indexes need when full. Chip time is modelled
// by hw-sim/nor-flash.ts TYPICAL_TIMING (W25Q32JV typical: 4 KiB erase 45 ms, page program 0.4 ms).
import { build } from 'esbuild';
import { FIRMWARE_ESBUILD, ROOT } from '../tools/build.ts';
import { ramFlashJs } from '../test/ledger/ram-flash.ts';
import { getQuickJS } from 'quickjs-emscripten';
import { NorFlash } from '../hw-sim/nor-flash.ts';
import { LAYOUT } from '../rom/layout.ts';
import { LedgerFull, MirroredLedger, compactMirrored, type Payment } from '../src/ledger/index.ts';
import { evaluator } from './qjs-eval.ts';

const pay = (i: number): Payment => ({
  emission: 1 + (i % 3),
  block: (i * 7) % 400,
  number: (i * 7919) % 3_000_000,
  prizeEur: 10,
  paidAtMs: 1_780_000_000_000 + i * 30_000,
  deviceId: 'SAPH-000123',
});

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function nodeFigures() {
  const chip = new NorFlash();
  const flash = chip.partition(LAYOUT.ledger.offset, LAYOUT.ledger.size);
  const l = MirroredLedger.open(flash);
  const times: number[] = [];
  let n = 0;
  let worstFlashMs = 0;
  for (;;) {
    const t = performance.now();
    const busy = chip.counters.busyMs;
    try {
      l.record(pay(n));
    } catch (e) {
      if (e instanceof LedgerFull) break;
      throw e;
    }
    times.push(performance.now() - t);
    worstFlashMs = Math.max(worstFlashMs, chip.counters.busyMs - busy);
    n++;
  }
  const fillFlashMs = chip.counters.busyMs;
  const erases = chip.counters.erases;
  const opens: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const again = MirroredLedger.open(flash);
    opens.push(performance.now() - t);
    if (again.count !== n) throw new Error('reopen lost payments');
  }
  const finds: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const p = pay((i * 13) % n);
    const t = performance.now();
    if (!l.find(p)) throw new Error('find failed');
    finds.push(performance.now() - t);
  }
  const indexBytes = l.stats().indexBytes;
  const t = performance.now();
  const busy = chip.counters.busyMs;
  const dropped = compactMirrored(l, (p) => p.emission !== 1);
  const compactMs = performance.now() - t;
  const compactFlashMs = chip.counters.busyMs - busy;
  return {
    ledger_capacity_payments: n,
    ledger_record_ms: median(times),
    ledger_open_ms_full: median(opens),
    ledger_find_us_full: median(finds) * 1000,
    // modelled chip time (hw-sim/nor-flash.ts TYPICAL_TIMING): mean and worst of a payment
    ledger_record_flash_ms_typ: fillFlashMs / n,
    ledger_record_flash_ms_worst: worstFlashMs,
    ledger_compact_third_ms: compactMs,
    ledger_compact_third_flash_ms: compactFlashMs,
    ledger_compact_dropped: dropped,
    ledger_index_kib_full: indexBytes / 1024,
    ledger_sector_erases_filling: erases,
  };
}

// The same in QuickJS: the ledger bundled as the firmware bundles it, over a RAM flash in the VM.
const QJS_ENTRY = `
    import { MirroredLedger as Ledger } from './src/ledger/index.ts';
    ${ramFlashJs(LAYOUT.ledger.size)}
    const pay = (i) => ({ emission: 1 + (i % 3), block: (i * 7) % 400, number: (i * 7919) % 3000000, prizeEur: 10, paidAtMs: 1780000000000 + i * 30000, deviceId: 'SAPH-000123' });
    let l = Ledger.open(flash);
    globalThis.fill = (from, to) => { for (let i = from; i < to; i++) l.record(pay(i)); };
    globalThis.reopen = () => { l = Ledger.open(flash); return l.count; };
    globalThis.one = (i) => { l.record(pay(i)); };
    globalThis.findAll = (n) => { for (let i = 0; i < n; i++) if (!l.find(pay(i))) throw new Error('lost'); };
    globalThis.step = () => l.compactStep((p) => p.emission !== 1).done;
    globalThis.capacity = l.capacity;
    // one sector of the first log lost (erased): open, then copy its payments back from the second
    globalThis.loseAndRepair = (k) => { mem.fill(0xff, k * BL, (k + 1) * BL); l = Ledger.open(flash); return l.repair().length; };
    globalThis.findNone = (n) => { for (let i = 0; i < n; i++) if (l.find(pay(100000 + i))) throw new Error('found'); };
  `;

async function qjsFigures() {
  const out = await build({
    stdin: { contents: QJS_ENTRY, resolveDir: ROOT, loader: 'js' },
    ...FIRMWARE_ESBUILD,
    write: false,
  });
  const QuickJS = await getQuickJS();
  const rt = QuickJS.newRuntime();
  rt.setMemoryLimit(16 * 1024 * 1024);
  const vm = rt.newContext();
  const run = evaluator(vm);
  const heap = () => {
    const h = rt.computeMemoryUsage();
    const u = vm.dump(h) as { memory_used_size: number };
    h.dispose();
    return u.memory_used_size;
  };
  run(out.outputFiles[0].text);
  const capacity = run('capacity') as number;
  const emptyOpens: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    run('reopen()');
    emptyOpens.push(performance.now() - t);
  }
  const heap0 = heap();
  run(`fill(0, ${capacity - 100})`);
  const times: number[] = [];
  for (let i = capacity - 100; i < capacity; i++) {
    const t = performance.now();
    run(`one(${i})`);
    times.push(performance.now() - t);
  }
  const opens: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    if (run('reopen()') !== capacity) throw new Error('QuickJS reopen lost payments');
    opens.push(performance.now() - t);
  }
  const t = performance.now();
  run('findAll(1000)');
  const findMs = (performance.now() - t) / 1000;
  const heapFull = heap();
  const t1 = performance.now();
  if (run('loseAndRepair(5)') !== 102) throw new Error('QuickJS repair: expected the 102 payments of one sector');
  const repairMs = performance.now() - t1;
  const steps: number[] = [];
  for (;;) {
    const t0 = performance.now();
    const done = run('step()');
    steps.push(performance.now() - t0);
    if (done) break;
  }
  vm.dispose();
  rt.dispose();
  return {
    qjs_ledger_record_ms: median(times),
    qjs_ledger_open_ms_empty: median(emptyOpens),
    qjs_ledger_open_ms_full: median(opens),
    qjs_ledger_find_ms_full: findMs,
    // compacting away a third of a full ledger, step by step: CPU time of a step (flash time apart)
    qjs_ledger_compact_step_ms_median: median(steps),
    qjs_ledger_compact_step_ms_max: Math.max(...steps),
    qjs_ledger_compact_steps: steps.length,
    // the VM's heap with the full ledger open minus with it empty (the RAM flash is in both)
    qjs_ledger_heap_kib_full: (heapFull - heap0) / 1024,
    // boot after a lost sector: open both logs and copy its 102 payments back from the other log
    qjs_ledger_open_repair_ms_sector_lost: repairMs,
  };
}

/**
 * SAPHIR_BENCH_BEFORE=ROOT (a worktree of an earlier commit): its ledger and this one in two QuickJS VMs
 * of one run, both filled with the same payments, then three rounds alternating between them, in CPU
 * time of this thread (steadier than wall time on a shared machine): open of a full ledger, 1 000 finds
 * of paid and of unpaid tickets, a sector lost then open and repair. `…_cpu_ms` and `…_cpu_ms_before`.
 */
async function qjsBeforeAfter(): Promise<Record<string, number>> {
  const before = process.env.SAPHIR_BENCH_BEFORE;
  if (!before) return {};
  const QuickJS = await getQuickJS();
  const runs: ((code: string) => unknown)[] = [];
  const disposers: (() => void)[] = [];
  for (const root of [before, ROOT]) {
    const out = await build({
      stdin: { contents: QJS_ENTRY, resolveDir: root, loader: 'js' },
      ...FIRMWARE_ESBUILD,
      write: false,
    });
    const rt = QuickJS.newRuntime();
    rt.setMemoryLimit(32 * 1024 * 1024);
    const vm = rt.newContext();
    const run = evaluator(vm);
    run(out.outputFiles[0].text);
    run('fill(0, capacity)');
    runs.push(run);
    disposers.push(() => (vm.dispose(), rt.dispose()));
  }
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const steps: [string, (round: number) => string][] = [
    ['qjs_ledger_open_full_cpu_ms', () => 'reopen()'],
    ['qjs_ledger_find_paid_x1000_cpu_ms', () => 'findAll(1000)'],
    ['qjs_ledger_find_unpaid_x1000_cpu_ms', () => 'findNone(1000)'],
    ['qjs_ledger_open_repair_sector_lost_cpu_ms', (r) => `loseAndRepair(${[5, 60, 130][r]})`],
  ];
  const got: Record<string, number[]> = {};
  for (let r = 0; r < 3; r++)
    for (const [i, run] of runs.entries())
      for (const [name, code] of steps) {
        const t = cpu();
        run(code(r));
        (got[name + (i === 0 ? '_before' : '')] ??= []).push(cpu() - t);
      }
  for (const d of disposers) d();
  return Object.fromEntries(Object.entries(got).map(([k, v]) => [k, median(v)]));
}

export default async function (): Promise<Record<string, number>> {
  return { ...nodeFigures(), ...(await qjsFigures()), ...(await qjsBeforeAfter()) };
}
