// Where the firmware build goes. Plain JavaScript: test/run.mjs, which node runs before tsx, asks the same
// place as the build (tools/paths.ts re-exports it).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** firmware/dist: the build's output (not in git). */
export const DIST = fileURLToPath(new URL('../firmware/dist', import.meta.url));
/** The firmware bundle. */
export const BUNDLE_PATH = join(DIST, 'saphir-fw.js');
