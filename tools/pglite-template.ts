// Makes the PGlite template of SAPHIR_PGLITE_TEMPLATE (host/registry/db.ts) and its migrated dump by opening
// one database in memory. test/run.mjs runs it before its workers when the template is missing: else each of
// the first files' databases ran PGlite's initdb at once, each of them (a fresh clone's first npm test).
import { openPglite } from '../host/registry/db.ts';

const db = await openPglite();
await db.close();
