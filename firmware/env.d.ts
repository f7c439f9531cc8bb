// Constants injected by build.mjs (esbuild `define`). Absent when a module runs unbundled (unit tests).
declare const __VERSION__: string;
declare const __PRODUCTION__: boolean;
/** Only the fault explorer's v8 build (tools/build.ts hostEd25519Bundle) sets it: firmware/verify.ts. */
declare const __HOST_ED25519__: boolean;
