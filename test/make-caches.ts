// What the tests' processes share, made once: test/run.mjs runs this before its workers when the firmware
// build (firmware/dist) or the PGlite template (SAPHIR_PGLITE_TEMPLATE, host/registry/db.ts) is missing, as
// in a fresh clone. Else the first files' processes each made them at once. `firmware` makes the build and
// the explorer's host-Ed25519 build where missing, `pglite` the template (the runner runs both at once); each
// line written names what was made.
import { existsSync } from 'node:fs';

const what = process.argv[2];
if (what === 'firmware') {
  const { HOST_BUNDLE_PATH, ensureBuiltSync, hostEd25519Bundle } = await import('../tools/build-stale.ts');
  const { BUNDLE_PATH } = await import('../tools/paths.ts');
  if (!existsSync(BUNDLE_PATH)) {
    ensureBuiltSync();
    process.stdout.write('the firmware build\n');
  }
  if (!existsSync(HOST_BUNDLE_PATH)) {
    await hostEd25519Bundle();
    process.stdout.write("the explorer's host-Ed25519 build\n");
  }
} else if (what === 'pglite') {
  const template = process.env.SAPHIR_PGLITE_TEMPLATE;
  if (template && !existsSync(template)) {
    // One database in memory writes the template, then the migrated dump beside it.
    const { openPglite } = await import('../host/registry/db.ts');
    const db = await openPglite();
    await db.close();
    if (existsSync(template)) process.stdout.write('the PGlite template\n');
  }
} else {
  process.stderr.write('usage: test/make-caches.ts firmware|pglite\n');
  process.exitCode = 2;
}
