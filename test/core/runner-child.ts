// test/run.mjs started as a child by the runner's own tests (runner-*.long.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT } from '../helpers.ts';

/** This worker's environment but its channel to its own runner (a child given it would talk on it). */
export const { NODE_CHANNEL_FD: _fd, NODE_CHANNEL_SERIALIZATION_MODE: _mode, ...runnerEnv } = process.env;

/** `node test/run.mjs ARGS…` with `extra` in its environment, colours off: the child, and its exit code and output. */
export function startRunner(
  args: string[],
  extra: Record<string, string>,
): { runner: ChildProcess; done: Promise<{ code: number | null; out: string }> } {
  const runner = spawn(process.execPath, ['test/run.mjs', ...args], {
    cwd: ROOT,
    env: { ...runnerEnv, FORCE_COLOR: '0', ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  runner.stdout!.on('data', (b) => (out += b));
  runner.stderr!.on('data', (b) => (out += b));
  const done = new Promise<{ code: number | null; out: string }>((resolve) =>
    runner.on('close', (code) => resolve({ code, out })),
  );
  return { runner, done };
}
