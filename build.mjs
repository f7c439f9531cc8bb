// npm run build (node --import tsx build.mjs [--production] [--key FILE] [--security-counter N] [--no-heap]): the
// command's entry. The build itself is the typed module tools/build.ts (see it and docs/firmware.md);
// then the heap budgets are checked on the bundle built (hw-sim/heap-budget.ts: the full ledger and
// the text path, the camera path after its first frame on a young and on a full ledger, the text path and
// the full ledger on a fleet device (a registry configured, a notice on flash), in QuickJS, ~25 s), and the build fails over them; `--no-heap` skips that (ensureBuiltSync,
// whose callers are tests: test/firmware/heap-full.test.ts checks the same).
import { readFileSync } from 'node:fs';
import {
  main,
  BUNDLE_PATH,
  BUDGET_HEAP_CAMERA,
  BUDGET_HEAP_CAMERA_FULL_LEDGER,
  BUDGET_HEAP_FULL_LEDGER,
  BUDGET_HEAP_REGISTRY,
  BUDGET_HEAP_REGISTRY_FULL_LEDGER,
  BUDGET_HEAP_TEXT,
} from './tools/build.ts';

const args = process.argv.slice(2);
process.exitCode = await main(args.filter((a) => a !== '--no-heap'));
if (process.exitCode === 0 && !args.includes('--no-heap')) {
  await import('./hw-sim/node-host.ts');
  const { cameraPathHeap, fullLedgerHeap, registryPathHeap, textPathHeap } = await import('./hw-sim/heap-budget.ts');
  const bundle = readFileSync(BUNDLE_PATH, 'utf8');
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  const problems = [];
  for (const [what, f, budget] of [
    ['full ledger', await fullLedgerHeap(bundle), BUDGET_HEAP_FULL_LEDGER],
    ['text path', await textPathHeap(bundle), BUDGET_HEAP_TEXT],
    ['camera path, after its first frame', await cameraPathHeap(bundle), BUDGET_HEAP_CAMERA],
    [
      'fleet device: camera path on a full ledger (the largest state)',
      await cameraPathHeap(bundle, 'quickjs', undefined, true, true),
      BUDGET_HEAP_CAMERA_FULL_LEDGER,
    ],
    ['fleet device (a registry, a notice): text path and a sync', await registryPathHeap(bundle), BUDGET_HEAP_REGISTRY],
    [
      'fleet device: full ledger',
      await fullLedgerHeap(bundle, 'quickjs', undefined, true),
      BUDGET_HEAP_REGISTRY_FULL_LEDGER,
    ],
  ]) {
    console.log(`  heap    ${kib(f.peak).padStart(9)} / ${kib(budget)}  (${what}, peak)`);
    if (f.peak > budget) problems.push(`${what}: heap peak ${f.peak} B exceeds its budget of ${budget} B`);
  }
  if (problems.length) {
    process.stderr.write(`build failed: ${problems.join('; ')}\n`);
    process.exitCode = 1;
  }
}
