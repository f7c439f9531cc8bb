// One database for a whole suite, emptied before each case: starting PGlite or a cluster per case
// would cost seconds each.
import { emptyRegistry, type Db } from '../../host/registry/db.ts';

export function sharedDb(openOnce: () => Promise<Db>) {
  let db: Promise<Db> | null = null;
  return {
    async open(): Promise<Db> {
      db ??= openOnce();
      const d = await db;
      await emptyRegistry(d);
      return { ...d, kind: d.kind, query: d.query, tx: d.tx, close: async () => {} };
    },
    async closeAll(): Promise<void> {
      if (db) await (await db).close();
      db = null;
    },
  };
}
