// The model and serial line noise (found by the bench's 10 000-schedule run, seed bench, index 466):
// noise turned a garbage scan's terminator into a letter, so the genuine code sent right after joined
// its tail and was refused (NON VALIDE). The device cannot tell; the model accepts it for a serial
// code sent within the decoder's inter-byte timeout of a noisy one, and only then.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import '../../hw-sim/node-host.ts';
import { ensureBundle } from '../../hw-sim/sim.ts';
import { readFileSync } from 'node:fs';
import type { Op, Schedule } from '../../hw-sim/explore/schedule.ts';
import { runOps } from '../../hw-sim/explore/explore.ts';

// The boot, the flood with the noisy serial garbage and the genuine serial scan after it, as that
// schedule drew them (later menus draw other schedules from the same seed).
const s = JSON.parse(readFileSync(new URL('./serial-noise.json', import.meta.url), 'utf8')) as Schedule;
const [, flood, after] = [0, 1, 2];

test('a genuine serial code joined to a noisy scan’s tail may be refused; one sent later may not', async () => {
  assert.ok(s.ops[after].steps.some((st) => st.kind === 'scan' && st.via === 'serial'));
  const ops = [s.ops[0], s.ops[flood], s.ops[after]];
  const run = await runOps(s, ops, ensureBundle());
  assert.is(run.violation, undefined, JSON.stringify(run.violation));
  // The same ticket alone, after a pause, must get its verdict (the model still holds it to PERDANT).
  const ticket = s.ops[after].steps.find((st) => st.kind === 'scan')!;
  const pause: Op = { kind: 'delay', steps: [{ kind: 'delay', line: 0, ms: 2000 }], meta: [{ op: 'delay' }] };
  const alone: Op = { kind: 'scan-ticket', steps: [ticket], meta: [{ op: 'scan-ticket', cls: 'genuine' }] };
  const clean = await runOps(s, [s.ops[0], s.ops[flood], pause, alone], ensureBundle());
  assert.is(clean.violation, undefined, JSON.stringify(clean.violation));
});

test.run();
