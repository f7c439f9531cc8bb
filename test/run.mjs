// Runs the uvu suite (test/**/*.test.ts through tsx) and always ends with one plain summary line that CI
// reads: "N passed, M failed, K skipped (socat not installed: apt-get install socat)".
// `node test/run.mjs` is the quick tier (npm test); `node test/run.mjs --long` runs the long soaks,
// test/**/*.long.ts (npm run test:long). Exit code: uvu's, or 1 when the run stopped before its summary.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const long = process.argv.includes('--long');
const pattern = long ? '\\.long\\.ts$' : '\\.test\\.ts$';
const args = ['--import', 'tsx', '--import', './test/guard.mjs', 'node_modules/uvu/bin.js', 'test', pattern];
// The tests expect the CLI's default language (French): a developer's LANG=en_US must not change it.
const env = { ...process.env, LANG: 'C.UTF-8', LC_ALL: '', LC_MESSAGES: '' };
const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['inherit', 'pipe', 'inherit'] });
let tail = '';
const reasons = new Map();
let partial = '';
let uncaught = 0; // errors test/guard.mjs caught outside any test: each one a failure
child.stdout.setEncoding('utf8'); // whole characters per chunk: the skip lines hold an em dash
child.stdout.on('data', (text) => {
  process.stdout.write(text);
  tail = (tail + text).slice(-4096);
  const lines = (partial + text).split('\n');
  partial = lines.pop();
  for (const line of lines) {
    const m = /^# skip: (.*?) — /.exec(line.replace(/\x1b\[[0-9;]*m/g, ''));
    if (m) reasons.set(m[1], (reasons.get(m[1]) ?? 0) + 1);
    if (line.startsWith('# uncaught: ')) uncaught++;
  }
});
child.on('error', (e) => {
  process.stdout.write(`\n0 passed, 1 failed, 0 skipped (the test runner did not start: ${e.message})\n`);
  process.exitCode = 1;
});
child.on('close', (code, signal) => {
  const plain = tail.replace(/\x1b\[[0-9;]*m/g, '');
  const num = (name) => Number((plain.match(new RegExp(`${name}:\\s+(\\d+)`)) || [])[1] ?? NaN);
  const [total, passed, skipped] = [num('Total'), num('Passed'), num('Skipped')];
  const why = [...reasons.keys()].join('; ');
  if (Number.isFinite(total) && Number.isFinite(passed)) {
    const skips = Number.isFinite(skipped) ? skipped : 0;
    const failed = total - passed + uncaught;
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skips} skipped${why ? ` (${why})` : ''}\n`);
    process.exitCode = failed > 0 ? code || 1 : (code ?? (signal ? 1 : 0));
  } else {
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    process.stdout.write(
      `\nthe test run stopped before its summary (${how}): see the error above; ${Math.max(1, uncaught)} failed\n`,
    );
    process.exitCode = code || 1;
  }
});
