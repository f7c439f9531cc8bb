// Core figures: SPH1 checks per second (noble, node:crypto, libsodium; one thread), and the real CLI on
// a full block: `saphir gen --full` to a temp file, then `saphir audit` of that file, with the host's
// library (libsodium when sodium-native loads). The same run compares it with the node:crypto path
// (SAPHIR_CRYPTO=node) on a tenth of a block, both libraries on the same tickets, back to back.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blockGenerator } from '../src/gen/index.ts';
import { fromHex } from '../src/hex.ts';
import { checkCode } from '../src/sph1/check.ts';
import { testKeyRing, TEST_KEY_SEED_HEX } from '../src/sph1/keys.ts';
import { nobleVerify, type Verifier } from '../src/crypto/ed25519.ts';
import { HOST_CRYPTO, nodeSign, nodeVerify } from '../tools/node-crypto.ts';
import { sodium } from '../tools/sodium.ts';
import { ROOT } from '../tools/paths.ts';
import { RangeEncoder } from '../src/node/workers/gen-core.ts';

const BIN = join(ROOT, 'bin', 'saphir.mjs');

function codes(count: number): string[] {
  const enc = new RangeEncoder(blockGenerator('bench', 1, 1), { keyId: 0, seed: fromHex(TEST_KEY_SEED_HEX) }, nodeSign);
  return Buffer.from(enc.encode(0, count)).toString('latin1').trimEnd().split('\n');
}

/** Codes checked per second over at least `seconds`. */
function checksPerSecond(list: string[], verify: Verifier, seconds: number): number {
  const opts = { keys: testKeyRing(), verify };
  for (let i = 0; i < 20; i++) checkCode(list[i], opts);
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < seconds * 1000) {
    for (let i = 0; i < list.length; i++)
      if (checkCode(list[i], opts).status === 'invalid') throw new Error('bench code refused');
    n += list.length;
    t = performance.now();
  }
  return Math.round(n / ((t - t0) / 1000));
}

/** utime + stime of a live process and its reaped children, in seconds (Linux /proc), or -1. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14–17 of proc(5): utime stime cutime cstime, here at 11–14 after pid, comm and state.
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return -1;
  }
}

/**
 * Runs the CLI with stdout to `out` (or ignored): wall seconds, CPU seconds (all threads, sampled every
 * 200 ms, so within 0.2 s) and the exit code. The CPU figure tells a busy machine from a slow program.
 */
function timeCli(
  args: string[],
  out: string | null,
  env: Record<string, string> = {},
): Promise<{ s: number; cpu: number; code: number }> {
  const fd = out ? openSync(out, 'w') : 'ignore';
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ['ignore', fd, 'inherit'],
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let cpu = 0;
    const poll = setInterval(() => {
      const c = cpuSeconds(child.pid!);
      if (c >= 0) cpu = c;
    }, 200);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(poll);
      if (typeof fd === 'number') closeSync(fd);
      resolve({ s: (performance.now() - t0) / 1000, cpu, code: code ?? -1 });
    });
  });
}

export default async function (): Promise<Record<string, number>> {
  const list = codes(400);
  const noble = checksPerSecond(list.slice(0, 100), nobleVerify, 3);
  const node = checksPerSecond(list, nodeVerify, 3);
  const libsodium = sodium ? checksPerSecond(list, sodium.verify, 3) : NaN;
  const dir = mkdtempSync(join(tmpdir(), 'saphir-bench-'));
  const file = join(dir, 'block.txt');
  try {
    const g = await timeCli(['gen', '--emission', '1', '--block', '1', '--full'], file);
    if (g.code !== 0) throw new Error(`saphir gen exited ${g.code}`);
    const size = statSync(file).size;
    if (size !== 3_000_000 * 165) throw new Error(`saphir gen wrote ${size} bytes`);
    const a = await timeCli(['audit', file], null);
    if (a.code !== 0) throw new Error(`saphir audit of a generated full block exited ${a.code}`);
    // A tenth of a block with each library, same tickets, back to back.
    const part = join(dir, 'part.txt');
    const tenth = ['gen', '--emission', '1', '--block', '1', '--from', '0', '--count', '300000'];
    const gNode = await timeCli(tenth, part, { SAPHIR_CRYPTO: 'node' });
    const gHost = await timeCli(tenth, part);
    const aNode = await timeCli(['audit', part], null, { SAPHIR_CRYPTO: 'node' });
    const aHost = await timeCli(['audit', part], null);
    if (aNode.code !== 1 || aHost.code !== 1)
      throw new Error('audit of a tenth of a block must report it incomplete (exit 1)');
    return {
      check_codes_per_s_noble: noble,
      check_codes_per_s_node_crypto: node,
      check_codes_per_s_sodium: libsodium,
      // 1 when gen and audit ran on libsodium (sodium-native), 0 on node:crypto.
      core_bench_crypto_sodium: HOST_CRYPTO === 'sodium-native' ? 1 : 0,
      gen_full_block_s: Math.round(g.s * 10) / 10,
      gen_full_block_cpu_s: Math.round(g.cpu * 10) / 10,
      audit_full_block_s: Math.round(a.s * 10) / 10,
      audit_full_block_cpu_s: Math.round(a.cpu * 10) / 10,
      gen_tenth_block_s_node_crypto: Math.round(gNode.s * 100) / 100,
      gen_tenth_block_s: Math.round(gHost.s * 100) / 100,
      gen_ratio_vs_node_crypto: Math.round((gHost.s / gNode.s) * 1000) / 1000,
      audit_tenth_block_s_node_crypto: Math.round(aNode.s * 100) / 100,
      audit_tenth_block_s: Math.round(aHost.s * 100) / 100,
      audit_ratio_vs_node_crypto: Math.round((aHost.s / aNode.s) * 1000) / 1000,
      // The same ratios in CPU seconds (all threads): steadier than wall time on a busy machine.
      gen_ratio_vs_node_crypto_cpu: Math.round((gHost.cpu / gNode.cpu) * 1000) / 1000,
      audit_ratio_vs_node_crypto_cpu: Math.round((aHost.cpu / aNode.cpu) * 1000) / 1000,
      // The 1-minute load average at the end: above the core count, the wall times above are inflated.
      core_bench_load_avg: Math.round(loadavg()[0] * 100) / 100,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
