// TypeScript's compiler API, for the firmware build's property names (tools/mangle.ts) and the heap model's
// source count (hw-sim/function-source.ts), loaded by its first caller: `require` takes a third of a
// second, while an `import` through tsx's loader (the test workers import the build) took ~1.9 s, its
// CommonJS exports parsed out of 9 MB.
import type * as TS from 'typescript';
import { createRequire } from 'node:module';

let ts: typeof TS | undefined;

export function typescript(): typeof TS {
  return (ts ??= createRequire(import.meta.url)('typescript') as typeof TS);
}
