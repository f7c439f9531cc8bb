// The same registry cases against a real PostgreSQL server (a throwaway cluster), when one can start here.
import { test } from 'uvu';
import { openPostgres } from '../../src/node/registry/db.ts';
import { registryCases } from './cases.ts';
import { sharedDb } from './shared-db.ts';
import { PG_INSTALL_HINT, postgresBin, startPostgres, type PgCluster } from './pg-cluster.ts';

if (!postgresBin()) {
  const reason = `PostgreSQL not installed: ${PG_INSTALL_HINT}`;
  if (process.env.SAPHIR_TEST_STRICT === '1') {
    test('PostgreSQL is installed (SAPHIR_TEST_STRICT=1)', () => {
      throw new Error(reason);
    });
    test.run();
  } else console.log(`SKIP registry on PostgreSQL (${reason})`);
} else {
  let cluster: PgCluster | null = null;
  const shared = sharedDb(async () => {
    cluster = await startPostgres();
    return openPostgres(cluster.url);
  });
  const test = registryCases('registry on PostgreSQL', shared.open);
  test.after(async () => {
    await shared.closeAll();
    (cluster as PgCluster | null)?.stop();
  });
  test.run();
}
