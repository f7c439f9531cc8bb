// Runs the real `saphir` command: as a child process (bin/saphir.mjs), waited for (`saphir`) or not
// (`saphirAsync`, while this process serves it a device), or in this process (`saphirIn`: a test of what a
// command says, where the process itself is not what is tested).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ROOT } from '../helpers.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const BIN = join(ROOT, 'bin', 'saphir.mjs');
/** What a command's environment changes from the test's: no debug traces, French unless `env` says. */
const cliVars = (env: Record<string, string>): Record<string, string> => ({
  SAPHIR_DEBUG: '',
  LANG: 'C.UTF-8',
  LC_ALL: '',
  LC_MESSAGES: '',
  ...env,
});
const cliEnv = (env: Record<string, string>) => ({ ...process.env, ...cliVars(env) });

/** `env` adds to the environment; the language is French unless `env` sets LANG (or --lang says). */
export function saphir(
  args: string[],
  input?: string | Uint8Array,
  env: Record<string, string> = {},
  cwd = ROOT,
): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    input,
    maxBuffer: 256 << 20,
    env: cliEnv(env),
  });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

/**
 * `saphir ARGS…` in a child process without blocking this one (a device this process simulates answers
 * it meanwhile, or two run side by side). `input`: its stdin (none without). `tty`: run on a pseudo-terminal
 * by util-linux `script` (stdout and stderr both arrive on stdout). Killed after `timeoutMs` (default 30 s).
 */
export function saphirAsync(
  args: string[],
  opts: { timeoutMs?: number; tty?: boolean; input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const argv = [process.execPath, BIN, ...args];
    const stdin = opts.input === undefined ? 'ignore' : 'pipe';
    const o = { cwd: ROOT, env: cliEnv({}), stdio: [stdin, 'pipe', 'pipe'] as ['ignore' | 'pipe', 'pipe', 'pipe'] };
    const p = opts.tty
      ? spawn('script', ['-qfec', argv.map((a) => JSON.stringify(a)).join(' '), '/dev/null'], o)
      : spawn(argv[0], argv.slice(1), o);
    if (opts.input !== undefined) p.stdin!.end(opts.input);
    let stdout = '';
    let stderr = '';
    p.stdout!.on('data', (d) => (stdout += d));
    p.stderr!.on('data', (d) => (stderr += d));
    const t = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 30000);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** No JavaScript stack trace leaked to the user. */
/**
 * `saphir ARGS…` with stdin from `stdinFile` (or none) and a reader that closes stdout after the first
 * bytes (`saphir … | head -c 1`): its exit code (null if it had to be killed after 60 s) and stderr.
 */
export async function readerGoesAway(
  args: string[],
  stdinFile?: string,
): Promise<{ code: number | null; stderr: string }> {
  const stdin = stdinFile ? openSync(stdinFile, 'r') : 'ignore';
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: cliEnv({}), stdio: [stdin, 'pipe', 'pipe'] });
  if (typeof stdin === 'number') closeSync(stdin);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  await new Promise((r) => child.stdout!.once('data', r));
  child.stdout!.destroy();
  const code = await new Promise<number | null>((resolve) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(null);
    }, 60_000);
    child.on('exit', (c) => {
      clearTimeout(t);
      resolve(c);
    });
  });
  return { code, stderr };
}

export function noStack(s: string): boolean {
  return !/\n\s+at .+[:(]/.test(s) && !/Error:/.test(s);
}

/**
 * `saphir ARGS…` in this process: the binary's `main` without a Node start-up (about 0.3 s of CPU a
 * call), capturing what it writes. As `saphir` runs it: the same environment (`env` added), `input` as
 * its stdin (none: an empty one), `cwd` as its folder. For a command that neither waits for a signal nor
 * asks whether it writes to a terminal; its exit code is `main`'s return, which bin/saphir.mjs sets.
 * A process still for: a variable a module reads once (SAPHIR_XS_ABSENT, SAPHIR_CRYPTO: the answer would stay
 * in this worker), and a `cwd` for a command that starts worker threads (they import tsx from there).
 */
export async function saphirIn(
  args: string[],
  input?: string | Uint8Array,
  env: Record<string, string> = {},
  cwd?: string,
): Promise<CliResult> {
  const { main } = await import('../../host/cli.ts');
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const stdin = Object.getOwnPropertyDescriptor(process, 'stdin')!;
  const vars = cliVars(env);
  const saved = Object.keys(vars).map((k) => [k, process.env[k]] as const);
  const dir = process.cwd();
  let stdout = '';
  let stderr = '';
  // Bytes (gen writes its codes so) read as the child's output is, UTF-8.
  const text = (s: string | Uint8Array) => (typeof s === 'string' ? s : Buffer.from(s).toString('utf8'));
  process.stdout.write = ((s: string | Uint8Array) => ((stdout += text(s)), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string | Uint8Array) => ((stderr += text(s)), true)) as typeof process.stderr.write;
  Object.assign(process.env, vars);
  const bytes = input === undefined ? [] : [Buffer.from(input)];
  Object.defineProperty(process, 'stdin', { value: Readable.from(bytes), configurable: true, enumerable: true });
  if (cwd) process.chdir(cwd);
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    process.chdir(dir);
    Object.defineProperty(process, 'stdin', stdin);
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    process.stdout.write = out;
    process.stderr.write = err;
  }
}
