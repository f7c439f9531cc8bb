// npm run build (node --import tsx build.mjs [--production] [--key FILE] [--security-counter N]):
// bundles the firmware with esbuild into firmware/dist/saphir-fw.js (one IIFE, ES2020, neutral
// platform, minified, source map) and size.json, checks the size budgets on it and on a camera-less
// variant, then packs and signs firmware/dist/saphir-fw.img (src/image/format.ts).
// The development signing key is the published one; a production key comes from a file named by
// --key or SAPHIR_FW_KEY_FILE, never from the repository. Fails on any Node import in the firmware.
import { build as esbuild } from 'esbuild';
import { builtinModules } from 'node:module';
import {
  mkdirSync,
  readFileSync,
  writeFileSync as writeFileDirect,
  renameSync,
  statSync,
  existsSync,
  readdirSync,
} from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BOARD_ID, DEV_FIRMWARE_SEED_HEX, packImage } from './src/image/format.ts';
import { fromHex } from './src/hex.ts';
import { nodeSign } from './src/node/node-crypto.ts';

export const ROOT = dirname(fileURLToPath(import.meta.url));
export const DIST = join(ROOT, 'firmware', 'dist');
export const BUNDLE_PATH = join(DIST, 'saphir-fw.js');
export const IMAGE_PATH = join(DIST, 'saphir-fw.img');
/** The camera-less variant, written for measurements (heap of a text-only device); not imaged. */
export const CORE_PATH = join(DIST, 'saphir-fw-core.js');
/** The vendored jsQR source the firmware bundles instead of the npm package (firmware/jsqr/README.md). */
export const JSQR_SOURCE = join(ROOT, 'firmware', 'jsqr', 'index.ts');
export const BUDGET_BUNDLE = 160 * 1024;
export const BUDGET_CORE = 64 * 1024;

/** Whole files only: a test or the simulator reading firmware/dist while another process builds never sees half a file. */
function writeFileSync(path, data) {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileDirect(tmp, data);
  renameSync(tmp, path);
}

const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** Refuses Node built-ins and Node-only modules anywhere in the firmware's import graph. */
const portableOnly = {
  name: 'portable-only',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const p = args.path;
      if (p.startsWith('node:') || builtins.has(p) || builtins.has(p.split('/')[0])) {
        return {
          errors: [
            { text: `the firmware must not import the Node built-in '${p}' (from ${relative(ROOT, args.importer)})` },
          ],
        };
      }
      return undefined;
    });
    b.onLoad({ filter: /.*/ }, (args) => {
      const rel = relative(ROOT, args.path).split(sep).join('/');
      if (
        rel.startsWith('src/node/') ||
        rel.startsWith('hw-sim/') ||
        rel.startsWith('test/') ||
        rel.startsWith('bench/')
      ) {
        return { errors: [{ text: `the firmware must not import the Node-only module ${rel}` }] };
      }
      return undefined;
    });
  },
};

/** The core variant: the camera seam resolves to the stub, so jsQR is not bundled. */
const noCamera = {
  name: 'no-camera',
  setup(b) {
    b.onResolve({ filter: /\/camera\.ts$/ }, (args) => {
      const target = join(args.resolveDir, args.path);
      if (target === join(ROOT, 'firmware', 'camera.ts')) return { path: join(ROOT, 'firmware', 'camera-none.ts') };
      return undefined;
    });
  },
};

/**
 * jsQR from its vendored source, firmware/jsqr/ (no Shift-JIS table, no per-frame garbage cycle, fewer calls
 * per pixel: same results as the npm package, which the tests keep as the reference); and Ed25519's SHA-512
 * comes from the small firmware/sha512.ts instead of @noble/hashes/sha2.js (which carries SHA-256/384/224 too).
 */
const slim = {
  name: 'slim',
  setup(b) {
    b.onResolve({ filter: /^@noble\/hashes\/sha2(\.js)?$/ }, () => ({ path: join(ROOT, 'firmware', 'sha512.ts') }));
    b.onResolve({ filter: /^jsqr$/ }, () => ({ path: JSQR_SOURCE }));
  },
};

/**
 * The camera path, compiled only when used: the camera module is bundled on its own (an IIFE, as text)
 * and the full bundle carries it as a string that `newFrameDecoder()` evaluates on the first frame.
 * QuickJS compiles a whole script at once, so jsQR's bytecode (~230 KiB of heap) would otherwise be
 * resident on every device, even one that only ever reads text scanners.
 */
