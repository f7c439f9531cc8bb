// The prebuilt `saphir` command: an esbuild bundle of host/cli.ts, split so that each command is a
// chunk loaded when it runs, in node_modules/.cache/saphir-cli/. Built by `npm run build`, by `prepare`
// (npm ci) and by test/run.mjs; `node tools/cli-bundle.mjs` builds it by hand.
// meta.json holds the stamp (mtime, size) of every source in it: bin/saphir.mjs runs the bundle only
// when every stamp still matches, else the sources through tsx, so a stale bundle never runs.
// Plain JavaScript: bin/saphir.mjs reads it before anything can compile TypeScript.
import { readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ownUrlPlugin, stamp } from './own-url.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLI_CACHE = join(ROOT, 'node_modules', '.cache', 'saphir-cli');
const ENTRY = join(ROOT, 'host', 'cli.ts');
/** Bumped when the bundle options change, so that older bundles are rebuilt. */
const FORMAT = 3;
/**
 * Packages bundled in (their ES module build), the others left in node_modules: loading yaml's ~70
 * CommonJS files cost each `saphir` process that reads a scenario ~50 ms of CPU. Its files are stamped as
 * the sources are, so an upgrade rebuilds the bundle.
 */
const BUNDLED = { yaml: join(ROOT, 'node_modules', 'yaml', 'browser', 'index.js') };

/** The bundle's entry if it is current (every source unchanged since it was built), else null. */
export function freshCliBundle(cache = CLI_CACHE) {
  let meta;
  try {
    meta = JSON.parse(readFileSync(join(cache, 'meta.json'), 'utf8'));
  } catch {
    return null;
  }
  // Another checkout's bundle (node_modules copied or linked from it) holds that checkout's code.
  if (meta.format !== FORMAT || meta.root !== ROOT) return null;
  for (const [path, mtime, size] of meta.inputs) {
    const s = stamp(path);
    if (s === null || s[0] !== mtime || s[1] !== size) return null;
  }
  return join(cache, meta.dir, 'cli.mjs');
}

/**
 * Builds the bundle of `entry` in `cache` unless it is current; returns its entry. Safe while other
 * processes run it: each build is a new folder, and meta.json names it once it is whole.
 */
export async function buildCliBundle(cache = CLI_CACHE, entry = ENTRY) {
  const current = freshCliBundle(cache);
  if (current) return current;
  const { build } = await import('esbuild');
  const inputs = [];
  const dir = `b${Date.now().toString(36)}-${process.pid}`;
  const tmp = join(cache, `${dir}.tmp`);
  await build({
    entryPoints: { cli: entry },
    bundle: true,
    splitting: true,
    outdir: tmp,
    outExtension: { '.js': '.mjs' },
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    plugins: [packagesExternalBut(BUNDLED), ownUrlPlugin((path, s) => inputs.push([path, ...s]))],
  });
  renameSync(tmp, join(cache, dir));
  const meta = join(cache, 'meta.json');
  writeFileSync(`${meta}.${process.pid}.tmp`, JSON.stringify({ format: FORMAT, root: ROOT, dir, inputs }));
  renameSync(`${meta}.${process.pid}.tmp`, meta);
  // Older builds go, but the one before this (a running command may still load its chunks).
  const old = readdirSync(cache)
    .filter((f) => f.startsWith('b') && f !== dir && !f.endsWith('.tmp'))
    .sort()
    .slice(0, -1);
  for (const f of old) rmSync(join(cache, f), { recursive: true, force: true });
  return join(cache, dir, 'cli.mjs');
}

/** esbuild's `packages: 'external'`, but for the packages of `bundled` (name → its entry file). */
function packagesExternalBut(bundled) {
  return {
    name: 'packages-external-but',
    setup(b) {
      // A bare specifier (a package, or node:…), not a path.
      b.onResolve({ filter: /^[^./]/ }, (args) =>
        Object.hasOwn(bundled, args.path) ? { path: bundled[args.path] } : { external: true },
      );
    },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildCliBundle();
}
