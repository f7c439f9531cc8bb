// Worker threads from an esbuild bundle of their TypeScript entry (packages left to node_modules),
// cached in node_modules/.cache/saphir-workers/ and rebuilt when a bundled source changed. Registering
// tsx in a thread (boot.mjs) costs about 0.2 s of CPU; a bundled worker starts in about 0.03 s. `gen`
// and `audit` start two per run, which their `node:crypto` comparison (bench/core.bench.ts) counts.
import { mkdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ROOT } from '../../tools/paths.ts';
import { ownUrlPlugin, stamp } from '../../tools/own-url.mjs';
import { startWorkers } from '../../tools/worker-pool.ts';
import { writeWhole } from '../../tools/write-whole.ts';

export const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'saphir-workers');
/** Bumped when the bundle options change, so that older bundles are rebuilt. */
const FORMAT = 1;

interface Meta {
  format: number;
  /** Every bundled source: absolute path → [mtime ms, size]. */
  inputs: Record<string, [number, number]>;
}

function fresh(metaPath: string): boolean {
  let meta: Meta;
  try {
    meta = JSON.parse(readFileSync(metaPath, 'utf8')) as Meta;
  } catch {
    return false;
  }
  if (meta.format !== FORMAT) return false;
  return Object.entries(meta.inputs).every(([p, [mtime, size]]) => {
    const s = stamp(p);
    return s !== null && s[0] === mtime && s[1] === size;
  });
}

/**
 * The path of a current bundle of `script` (an ES module) in `cacheDir`, built if missing or stale.
 * `import.meta.url` keeps each source's own URL, so `createRequire(import.meta.url)` still resolves.
 */
export async function workerBundle(script: URL, cacheDir = CACHE_DIR): Promise<string> {
  const entry = fileURLToPath(script);
  const name = basename(entry).replace(/\.[cm]?ts$/, '');
  const out = join(cacheDir, `${name}.mjs`);
  const metaPath = join(cacheDir, `${name}.json`);
  if (fresh(metaPath) && stamp(out) !== null) return out;
  const inputs: Meta['inputs'] = {};
  // Loaded only to build: esbuild's API is most of what a cache hit would otherwise load.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
    plugins: [ownUrlPlugin((path, s) => (inputs[path] = s))],
  });
  mkdirSync(cacheDir, { recursive: true });
  // Whole files only: another process may be starting workers from the same cache.
  writeWhole(out, result.outputFiles[0].text);
  writeWhole(metaPath, JSON.stringify({ format: FORMAT, inputs } satisfies Meta));
  return out;
}

/**
 * `startWorkers` (pool.ts) from a bundle: `count` workers of `script`, each with `data`. Where the cache
 * cannot be written (a read-only install), the workers register tsx instead, slower to start.
 */
export async function startBundledWorkers(
  script: URL,
  count: number,
  data: Record<string, unknown>,
): Promise<Worker[]> {
  let path: string;
  try {
    path = await workerBundle(script);
  } catch {
    return startWorkers(script, count, data);
  }
  const workers: Worker[] = [];
  for (let i = 0; i < count; i++) workers.push(new Worker(path, { workerData: { ...data, script: script.href } }));
  return workers;
}
