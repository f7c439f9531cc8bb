// Whole files only: a file another process may read at any moment (the firmware build, a worker bundle,
// the PGlite template, a campaign image, a simulator's file) is written beside itself under a name of
// this process's own and renamed over: a reader sees the old file or the new one, never half of one.
import { renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Writes `data` to `path` whole: to a temp file in the same folder (named with the pid and a random
 * suffix, so two processes writing at once never share one), then renamed; the temp is removed when
 * either step fails, and the error thrown.
 */
export function writeWhole(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
