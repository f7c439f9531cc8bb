// Seeded explorer schedules on QuickJS and on XS: 150 in `test:long` (one worker, within CI's time); the
// 1 000 of issue #36 with SAPHIR_XS_SCHEDULES=1000 (run in shards with SAPHIR_XS_FROM on 4 Dec: 0
// differences): the same screens, log lines and verdicts, schedule by schedule (xs-compare.ts).
// Every difference is listed before the test fails; the figures go to docs/firmware.md, "Engines".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withBundles } from '../../hw-sim/explore/explore.ts';
import '../../hw-sim/node-host.ts';
import { requireTool } from '../helpers.ts';
import { compareSchedule, XS_SEED } from './xs-compare.ts';

const count = Number(process.env.SAPHIR_XS_SCHEDULES ?? 150);
const from = Number(process.env.SAPHIR_XS_FROM ?? 0);

requireTool('xsnap')(`XS and QuickJS: ${count} seeded schedules, the same screens, logs and verdicts`, async () => {
  const { bundle } = await withBundles({});
  const differences: string[] = [];
  const verdicts: Record<string, number> = {};
  let steps = 0;
  let lines = 0;
  let q = 0;
  let x = 0;
  for (let i = from; i < from + count; i++) {
    const c = await compareSchedule(bundle!, i);
    if (c.difference) differences.push(`${XS_SEED}#${i}: ${c.difference}`);
    const v = c.violation === null ? 'clean' : `invariant ${c.violation}`;
    verdicts[v] = (verdicts[v] ?? 0) + 1;
    steps += c.steps;
    lines += c.lines;
    q += c.quickjsMs;
    x += c.xsMs;
  }
  process.stdout.write(
    `# ${count} schedules (${XS_SEED}#${from}…${from + count - 1}): ${steps} steps, ${lines} screens and log lines, ` +
      `verdicts ${JSON.stringify(verdicts)}, ${differences.length} differences; ` +
      `${(q / 1000).toFixed(0)} s on QuickJS, ${(x / 1000).toFixed(0)} s on XS\n`,
  );
  assert.equal(differences, [], differences.join('\n'));
  assert.ok(steps > 30 * count, `${steps} steps compared`);
});

test.run();
