// What the tests' processes share, made once: test/run.mjs runs this before its workers when the firmware
// build (firmware/dist) or the PGlite template (SAPHIR_PGLITE_TEMPLATE, host/registry/db.ts) is missing, as
// in a fresh clone. Else the first files' processes each made them at once. Writes what it made, one a line.
import { existsSync } from 'node:fs';
import { ensureBuiltSync } from './build-stale.ts';
import { BUNDLE_PATH } from './paths.ts';
import { openPglite } from '../host/registry/db.ts';

if (!existsSync(BUNDLE_PATH)) {
  ensureBuiltSync();
  process.stdout.write('the firmware build\n');
}
const template = process.env.SAPHIR_PGLITE_TEMPLATE;
if (template && !existsSync(template)) {
  // One database in memory writes the template, then the migrated dump beside it.
  const db = await openPglite();
  await db.close();
  if (existsSync(template)) process.stdout.write('the PGlite template\n');
}
