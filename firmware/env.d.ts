// Constants injected by build.mjs (esbuild `define`). Absent when a module runs unbundled (unit tests).
declare const __VERSION__: string;
declare const __PRODUCTION__: boolean;
