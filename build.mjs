// npm run build (node --import tsx build.mjs [--production] [--key FILE] [--security-counter N]): the
// command's entry. The build itself is the typed module tools/build.ts (see it and docs/firmware.md).
import { main } from './tools/build.ts';

process.exitCode = await main(process.argv.slice(2));
