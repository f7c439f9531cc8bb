// The explorer's findings kept in test/explore/findings/ (shrunk schedules that broke an invariant, each
// fixed since) replay on the real firmware bundle and pass. The five there are the two-fault ledger
// defect of #35 (a flipped bit in one log, a cut tearing a write in the other refused every win): with
// slots written in one operation again (tools/mutate.ts), three of them fail. explore-bench-28544 is the
// noisy camera scan of #35 whose frames the VM watchdog interrupted (1.6–1.8 s of QuickJS each): a
// replay also has no VM fault (CPU time, so the bound itself is tested by counted work in
// test/input/camera.test.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScenario } from '../../hw-sim/scenario.ts';
import { runScenario } from '../../hw-sim/runner.ts';
import { ensureBundle, type Simulator } from '../../hw-sim/sim.ts';
import { ROOT } from '../helpers.ts';

const dir = join(ROOT, 'test', 'explore', 'findings');
const bundle = ensureBundle();

for (const f of readdirSync(dir)
  .filter((x) => x.endsWith('.yaml'))
  .sort())
  test(`finding ${f} replays and passes`, async () => {
    const file = join(dir, f);
    const sc = parseScenario(readFileSync(file, 'utf8'), file);
    const sims: Simulator[] = [];
    const r = await runScenario(sc, { bundle, onDevices: (d) => sims.push(...d.values()) });
    const bad = r.steps.find((s) => !s.ok);
    assert.ok(r.ok, `${f}: ${bad?.problem ?? 'failed'}`);
    assert.ok(sims.length > 0);
    for (const sim of sims) assert.equal(sim.faults, [], `${f}: VM faults`);
  });

test.run();
