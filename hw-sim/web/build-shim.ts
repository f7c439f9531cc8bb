// What the browser build puts in place of tools/build.ts (esbuild, Node): the page passes the bundle it
// fetched, so the simulator never asks for a build there; a call that gets here anyway says why.
export function ensureBuiltSync(): never {
  throw new Error('building the firmware is not available in the browser');
}
