// Runs the real `saphir` command: as a child process (bin/saphir.mjs), or in this process (`saphirIn`).
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

/**
 * Runs `saphir ARGS…` in this process (same code as the binary, minus the Node start-up), capturing
 * what it writes to stdout and stderr.
 */
export async function saphirIn(args: string[]): Promise<CliResult> {
  const { main } = await import('../../src/node/cli.ts');
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  let stdout = '';
  let stderr = '';
  process.stdout.write = ((s: string | Uint8Array) => ((stdout += String(s)), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string | Uint8Array) => ((stderr += String(s)), true)) as typeof process.stderr.write;
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}
