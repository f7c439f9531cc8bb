// Runs the real `saphir` command (bin/saphir.mjs) as a child process.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../helpers.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `env` adds to the environment; the language is French unless `env` sets LANG (or --lang says). */
export function saphir(args: string[], input?: string | Uint8Array, env: Record<string, string> = {}): CliResult {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'saphir.mjs'), ...args], {
    cwd: ROOT,
    input,
    maxBuffer: 256 << 20,
    env: { ...process.env, SAPHIR_DEBUG: '', LANG: 'C.UTF-8', LC_ALL: '', LC_MESSAGES: '', ...env },
  });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

/** No JavaScript stack trace leaked to the user. */
export function noStack(s: string): boolean {
  return !/\n\s+at .+[:(]/.test(s) && !/Error:/.test(s);
}
