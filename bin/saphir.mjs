#!/usr/bin/env node
// The `saphir` command: runs the prebuilt bundle (tools/cli-bundle.mjs) when it is current, else the
// TypeScript sources through tsx (development, or a source changed since the last build).
import { setFlagsFromString } from 'node:v8';
import { freshCliBundle } from '../tools/cli-bundle.mjs';

// SAPHIR_WASM_LIFTOFF=1 (test/run.mjs sets it): WebAssembly compiled by V8's baseline compiler alone, never
// tiered up. A short process (a test's `saphir sim`) spends more on the optimising compiles of QuickJS's
// hot functions than they return: a boot-only `saphir sim` 1.04 → 0.67 s of CPU (5 Dec); a long session
// runs its firmware ~1.7× slower so.
if (process.env.SAPHIR_WASM_LIFTOFF === '1') {
  setFlagsFromString('--liftoff-only');
  globalThis[Symbol.for('saphir.liftoff')] = true; // (host/registry/db.ts leaves it on)
}

const bundle = process.env.SAPHIR_CLI_SOURCES ? null : freshCliBundle();
let main;
if (bundle) ({ main } = await import(bundle));
else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../host/cli.ts'));
}
process.exitCode = await main(process.argv.slice(2));
