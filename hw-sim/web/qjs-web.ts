// quickjs-emscripten for the browser build: the core and the one variant the page uses (the full
// package would bundle the glue of all four variants). The build aliases 'quickjs-emscripten' here.
import type { QuickJSSyncVariant } from 'quickjs-emscripten-core';
import variant from '@jitl/quickjs-wasmfile-release-sync';
export * from 'quickjs-emscripten-core';
// The package's CommonJS typings hide its ESM default export (the variant) from NodeNext resolution.
export const RELEASE_SYNC = variant as unknown as QuickJSSyncVariant;
