// `saphir registry serve` as a real child process, for the tests that run the CLI beside it.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../helpers.ts';

export interface Served {
  child: ChildProcess;
  url: string;
  out(): string;
  err(): string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

/** Starts `saphir registry serve ARGS… --port 0 --lang en`; resolves once it listens (rejects if it exits). */
export function serve(args: string[]): Promise<Served> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'saphir.mjs'), 'registry', 'serve', ...args, '--port', '0', '--lang', 'en'],
    { cwd: ROOT, env: { ...process.env, SAPHIR_DEBUG: '' } },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (err += b));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  return new Promise<Served>((resolve, reject) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve: no URL in 60 s: ${out} ${err}`));
    }, 60_000);
    void closed.then((code) => {
      clearTimeout(t);
      reject(new Error(`serve exited (${code}): ${out} ${err}`));
    });
    child.stdout.on('data', () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (!m) return;
      clearTimeout(t);
      resolve({
        child,
        url: m[1],
        out: () => out,
        err: () => err,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          return closed;
        },
      });
    });
  });
}
