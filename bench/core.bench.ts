// Core figures: SPH1 checks per second (noble, node:crypto, libsodium; one thread), and the real CLI,
// `saphir gen` to a temp file then `saphir audit` of it, with the host's library (libsodium when
// sodium-native loads) and with the node:crypto path (SAPHIR_CRYPTO=node), back to back on the same
// tickets: a tenth of a block and a hundredth, from which a full block is extrapolated.
// SAPHIR_BENCH_FULL_BLOCK=1 also runs a real full block (gen_full_block_s, audit_full_block_s).
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { blockGenerator } from '../src/gen/index.ts';
import { fromHex } from '../src/hex.ts';
import { checkCode } from '../src/sph1/check.ts';
import { BODY_LENGTH, SIGNING_CONTEXT } from '../src/sph1/body.ts';
import { testKeyRing, TEST_KEY_SEED_HEX } from '../src/sph1/keys.ts';
import { nobleVerify, type Signer, type Verifier } from '../src/crypto/ed25519.ts';
import { sign } from 'node:crypto';
import { HOST_CRYPTO, nodeCryptoSign, nodeCryptoVerify, nodeSign, privateKeyObject } from '../tools/node-crypto.ts';
import { sodium } from '../tools/sodium.ts';
import { ROOT } from '../tools/paths.ts';
import { RangeEncoder } from '../host/workers/gen-core.ts';

const BIN = join(ROOT, 'bin', 'saphir.mjs');
const CPU_AT_EXIT = pathToFileURL(join(ROOT, 'bench', 'cpu-at-exit.mjs')).href;

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

/**
 * CPU µs per Ed25519 sign and verify with each library, in this one thread, on the same ticket
 * messages: the floor under gen's and audit's ratios (every other cost is shared by both paths).
 */
function primitives(): Record<string, number> {
  const seed = fromHex(TEST_KEY_SEED_HEX);
  const key = testKeyRing().get(0)!;
  // 64 messages of a signed ticket's length (context + body).
  const len = SIGNING_CONTEXT.length + BODY_LENGTH;
  const msgs = Array.from({ length: 64 }, (_, i) => Uint8Array.from({ length: len }, (_v, j) => (i * 31 + j) & 0xff));
  const cpuUs = (f: (i: number) => void, n: number) => {
    for (let i = 0; i < 200; i++) f(i);
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) f(i);
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / n;
  };
  const sigs = (s: Signer) => msgs.map((m) => s(m, seed));
  // Signing as gen does, the key bound once (tools/node-crypto.ts signerOf): node:crypto's KeyObject,
  // libsodium's secret key and reused signature buffer.
  const nodeKey = privateKeyObject(seed);
  const out: Record<string, number> = {
    ed25519_sign_us_node_crypto: r2(cpuUs((i) => sign(null, msgs[i & 63], nodeKey), 20_000)),
  };
  const nSigs = sigs(nodeCryptoSign);
  out.ed25519_verify_us_node_crypto = r2(cpuUs((i) => nodeCryptoVerify(nSigs[i & 63], msgs[i & 63], key), 8_000));
  if (sodium) {
    const so = sodium;
    const soSign = so.signerOf(seed);
    out.ed25519_sign_us_sodium = r2(cpuUs((i) => soSign(msgs[i & 63]), 20_000));
    out.ed25519_verify_us_sodium = r2(cpuUs((i) => so.verify(nSigs[i & 63], msgs[i & 63], key), 8_000));
    out.ed25519_sign_ratio_sodium_vs_node_crypto = r3(out.ed25519_sign_us_sodium / out.ed25519_sign_us_node_crypto);
    out.ed25519_verify_ratio_sodium_vs_node_crypto = r3(
      out.ed25519_verify_us_sodium / out.ed25519_verify_us_node_crypto,
    );
  }
  return out;
}

