#!/usr/bin/env node
// The `saphir` command: runs the prebuilt bundle (tools/cli-bundle.mjs) when it is current, else the
// TypeScript sources through tsx (development, or a source changed since the last build).
import { freshCliBundle } from '../tools/cli-bundle.mjs';

const bundle = process.env.SAPHIR_CLI_SOURCES ? null : freshCliBundle();
let main;
if (bundle) ({ main } = await import(bundle));
else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../host/cli.ts'));
}
process.exitCode = await main(process.argv.slice(2));
