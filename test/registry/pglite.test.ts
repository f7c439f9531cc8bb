// The registry on PGlite (embedded PostgreSQL in WebAssembly): what `saphir registry serve` runs by default.
import { openPglite } from '../../host/registry/db.ts';
import { registryCases } from './cases.ts';
import { campaignCases } from './campaign-cases.ts';
import { sharedDb } from './shared-db.ts';

const shared = sharedDb(() => openPglite());
const test = registryCases('registry on PGlite', shared.open);
test.run();
const campaigns = campaignCases('health and campaigns on PGlite', shared.open);
campaigns.after(() => shared.closeAll());
campaigns.run();
