// The explorer runs the firmware bundle on v8 for speed (hw-sim/v8-host.ts): that is only sound if the
// firmware behaves there exactly as on QuickJS. The same seeded schedules, with every fault group, run
// on both engines must show the same screens, log lines and verdicts of the model, step for step.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSchedule, runOps } from '../../hw-sim/explore/explore.ts';
import { GATES } from '../../hw-sim/explore/menu.ts';
import '../../hw-sim/node-host.ts';

test('v8 and QuickJS run the same schedules to the same screens, logs and model verdicts', async () => {
  let steps = 0;
  for (let i = 0; i < 5; i++) {
    const s = makeSchedule('engines', i, { maxOps: 70, gates: [...GATES] });
    const q: string[] = [];
    const v: string[] = [];
    const rq = await runOps(s, s.ops, undefined, 'quickjs', q);
    const rv = await runOps(s, s.ops, undefined, 'v8', v);
    const at = q.findIndex((line, k) => line !== v[k]);
    assert.is(at, q.length === v.length ? -1 : at, `schedule ${i}, line ${at}: quickjs «${q[at]}», v8 «${v[at]}»`);
    assert.is(v.length, q.length, `schedule ${i}: as many screens and log lines`);
    assert.equal(rv.violation, rq.violation, `schedule ${i}: the same verdict`);
    assert.is(rv.steps, rq.steps);
    assert.ok(q.length > 20, `schedule ${i} showed something (${q.length} lines)`);
    steps += rq.steps;
  }
  assert.ok(steps > 150, `${steps} steps compared`);
});

test.run();