function lazyCamera(source) {
  const seam = join(ROOT, 'firmware', 'camera.ts');
  return {
    name: 'lazy-camera',
    setup(b) {
      b.onResolve({ filter: /\/camera\.ts$/ }, (args) =>
        join(args.resolveDir, args.path) === seam ? { path: 'camera', namespace: 'lazy-camera' } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'lazy-camera' }, () => ({
        contents:
          `const SRC = ${JSON.stringify(source)};\nlet m;\n` +
          'export const newFrameDecoder = () => (m || (m = (0, eval)(SRC))).newFrameDecoder();\n',
        loader: 'js',
      }));
    },
  };
}

async function cameraModule(production) {
  const r = await esbuild({
    entryPoints: [join(ROOT, 'firmware', 'camera.ts')],
    bundle: true,
    format: 'iife',
    globalName: 'C',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2020',
    minify: true,
    metafile: true,
    write: false,
    outfile: join(DIST, 'camera.js'),
    legalComments: 'none',
    logLevel: 'silent',
    define: { __VERSION__: JSON.stringify(packageVersion()), __PRODUCTION__: String(!!production) },
    plugins: [portableOnly, slim],
  });
  // Evaluated, the text returns the module's exports.
  return { text: `(function(){${r.outputFiles[0].text.trim()}\nreturn C})()`, metafile: r.metafile };
}

function packageVersion() {
  return JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
}

async function bundle({ production, camera, write, entry, cameraText }) {
  const r = await esbuild({
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2020',
    minify: true,
    sourcemap: write ? 'external' : false,
    metafile: true,
    write: false,
    outfile: join(DIST, 'saphir-fw.js'),
    legalComments: 'none',
    logLevel: 'silent',
    define: { __VERSION__: JSON.stringify(packageVersion()), __PRODUCTION__: String(!!production) },
    plugins: camera ? [lazyCamera(cameraText), portableOnly, slim] : [noCamera, portableOnly, slim],
  });
  const js = r.outputFiles.find((f) => f.path.endsWith('.js'));
  const map = r.outputFiles.find((f) => f.path.endsWith('.map'));
  return { js: js.contents, map: map?.contents, metafile: r.metafile };
}

function sizesOf(metafile) {
  const out = Object.values(metafile.outputs).find((o) => o.entryPoint);
  const modules = {};
  for (const [path, info] of Object.entries(out.inputs)) modules[path] = info.bytesInOutput;
  return Object.fromEntries(Object.entries(modules).sort((a, b) => b[1] - a[1]));
}

function readSeed(file) {
  const raw = readFileSync(file);
  const text = raw.toString('utf8').trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return fromHex(text);
  if (raw.length === 32) return new Uint8Array(raw);
  throw new Error(`${file}: not a 32-byte Ed25519 seed (64 hex digits or 32 raw bytes)`);
}

/**
 * Builds everything; returns the figures. Throws on a forbidden import or an exceeded budget.
 * Options: production (trust no test key, needs a key file), keyFile, securityCounter, quiet;
 * for tests: outDir (default firmware/dist), entry (default firmware/main.ts), budgets {bundle, core}.
 */
