// One database for a whole suite, emptied before each case: starting PGlite or a cluster per case
// would cost seconds each.
import type { Db } from '../../host/registry/db.ts';

const TABLES = [
  'payments',
  'conflicts',
  'nonces',
  'device_seen',
  'devices',
  'device_health',
  'campaign_devices',
  'campaigns',
  'image_chunks',
  'images',
];

export function sharedDb(openOnce: () => Promise<Db>) {
  let db: Promise<Db> | null = null;
  return {
    async open(): Promise<Db> {
      db ??= openOnce();
      const d = await db;
      for (const t of TABLES) await d.query(`DELETE FROM ${t}`);
      return { ...d, kind: d.kind, query: d.query, tx: d.tx, close: async () => {} };
    },
    async closeAll(): Promise<void> {
      if (db) await (await db).close();
      db = null;
    },
  };
}
