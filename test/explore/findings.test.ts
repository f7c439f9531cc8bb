// The explorer's findings kept in test/explore/findings/ (shrunk schedules that broke an invariant, each
// fixed since) replay on the real firmware bundle and pass. The five there are the two-fault ledger
// defect of #35 (a flipped bit in one log, a cut tearing a write in the other refused every win): with
// slots written in one operation again (tools/mutate.ts), three of them fail.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScenario } from '../../hw-sim/scenario.ts';
import { runScenario } from '../../hw-sim/runner.ts';
import { ensureBundle } from '../../hw-sim/sim.ts';
import { ROOT } from '../helpers.ts';

const dir = join(ROOT, 'test', 'explore', 'findings');
const bundle = ensureBundle();

for (const f of readdirSync(dir)
  .filter((x) => x.endsWith('.yaml'))
  .sort())
  test(`finding ${f} replays and passes`, async () => {
    const file = join(dir, f);
    const sc = parseScenario(readFileSync(file, 'utf8'), file);
    const r = await runScenario(sc, { bundle });
    const bad = r.steps.find((s) => !s.ok);
    assert.ok(r.ok, `${f}: ${bad?.problem ?? 'failed'}`);
  });

test.run();
