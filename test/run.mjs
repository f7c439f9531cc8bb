// Runs the uvu suite (every test/**/*.test.ts through tsx) and ends with one plain summary line,
// "N passed, M failed", that CI reads; the exit code is uvu's.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = ['--import', 'tsx', 'node_modules/uvu/bin.js', 'test', '\\.test\\.ts$'];
const child = spawn(process.execPath, args, { cwd: root, stdio: ['inherit', 'pipe', 'inherit'] });
let tail = '';
child.stdout.on('data', (b) => {
  process.stdout.write(b);
  tail = (tail + b.toString('utf8')).slice(-4096);
});
child.on('close', (code, signal) => {
  const plain = tail.replace(/\x1b\[[0-9;]*m/g, '');
  const num = (name) => Number((plain.match(new RegExp(`${name}:\\s+(\\d+)`)) || [])[1] ?? NaN);
  const total = num('Total');
  const passed = num('Passed');
  if (Number.isFinite(total) && Number.isFinite(passed)) process.stdout.write(`\n${passed} passed, ${total - passed} failed\n`);
  process.exitCode = code ?? (signal ? 1 : 0);
});
