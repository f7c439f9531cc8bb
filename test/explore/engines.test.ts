// The explorer runs the firmware bundle on v8 for speed (hw-sim/v8-host.ts): that is only sound if the
// firmware behaves there exactly as on QuickJS. The same seeded schedules, with every fault group, run
// on both engines must show the same screens, log lines and verdicts of the model, step for step.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeSchedule, runOps, withBundles } from '../../hw-sim/explore/explore.ts';
import { GATES } from '../../hw-sim/explore/menu.ts';
import { simHost, useSimHost } from '../../hw-sim/host.ts';
import '../../hw-sim/node-host.ts';
import { LONG } from '../helpers.ts';

/** Schedules compared: 2 in npm test, 5 in the long tier (engines.long.ts). */
const SCHEDULES = LONG ? 5 : 2;

/** A trace with each image hash (boot screen: 12 digits, boot log: 16) named by its order of appearance. */
function imagesNamed(lines: string[]): string[] {
  const names = new Map<string, string>();
  return lines.map((l) =>
    l.replace(/\b(img|image) ([0-9a-f]{12})([0-9a-f]{4})?\b/g, (_m, w: string, h: string) => {
      if (!names.has(h)) names.set(h, `#${names.size}`);
      return `${w} ${names.get(h)}`;
    }),
  );
}

test('v8 (shipped bundle, and its host-Ed25519 build) and QuickJS run the same schedules to the same screens, logs and model verdicts', async () => {
  const { bundle, v8Bundle } = await withBundles({});
  assert.ok(v8Bundle && v8Bundle !== bundle, 'the v8 runs take the host-Ed25519 build by default');
  assert.not.ok(bundle!.includes('__hostEd25519'), 'the shipped bundle never asks the host');
  const { verify } = simHost();
  let asked = 0;
  let refused = 0;
  useSimHost({
    verify: (s, m, k) => {
      asked++;
      const ok = verify(s, m, k);
      if (!ok) refused++;
      return ok;
    },
  });
  let steps = 0;
  try {
    for (let i = 0; i < SCHEDULES; i++) {
      const s = makeSchedule('engines', i, { maxOps: 70, gates: [...GATES] });
      const q: string[] = [];
      const rq = await runOps(s, s.ops, bundle, 'quickjs', q);
      for (const [name, b] of [
        ['v8', bundle],
        ['v8, host Ed25519', v8Bundle],
      ] as const) {
        const v: string[] = [];
        const before = asked;
        const rv = await runOps(s, s.ops, b, 'v8', v);
        if (b === bundle) assert.is(asked, before, 'the shipped bundle does its own curve work');
        else assert.ok(asked > before, `schedule ${i}: ${name} asked the host`);
        // The host build is another text: its images' hashes differ (boot screen, boot log), not their order.
        const [qq, vv] = b === bundle ? [q, v] : [imagesNamed(q), imagesNamed(v)];
        const at = qq.findIndex((line, k) => line !== vv[k]);
        assert.is(
          at,
          q.length === v.length ? -1 : at,
          `schedule ${i}, ${name}, line ${at}: quickjs «${qq[at]}», v8 «${vv[at]}»`,
        );
        assert.is(v.length, q.length, `schedule ${i}, ${name}: as many screens and log lines`);
        assert.equal(rv.violation, rq.violation, `schedule ${i}, ${name}: the same verdict`);
        assert.is(rv.steps, rq.steps);
      }
      assert.ok(q.length > 20, `schedule ${i} showed something (${q.length} lines)`);
      steps += rq.steps;
    }
  } finally {
    useSimHost({ verify });
  }
  assert.ok(steps > 30 * SCHEDULES, `${steps} steps compared`);
  // The host answered no too, under the device's rules (forged, mutated codes).
  assert.ok(refused > 0, 'the host refused a signature');
});

test.run();
