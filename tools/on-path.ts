// Whether a program is installed, before anything is started that would need it.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** An executable of that name on PATH (looked up the way a shell would, without running it). */
export function onPath(name: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}