/**
 * Runs the CLI with stdout to `out` (or ignored): wall seconds, CPU seconds (all threads, workers
 * included, read by bench/cpu-at-exit.mjs as the process exits) and the exit code. The CPU figure
 * tells a busy machine from a slow program.
 */
function timeCli(
  args: string[],
  out: string | null,
  env: Record<string, string> = {},
): Promise<{ s: number; cpu: number; code: number }> {
  const fd = out ? openSync(out, 'w') : 'ignore';
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', CPU_AT_EXIT, BIN, ...args, '--quiet'], {
      stdio: ['ignore', fd, 'inherit', 'pipe'],
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let cpu = '';
    child.stdio[3]!.on('data', (d: Buffer) => (cpu += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (typeof fd === 'number') closeSync(fd);
      resolve({ s: (performance.now() - t0) / 1000, cpu: Number(cpu) / 1e6, code: code ?? -1 });
    });
  });
}

/** The same CLI run on each path: node:crypto (SAPHIR_CRYPTO=node), then the host's library. */
async function bothPaths(args: string[], out: string | null) {
  const node = await timeCli(args, out, { SAPHIR_CRYPTO: 'node' });
  const host = await timeCli(args, out);
  return { node, host };
}

const BLOCK = 3_000_000;
/** The two sizes the full block is extrapolated from: a tenth of a block, and a hundredth. */
const BIG = 300_000;
const SMALL = 30_000;

/**
 * A full block's time from two sizes: the per-ticket part, (big − small) / (BIG − SMALL), times the
 * block, plus the fixed part (start-up, workers) that the small run leaves.
 */
function extrapolate(small: number, big: number): number {
  const per = (big - small) / (BIG - SMALL);
  return small - SMALL * per + BLOCK * per;
}

const r1 = (x: number) => Math.round(x * 10) / 10;
const r2 = (x: number) => Math.round(x * 100) / 100;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

