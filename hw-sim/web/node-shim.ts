// What the browser build puts in place of the few Node built-ins that shared hw-sim modules import for
// their Node-only paths (files, the firmware build). The page never takes those paths: it passes the
// bundle, keeps the chip in IndexedDB and hands screenshots to `RunOptions.screenshot`. A call that
// gets here anyway fails with a clear reason instead of touching a file system that is not there.
function unavailable(name: string): never {
  throw new Error(`${name} is not available in the browser`);
}
export const readFileSync = (): never => unavailable('reading a file');
export const writeFileSync = (): never => unavailable('writing a file');
export const renameSync = (): never => unavailable('renaming a file');
export const mkdirSync = (): never => unavailable('creating a directory');
export const existsSync = (): boolean => false;
export const spawnSync = (): never => unavailable('running a process');
export const fileURLToPath = (u: string | URL): string => String(u);
export const dirname = (p: string): string => p.replace(/\/[^/]*$/, '') || '/';
export const join = (...parts: string[]): string => parts.join('/');
export const resolve = (...parts: string[]): string => parts.join('/');
export const isAbsolute = (p: string): boolean => p.startsWith('/');
export class PNG {
  constructor() {
    unavailable('pngjs');
  }
  static sync = { write: (): never => unavailable('pngjs') };
}
export const parseArgs = (): never => unavailable('parsing command-line options');
