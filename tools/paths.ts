// Where things are in the repository, for the Node-side code (CLI, simulator, build, tests, benchmarks).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST } from './dist.mjs';

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export { BUNDLE_PATH, DIST } from './dist.mjs';
export const IMAGE_PATH = join(DIST, 'saphir-fw.img');
/** The camera-less variant, written for measurements (heap of a text-only device); not imaged. */
export const CORE_PATH = join(DIST, 'saphir-fw-core.js');
/** A part compiled apart (tools/build.ts LAZY_PARTS), its text unpacked. */
export const partPath = (name: string) => join(DIST, `saphir-fw-part-${name}.js`);
/** The vendored jsQR source the firmware bundles instead of the npm package (firmware/jsqr/README.md). */
export const JSQR_SOURCE = join(ROOT, 'firmware', 'jsqr', 'index.ts');
