// The same registry cases against a real PostgreSQL server (a throwaway cluster), when one can start here.
import { test } from 'uvu';
import { requireTool } from '../helpers.ts';
import { openPostgres } from '../../host/registry/db.ts';
import { registryCases } from './cases.ts';
import { campaignCases } from './campaign-cases.ts';
import { sharedDb } from './shared-db.ts';
import { PG_INSTALL_HINT, postgresBin, startPostgres, type PgCluster } from './pg-cluster.ts';

if (!postgresBin()) {
  // Counted as skipped by test/run.mjs (a failure under SAPHIR_TEST_STRICT=1).
  requireTool('postgres', PG_INSTALL_HINT, { check: () => (postgresBin() ? null : 'no initdb') })(
    'the registry cases on PostgreSQL',
    () => {},
  );
  test.run();
} else {
  let cluster: PgCluster | null = null;
  const shared = sharedDb(async () => {
    cluster = await startPostgres();
    return openPostgres(cluster.url);
  });
  const test = registryCases('registry on PostgreSQL', shared.open);
  test.run();
  const campaigns = campaignCases('health and campaigns on PostgreSQL', shared.open);
  campaigns.after(async () => {
    await shared.closeAll();
    (cluster as PgCluster | null)?.stop();
  });
  campaigns.run();
}
