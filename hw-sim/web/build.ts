// npm run build:web: the web simulator as static files in hw-sim/web/dist/ (index.html, page.js, the
// device's worker.js, QuickJS's .wasm, the firmware bundle, the shipped scenarios). `saphir sim --web`
// serves the same files. Nothing is fetched from elsewhere at run time.
import { build as esbuild, type Plugin } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staleReason } from '../../tools/build-stale.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
export const WEB_DIST = join(HERE, 'dist');
const BUNDLE_PATH = join(ROOT, 'firmware', 'dist', 'saphir-fw.js');

/** The firmware bundle, built first when stale (tools/build.ts, loaded only then: it loads TypeScript). */
async function ensureFirmware(): Promise<void> {
  if (staleReason()) await (await import('../../tools/build.ts')).ensureBuilt();
}

/** Packages that need Node (built-ins, native code): none may be in the page's import graph. */
const NODE_ONLY = ['pngjs', 'sodium-native', 'node-hid', 'serialport', '@serialport/', 'pg', '@electric-sql/pglite'];

/**
 * The page shares hw-sim's modules with Node as they are: what differs (crypto, HTTP, the firmware
 * build, files) comes in through hw-sim/host.ts. A Node built-in or a Node-only package anywhere in
 * the page's import graph fails the build, naming the module that imports it. Exported for the tests.
 */
export const browserOnly: Plugin = {
  name: 'browser-only',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.path === 'quickjs-emscripten') return { path: join(HERE, 'qjs-web.ts') };
      if (args.path === '@jitl/quickjs-ng-wasmfile-release-sync') return { path: args.path, external: true };
      const nodeOnly = NODE_ONLY.some((p) => args.path === p || (p.endsWith('/') && args.path.startsWith(p)));
      if (args.path.startsWith('node:') || builtinModules.includes(args.path) || nodeOnly) {
        return {
          errors: [
            { text: `the web simulator must not import '${args.path}' (from ${relative(ROOT, args.importer)})` },
          ],
        };
      }
      return undefined;
    });
  },
};

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'dist' && e.name !== 'node_modules') t = Math.max(t, newestMtime(p));
    } else t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

/** True when dist/ is missing or older than hw-sim/, src/, rom/, firmware/ or the firmware bundle. */
export function isWebStale(outDir = WEB_DIST): boolean {
  const marker = join(outDir, 'index.html');
  if (!existsSync(marker)) return true;
  const built = statSync(marker).mtimeMs;
  const inputs = Math.max(
    newestMtime(join(ROOT, 'hw-sim')),
    newestMtime(join(ROOT, 'src')),
    newestMtime(join(ROOT, 'rom')),
    existsSync(BUNDLE_PATH) ? statSync(BUNDLE_PATH).mtimeMs : Infinity,
  );
  return inputs > built;
}

export interface WebBuild {
  outDir: string;
  /** Bytes of every file the page loads (page, worker, wasm, firmware, html, css). */
  files: Record<string, number>;
}

export async function buildWeb(o: { outDir?: string; quiet?: boolean } = {}): Promise<WebBuild> {
  const outDir = o.outDir ?? WEB_DIST;
  await ensureFirmware();
  mkdirSync(outDir, { recursive: true });
  const common = {
    bundle: true,
    format: 'esm' as const,
    platform: 'browser' as const,
    target: 'es2020',
    minify: true,
    legalComments: 'none' as const,
    logLevel: 'silent' as const,
    plugins: [browserOnly],
  };
  await esbuild({ ...common, entryPoints: [join(HERE, 'worker.ts')], outfile: join(outDir, 'worker.js') });
  await esbuild({ ...common, entryPoints: [join(HERE, 'page.ts')], outfile: join(outDir, 'page.js') });
  const require = createRequire(import.meta.url);
  copyFileSync(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'), join(outDir, 'quickjs.wasm'));
  copyFileSync(BUNDLE_PATH, join(outDir, 'saphir-fw.js'));
  copyFileSync(join(HERE, 'style.css'), join(outDir, 'style.css'));
  const scenarios: Record<string, string> = {};
  const scDir = join(ROOT, 'hw-sim', 'scenarios');
  for (const f of readdirSync(scDir)
    .filter((n) => n.endsWith('.yaml'))
    .sort())
    scenarios[f] = readFileSync(join(scDir, f), 'utf8');
  writeFileSync(join(outDir, 'scenarios.json'), JSON.stringify(scenarios));
  // No fleet registry from a static server; `saphir sim --web --registry` serves its own config.json.
  writeFileSync(join(outDir, 'config.json'), JSON.stringify({ registry: null }));
  // Last: its time marks the build as complete (isWebStale).
  copyFileSync(join(HERE, 'index.html'), join(outDir, 'index.html'));
  const files: Record<string, number> = {};
  for (const f of readdirSync(outDir)) files[f] = statSync(join(outDir, f)).size;
  if (!o.quiet) {
    const total = Object.values(files).reduce((a, b) => a + b, 0);
    process.stdout.write(
      `web simulator: ${relative(process.cwd(), outDir) || '.'}${sep} ${(total / 1024).toFixed(0)} KiB\n`,
    );
    for (const [f, n] of Object.entries(files))
      process.stdout.write(`  ${(n / 1024).toFixed(1).padStart(8)} KiB  ${f}\n`);
  }
  return { outDir, files };
}

/** Builds only when stale (the server, tests and benchmarks call this). */
export async function ensureWebBuilt(): Promise<string> {
  if (isWebStale()) await buildWeb({ quiet: true });
  return WEB_DIST;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildWeb().catch((e) => {
    process.stderr.write(
      `build:web failed: ${e.errors ? e.errors.map((x: { text: string }) => x.text).join('; ') : e.message}\n`,
    );
    process.exit(1);
  });
}
