// The heap budgets of the device class (tools/build.ts, docs/firmware.md "Device class and budgets") on
// the real bundle in QuickJS: the whole ledger partition filled to capacity, booted, scanned (a paid
// ticket, a win refused as the ledger is full, an X report reading every payment), and the text path
// on a young ledger, and the camera path after its first frame, on a young ledger and on a full one, and
// the text path and the full ledger on a fleet device (a registry configured, an operator notice on flash). `npm run build` checks the same (build.mjs).
// The full ledgers (~8 s of CPU) run in the long tier (heap-full.long.ts); `npm run bench` measures them all.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bundleText } from './harness.ts';
import { longTest } from '../helpers.ts';
import { cameraPathHeap, fullLedgerHeap, registryPathHeap, textPathHeap } from '../../hw-sim/heap-budget.ts';
import {
  BUDGET_HEAP_CAMERA,
  BUDGET_HEAP_CAMERA_FULL_LEDGER,
  BUDGET_HEAP_FULL_LEDGER,
  BUDGET_HEAP_REGISTRY,
  BUDGET_HEAP_REGISTRY_FULL_LEDGER,
  BUDGET_HEAP_TEXT,
  DEVICE_HEAP,
  HEAP_TARGET,
} from '../../tools/build.ts';

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

longTest('full ledger: heap peak within its budget', async () => {
  const f = await fullLedgerHeap(await bundleText());
  console.log(`full ledger (${f.payments} payments): heap peak ${kib(f.peak)} (target ${kib(HEAP_TARGET)})`);
  assert.is(f.payments, 25_908);
  assert.match(f.screen, /PRÊT/);
  assert.ok(f.peak <= BUDGET_HEAP_FULL_LEDGER, `heap peak ${kib(f.peak)} over ${kib(BUDGET_HEAP_FULL_LEDGER)}`);
});

test('text path: heap peak within its budget', async () => {
  const f = await textPathHeap(await bundleText());
  console.log(`text path: heap peak ${kib(f.peak)} (target ${kib(HEAP_TARGET)})`);
  assert.ok(f.peak <= BUDGET_HEAP_TEXT, `heap peak ${kib(f.peak)} over ${kib(BUDGET_HEAP_TEXT)}`);
});

test('camera path after its first frame: heap peak within its budget', async () => {
  const f = await cameraPathHeap(await bundleText());
  console.log(`camera path: heap peak ${kib(f.peak)} (boot ${kib(f.boot)})`);
  assert.is(f.screen, 'GAGNANT | PERDANT | DÉJÀ PAYÉ | GAGNANT', 'the four frames read');
  assert.ok(f.peak <= BUDGET_HEAP_CAMERA, `heap peak ${kib(f.peak)} over ${kib(BUDGET_HEAP_CAMERA)}`);
});

longTest(
  'fleet device, camera path on a full ledger (the largest state): heap peak within its budget, inside the device',
  async () => {
    const f = await cameraPathHeap(await bundleText(), 'quickjs', undefined, true, true);
    console.log(
      `fleet device, camera path, full ledger (${f.payments} payments): heap peak ${kib(f.peak)} (device ${kib(DEVICE_HEAP)})`,
    );
    assert.is(f.screen, 'GAGNANT | PERDANT | DÉJÀ PAYÉ | GAGNANT', 'the four frames read');
    assert.ok(BUDGET_HEAP_CAMERA_FULL_LEDGER <= DEVICE_HEAP);
    assert.ok(
      f.peak <= BUDGET_HEAP_CAMERA_FULL_LEDGER,
      `heap peak ${kib(f.peak)} over ${kib(BUDGET_HEAP_CAMERA_FULL_LEDGER)}`,
    );
  },
);

test('fleet device (a registry, a notice): every win claimed and paid, a sync; heap peak within its budget', async () => {
  const f = await registryPathHeap(await bundleText());
  console.log(`text path with a registry: heap peak ${kib(f.peak)} (boot ${kib(f.boot)})`);
  assert.is(f.payments, 30, 'every win granted by the registry and paid');
  assert.match(f.screen, /PRÊT/);
  assert.ok(f.peak <= BUDGET_HEAP_REGISTRY, `heap peak ${kib(f.peak)} over ${kib(BUDGET_HEAP_REGISTRY)}`);
});

longTest('fleet device with a full ledger: heap peak within its budget', async () => {
  const f = await fullLedgerHeap(await bundleText(), 'quickjs', undefined, true);
  console.log(`full ledger with a registry: heap peak ${kib(f.peak)} (target ${kib(HEAP_TARGET)})`);
  assert.is(f.payments, 25_908);
  assert.match(f.screen, /PRÊT/);
  assert.ok(
    f.peak <= BUDGET_HEAP_REGISTRY_FULL_LEDGER,
    `heap peak ${kib(f.peak)} over ${kib(BUDGET_HEAP_REGISTRY_FULL_LEDGER)}`,
  );
});

test('every heap budget but the camera path on a full ledger is within HEAP_TARGET (issue #34), that one within the device', () => {
  for (const [what, b] of [
    ['text path', BUDGET_HEAP_TEXT],
    ['full ledger', BUDGET_HEAP_FULL_LEDGER],
    ['camera path', BUDGET_HEAP_CAMERA],
    ['fleet device', BUDGET_HEAP_REGISTRY],
    ['fleet device, full ledger', BUDGET_HEAP_REGISTRY_FULL_LEDGER],
  ] as const)
    assert.ok(b <= HEAP_TARGET, `${what}: budget ${kib(b)} over the target ${kib(HEAP_TARGET)}`);
  assert.ok(BUDGET_HEAP_CAMERA_FULL_LEDGER <= DEVICE_HEAP);
});

test.run();