export async function build(opts = {}) {
  const production = !!opts.production;
  const keyFile = opts.keyFile ?? process.env.SAPHIR_FW_KEY_FILE;
  if (production && !keyFile)
    throw new Error('a production build needs the signing key file: --key FILE or SAPHIR_FW_KEY_FILE');
  const outDir = opts.outDir ?? DIST;
  const entry = opts.entry ?? join(ROOT, 'firmware', 'main.ts');
  const budgetBundle = opts.budgets?.bundle ?? BUDGET_BUNDLE;
  const budgetCore = opts.budgets?.core ?? BUDGET_CORE;
  const cam = await cameraModule(production);
  const [full, core] = await Promise.all([
    bundle({ production, camera: true, write: true, entry, cameraText: cam.text }),
    bundle({ production, camera: false, write: false, entry }),
  ]);
  const bundleBytes = full.js.length;
  const coreBytes = core.js.length;
  const problems = [];
  if (bundleBytes > budgetBundle) problems.push(`bundle ${bundleBytes} B exceeds its budget of ${budgetBundle} B`);
  if (coreBytes > budgetCore) problems.push(`camera-less core ${coreBytes} B exceeds its budget of ${budgetCore} B`);
  if (problems.length) throw new Error(problems.join('; '));

  mkdirSync(outDir, { recursive: true });
  const bundlePath = join(outDir, 'saphir-fw.js');
  const imagePath = join(outDir, 'saphir-fw.img');
  writeFileSync(bundlePath, full.js);
  if (full.map) writeFileSync(bundlePath + '.map', full.map);
  writeFileSync(join(outDir, 'saphir-fw-core.js'), core.js);
  const version = packageVersion();
  const size = {
    version,
    production,
    bundle_bytes: bundleBytes,
    core_bytes: coreBytes,
    budget_bundle_bytes: BUDGET_BUNDLE,
    budget_core_bytes: BUDGET_CORE,
    modules: sizesOf(full.metafile),
    core_modules: sizesOf(core.metafile),
    /** Inside the full bundle's `lazy-camera:camera` string, compiled on the first camera frame. */
    camera_modules: sizesOf(cam.metafile),
  };
  writeFileSync(join(outDir, 'size.json'), JSON.stringify(size, null, 2) + '\n');

  const seed = keyFile ? readSeed(keyFile) : fromHex(DEV_FIRMWARE_SEED_HEX);
  const image = packImage({
    bundle: full.js,
    version,
    boardId: BOARD_ID,
    securityCounter: opts.securityCounter ?? 1,
    seed,
    sign: nodeSign,
  });
  writeFileSync(imagePath, image);
  const figures = {
    bundlePath,
    imagePath,
    bundleBytes,
    coreBytes,
    imageBytes: image.length,
    key: keyFile ? `key file ${keyFile}` : 'published development key',
  };
  if (!opts.quiet) {
    const kib = (n) => (n / 1024).toFixed(1) + ' KiB';
    const top = Object.entries(size.modules)
      .slice(0, 6)
      .map(([p, n]) => `    ${kib(n).padStart(9)}  ${p}`);
    process.stdout.write(
      [
        `saphir-fw ${version}${production ? ' (production)' : ''}`,
        `  bundle  ${kib(bundleBytes).padStart(9)} / ${kib(budgetBundle)}  ${relative(ROOT, bundlePath)}`,
        `  core    ${kib(coreBytes).padStart(9)} / ${kib(budgetCore)}  (without the camera path)`,
        `  image   ${kib(image.length).padStart(9)}  ${relative(ROOT, imagePath)}, signed with the ${figures.key}`,
        `  camera  ${kib(cam.text.length).padStart(9)}  (inside the bundle as text, compiled on the first frame)`,
        '  largest modules:',
        ...top,
        '',
      ].join('\n'),
    );
  }
  return figures;
}

/** True when the bundle is missing or older than a firmware/src source file or package.json. */
export function isStale() {
  if (!existsSync(BUNDLE_PATH) || !existsSync(IMAGE_PATH) || !existsSync(CORE_PATH)) return true;
  const built = statSync(BUNDLE_PATH).mtimeMs;
  const newer = (dir) =>
    readdirSync(dir, { withFileTypes: true }).some((e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return e.name !== 'dist' && e.name !== 'node' && newer(p);
      return /\.(ts|js|mjs|json)$/.test(e.name) && statSync(p).mtimeMs > built;
    });
  const files = ['package.json', 'build.mjs'].map((f) => statSync(join(ROOT, f)).mtimeMs);
  return newer(join(ROOT, 'firmware')) || newer(join(ROOT, 'src')) || files.some((t) => t > built);
}

/** Builds only when stale (tests and benchmarks call this). */
export async function ensureBuilt() {
  if (isStale()) await build({ quiet: true });
  return BUNDLE_PATH;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const opts = {};
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--production') opts.production = true;
    else if (args[i] === '--key') opts.keyFile = args[++i];
    else if (args[i] === '--security-counter') opts.securityCounter = Number(args[++i]);
    else {
      process.stderr.write(`usage: npm run build [-- --production] [--key FILE] [--security-counter N]\n`);
      process.exit(2);
    }
  }
  try {
    await build(opts);
  } catch (e) {
    process.stderr.write(`build failed: ${e.errors ? e.errors.map((x) => x.text).join('; ') : e.message}\n`);
    process.exit(1);
  }
}