export default async function (): Promise<Record<string, number>> {
  const list = codes(400);
  const noble = checksPerSecond(list.slice(0, 100), nobleVerify, 3);
  const node = checksPerSecond(list, nodeCryptoVerify, 3);
  const libsodium = sodium ? checksPerSecond(list, sodium.verify, 3) : NaN;
  const dir = mkdtempSync(join(tmpdir(), 'saphir-bench-'));
  const figures: Record<string, number> = {
    check_codes_per_s_noble: noble,
    check_codes_per_s_node_crypto: node,
    check_codes_per_s_sodium: libsodium,
    // 1 when gen and audit ran on libsodium (sodium-native), 0 on node:crypto.
    core_bench_crypto_sodium: HOST_CRYPTO === 'sodium-native' ? 1 : 0,
    ...primitives(),
  };
  try {
    // Each size with each library, back to back, so that both see the same load.
    const range = (n: number) => ['gen', '--emission', '1', '--block', '1', '--from', '0', '--count', String(n)];
    const big = join(dir, 'big.txt');
    const small = join(dir, 'small.txt');
    const gBig = await bothPaths(range(BIG), big);
    const gSmall = await bothPaths(range(SMALL), small);
    for (const [f, n] of [
      [big, BIG],
      [small, SMALL],
    ] as const) {
      if (statSync(f).size !== n * 165) throw new Error(`saphir gen wrote ${statSync(f).size} bytes for ${n} tickets`);
    }
    const aBig = await bothPaths(['audit', big], null);
    const aSmall = await bothPaths(['audit', small], null);
    for (const r of [aBig.node, aBig.host, aSmall.node, aSmall.host])
      if (r.code !== 1) throw new Error('audit of part of a block must report it incomplete (exit 1)');
    const full = {
      gen: { node: extrapolate(gSmall.node.s, gBig.node.s), host: extrapolate(gSmall.host.s, gBig.host.s) },
      genCpu: { node: extrapolate(gSmall.node.cpu, gBig.node.cpu), host: extrapolate(gSmall.host.cpu, gBig.host.cpu) },
      audit: { node: extrapolate(aSmall.node.s, aBig.node.s), host: extrapolate(aSmall.host.s, aBig.host.s) },
      auditCpu: {
        node: extrapolate(aSmall.node.cpu, aBig.node.cpu),
        host: extrapolate(aSmall.host.cpu, aBig.host.cpu),
      },
    };
    Object.assign(figures, {
      // A tenth of a block, start-up included, with each library.
      gen_tenth_block_s_node_crypto: r2(gBig.node.s),
      gen_tenth_block_s: r2(gBig.host.s),
      gen_ratio_vs_node_crypto: r3(gBig.host.s / gBig.node.s),
      audit_tenth_block_s_node_crypto: r2(aBig.node.s),
      audit_tenth_block_s: r2(aBig.host.s),
      audit_ratio_vs_node_crypto: r3(aBig.host.s / aBig.node.s),
      // The same ratios in CPU seconds (all threads): steadier than wall time on a busy machine.
      gen_ratio_vs_node_crypto_cpu: r3(gBig.host.cpu / gBig.node.cpu),
      audit_ratio_vs_node_crypto_cpu: r3(aBig.host.cpu / aBig.node.cpu),
      // A full block extrapolated from a tenth and a hundredth (see `extrapolate`), each library.
      gen_full_block_s_extrapolated: r1(full.gen.host),
      gen_full_block_cpu_s_extrapolated: r1(full.genCpu.host),
      gen_full_block_s_extrapolated_node_crypto: r1(full.gen.node),
      gen_full_block_ratio_vs_node_crypto: r3(full.gen.host / full.gen.node),
      gen_full_block_ratio_vs_node_crypto_cpu: r3(full.genCpu.host / full.genCpu.node),
      audit_full_block_s_extrapolated: r1(full.audit.host),
      audit_full_block_cpu_s_extrapolated: r1(full.auditCpu.host),
      audit_full_block_s_extrapolated_node_crypto: r1(full.audit.node),
      audit_full_block_ratio_vs_node_crypto: r3(full.audit.host / full.audit.node),
      audit_full_block_ratio_vs_node_crypto_cpu: r3(full.auditCpu.host / full.auditCpu.node),
      // CPU microseconds a ticket (gen) or a code (audit) beyond the fixed start-up, all threads.
      gen_cpu_us_per_ticket: r2(((gBig.host.cpu - gSmall.host.cpu) / (BIG - SMALL)) * 1e6),
      gen_cpu_us_per_ticket_node_crypto: r2(((gBig.node.cpu - gSmall.node.cpu) / (BIG - SMALL)) * 1e6),
      audit_cpu_us_per_code: r2(((aBig.host.cpu - aSmall.host.cpu) / (BIG - SMALL)) * 1e6),
      audit_cpu_us_per_code_node_crypto: r2(((aBig.node.cpu - aSmall.node.cpu) / (BIG - SMALL)) * 1e6),
    });
    if (process.env.SAPHIR_BENCH_FULL_BLOCK === '1') {
      // The real CLI on a real full block, once (minutes on a busy machine).
      const file = join(dir, 'block.txt');
      const g = await timeCli(['gen', '--emission', '1', '--block', '1', '--full'], file);
      if (g.code !== 0) throw new Error(`saphir gen exited ${g.code}`);
      const size = statSync(file).size;
      if (size !== BLOCK * 165) throw new Error(`saphir gen wrote ${size} bytes`);
      const a = await timeCli(['audit', file], null);
      if (a.code !== 0) throw new Error(`saphir audit of a generated full block exited ${a.code}`);
      Object.assign(figures, {
        gen_full_block_s: r1(g.s),
        gen_full_block_cpu_s: r1(g.cpu),
        audit_full_block_s: r1(a.s),
        audit_full_block_cpu_s: r1(a.cpu),
      });
    }
    // The 1-minute load average at the end: above the core count, the wall times above are inflated.
    figures.core_bench_load_avg = r2(loadavg()[0]);
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
