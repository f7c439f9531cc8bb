// One of test/run.mjs's workers (started as `node --import tsx --import ./test/guard.mjs test/worker.mjs`): runs
// the test files the runner sends over IPC, one at a time, the way uvu's CLI runs them (UVU_DEFER, one queue
// slot per file), and ends each file's output with one line the runner reads:
// "\x01done {file, total, passed, skipped, ms, cpuMs}". uvu/run imports every file before running any; here a file
// is imported and run before the next, so its time is its own.
import { pathToFileURL } from 'node:url';
import kleur from 'kleur';
import { procCpu } from './proc-cpu.mjs';
import { orphaned } from './procs.mjs';

process.env.FORCE_COLOR ??= '1'; // what uvu's CLI sets (its --color default), for the tests' children too
globalThis.UVU_DEFER = 1;
const { test: defaultSuite } = await import('uvu'); // creates globalThis.UVU_QUEUE

/** CPU seconds of this process and its reaped children (the CLI runs a test spawns). */
const cpu = () => procCpu();
const write = (text) => new Promise((resolve) => process.stdout.write(text, () => resolve()));
let slot = 0;

/**
 * Each test of uvu's default suite (`test`, which the helpers' `longTest` and `requireTool` register on
 * too; a file's own `suite()` is not timed): [name, wall ms, CPU ms] into `timed`. Its `test.run()` clears
 * the suite's hooks, so they are set again before the next file that may use it.
 */
let timed = [];
let hooked = false;
const runSuite = defaultSuite.run;
defaultSuite.run = () => {
  runSuite();
  hooked = false;
};
function timeTests() {
  if (hooked) return;
  hooked = true;
  let t0 = 0;
  let c0 = 0;
  defaultSuite.before.each(() => {
    t0 = performance.now();
    c0 = cpu();
  });
  defaultSuite.after.each((ctx) => {
    timed.push([ctx.__test__, Math.round(performance.now() - t0), Math.round((cpu() - c0) * 1000)]);
  });
}

async function runFile(file, name) {
  const started = performance.now();
  const cpu0 = cpu();
  const i = slot++;
  globalThis.UVU_INDEX = i;
  globalThis.UVU_QUEUE[i] = [];
  let total = 0;
  let passed = 0;
  let skipped = 0;
  timed = [];
  await write(kleur.bold().underline().white(name) + '\n');
  try {
    timeTests();
    await import(pathToFileURL(file).href);
    for (const run of globalThis.UVU_QUEUE[i]) {
      const [errs, ran, skips, max] = await run();
      total += max;
      passed += ran;
      skipped += skips;
      if (errs.length) await write('\n' + errs + '\n');
    }
  } catch (e) {
    // The file did not load (or a suite threw outside its tests): one failure, the other files still run.
    total += 1;
    await write(`\n  ${kleur.bold().bgRed(' FAIL ')} ${name} did not load: ${(e && e.stack) || e}\n`);
  }
  globalThis.UVU_QUEUE[i] = [];
  const ms = Math.round(performance.now() - started);
  const cpuMs = Math.round((cpu() - cpu0) * 1000);
  await write(`\n\x01done ${JSON.stringify({ file: name, total, passed, skipped, ms, cpuMs, tests: timed })}\n`);
}

process.on('message', (m) => {
  if (m && m.file) {
    // (test/run.mjs FIRMWARE_FREE: tools/build-stale.ts throws on a question about the build)
    if (m.firmwareFree) process.env.SAPHIR_TEST_NO_FIRMWARE = '1';
    else delete process.env.SAPHIR_TEST_NO_FIRMWARE;
    void runFile(m.file, m.name);
  } else if (m && m.exit) process.exit();
});
// The runner gone (killed, or its output closed: `npm test | head`): nobody reads this worker's results.
process.on('disconnect', orphaned);
process.send({ ready: true });
