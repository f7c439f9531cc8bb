// Is firmware/dist current? (`staleReason`, `isStale`, `ensureBuiltSync`): apart from tools/build.ts so that
// what runs the firmware (the CLI's sim and demo, the explorer's workers) does not load esbuild and
// TypeScript (tools/mangle.ts) for that question: ~0.5 s of CPU at each start. A stale build still runs
// tools/build.ts, in a child process.
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, relative, sep } from 'node:path';
import { ROOT, DIST, BUNDLE_PATH, IMAGE_PATH, CORE_PATH } from './paths.ts';
import { writeWhole } from './write-whole.ts';

/** Why firmware/dist needs building: an output is missing, or a source (relative path) is newer. */
export type StaleReason = { missing: string } | { newer: string };

/** The files whose times decide staleness: everything under firmware/ and src/ but dist. */
const SOURCE_DIRS = ['firmware', 'src'];
const SOURCE_FILES = [
  'package.json',
  'package-lock.json',
  'build.mjs',
  'tools/build.ts',
  'tools/mangle.ts',
  'tools/pack-text.ts',
  'tools/paths.ts',
  'tools/node-crypto.ts',
];

/** Null when firmware/dist (or the build outputs `outputs`) is current, else why not (the first newer source found). */
export function staleReason(outputs = [BUNDLE_PATH, IMAGE_PATH, CORE_PATH]): StaleReason | null {
  // test/run.mjs runs firmware-free files beside build-stale.long.ts (which touches a source): one that asks
  // about the build there fails here instead of racing that file's rebuilds.
  if (process.env.SAPHIR_TEST_NO_FIRMWARE)
    throw new Error('this test file uses the firmware build: take it out of FIRMWARE_FREE in test/run.mjs');
  for (const p of outputs) if (!existsSync(p)) return { missing: relative(ROOT, p) };
  const built = Math.min(...outputs.map((p) => statSync(p).mtimeMs));
  const newer = (dir: string): string | null => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (p === DIST) continue;
        const n = newer(p);
        if (n) return n;
      } else if (/\.(ts|js|mjs|json)$/.test(e.name) && statSync(p).mtimeMs > built) {
        return p;
      }
    }
    return null;
  };
  // The hosts decide names the build keeps (tools/mangle.ts).
  const hosts = readdirSync(join(ROOT, 'hw-sim'))
    .filter((f) => /host.*\.ts$/.test(f))
    .map((f) => `hw-sim/${f}`);
  for (const f of [...SOURCE_FILES, ...hosts]) {
    const p = join(ROOT, f);
    if (existsSync(p) && statSync(p).mtimeMs > built) return { newer: f };
  }
  for (const d of SOURCE_DIRS) {
    const n = newer(join(ROOT, d));
    if (n) return { newer: relative(ROOT, n).split(sep).join('/') };
  }
  return null;
}

/** True when the bundle, image or core variant is missing or older than a source that goes in. */
export function isStale(): boolean {
  return staleReason() !== null;
}

/** `ensureBuilt` for synchronous callers: the build runs in a child process (`npm run build -- --no-heap`). */
export function ensureBuiltSync(onBuild?: (why: StaleReason) => void): string {
  const why = staleReason();
  if (why) {
    onBuild?.(why);
    // (the heap budgets are the tests' job here: test/firmware/heap-full.test.ts)
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'build.mjs'), '--no-heap'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (r.status !== 0 || !existsSync(BUNDLE_PATH)) {
      throw new Error(`firmware build failed:\n${(r.stderr || r.stdout || '').slice(-2000)}`);
    }
  }
  return BUNDLE_PATH;
}

/** Where `hostEd25519Bundle` keeps its build (a cache, not a build output). */
export const HOST_BUNDLE_PATH = join(ROOT, 'node_modules', '.cache', 'saphir-fw', 'saphir-fw-host.js');

/**
 * The shipped bundle's host-Ed25519 build (the explorer's v8 runs; tools/build.ts `hostEd25519Bundle`),
 * kept in HOST_BUNDLE_PATH while no source that goes into firmware/dist is newer: building it loads esbuild
 * and TypeScript, ~2.5 s of CPU in each process that explores (a test file, `saphir sim --explore`).
 */
export async function hostEd25519Bundle(): Promise<string> {
  if (staleReason([HOST_BUNDLE_PATH]) === null) return readFileSync(HOST_BUNDLE_PATH, 'utf8');
  const started = new Date();
  const text = await (await import('./build.ts')).hostEd25519Bundle();
  mkdirSync(dirname(HOST_BUNDLE_PATH), { recursive: true });
  writeWhole(HOST_BUNDLE_PATH, text);
  // Dated when the build began: a source saved while it ran makes it stale.
  utimesSync(HOST_BUNDLE_PATH, started, started);
  return text;
}
