// test/run.mjs's rule for files that change what every other process sees (ALONE, build-stale.long.ts): they
// start first and run beside firmware-free files only; the others wait for them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parks, pick } from '../pick.mjs';

const ALONE = new Set(['firmware/build-stale.long.ts']);
const FREE = /^(registry|sph1)\//;
const q = (...names: string[]) => names.map((name) => ({ name }));
const at = (queue: { name: string }[], running: string[]) => pick(queue, new Set(running), ALONE, FREE);

test('an ALONE file starts first, beside nothing or firmware-free files only', () => {
  const queue = q('sim/cli.test.ts', 'firmware/build-stale.long.ts', 'registry/cli.test.ts');
  assert.is(at(queue, []), 1);
  assert.is(at(queue, ['registry/lock.test.ts']), 1);
  // A firmware file runs (started before): the ALONE one waits; a free file may start meanwhile.
  assert.is(at(queue, ['sim/scenarios.test.ts']), 2);
});

test('while an ALONE file waits or runs, only firmware-free files start; none left: wait', () => {
  const queue = q('sim/cli.test.ts', 'web/web.test.ts', 'registry/cli.test.ts');
  assert.is(at(queue, ['firmware/build-stale.long.ts']), 2);
  assert.is(at(q('sim/cli.test.ts'), ['firmware/build-stale.long.ts']), -1);
  assert.is(at(q('firmware/build-stale.long.ts', 'sim/cli.test.ts'), ['sim/scenarios.test.ts']), -1);
});

test('without ALONE files, the queue goes in order; an empty one gives nothing', () => {
  assert.is(at(q('sim/cli.test.ts', 'registry/cli.test.ts'), ['web/web.test.ts']), 0);
  assert.is(at([], []), -1);
});

test('while a file that mostly waits runs, the first that does not starts; none left: the waiting one', () => {
  const waits = (n: string) => /pty|web/.test(n);
  const at2 = (queue: { name: string }[], running: string[]) => pick(queue, new Set(running), ALONE, FREE, waits);
  const queue = q('flash/pty.test.ts', 'web/web.test.ts', 'sim/cli.test.ts', 'registry/cli.test.ts');
  assert.is(at2(queue, []), 0, 'the longest first');
  assert.is(at2(queue, ['sim/scenarios.test.ts']), 0);
  assert.is(at2(queue, ['flash/sim-pty.test.ts']), 2, 'not a second waiting one');
  assert.is(at2(q('web/web.test.ts'), ['flash/sim-pty.test.ts']), 0, 'it starts when nothing else is left');
  // ALONE files keep their rule.
  assert.is(at2(q('sim/cli.test.ts', 'registry/cli.test.ts'), ['firmware/build-stale.long.ts']), 1);
});

test('the waiting lane takes only files that mostly wait, the ALONE rule kept; the others compute first', () => {
  const waits = (n: string) => /pty|web|two-servers/.test(n);
  const lane = (queue: { name: string }[], running: string[], l: 'waits' | 'compute') =>
    pick(queue, new Set(running), ALONE, FREE, waits, l);
  const queue = q('sim/cli.test.ts', 'flash/pty.test.ts', 'registry/cli.test.ts', 'web/web.test.ts');
  assert.is(lane(queue, [], 'waits'), 1, 'the first that waits');
  assert.is(lane(queue, ['sim/scenarios.test.ts'], 'compute'), 0);
  assert.is(lane(q('flash/pty.test.ts', 'sim/cli.test.ts'), [], 'compute'), 1, 'one that computes first');
  assert.is(lane(q('flash/pty.test.ts'), [], 'compute'), 0, 'none left: the waiting one');
  assert.is(lane(q('sim/cli.test.ts', 'registry/cli.test.ts'), [], 'waits'), -1, 'none that waits: nothing');
  // Beside an ALONE file, only firmware-free ones, which it never takes itself.
  const free = q('flash/pty.test.ts', 'registry/two-servers.test.ts');
  assert.is(lane(free, ['firmware/build-stale.long.ts'], 'waits'), 1);
  assert.is(lane(q('flash/pty.test.ts', 'firmware/build-stale.long.ts'), [], 'waits'), -1);
});

test("a worker beyond the jobs parks once no core idles; the waiting lane's neither parks nor counts", () => {
  const base = { lane: false, live: 3, lanes: 0, jobs: 2, idleCores: 0.1, queued: 5 };
  assert.ok(parks(base));
  assert.not.ok(parks({ ...base, idleCores: 0.8 }), 'a core idles: it goes on');
  assert.not.ok(parks({ ...base, queued: 0 }), 'nothing left: it ends instead');
  assert.not.ok(parks({ ...base, live: 2 }), 'one of the jobs');
  assert.not.ok(parks({ ...base, lanes: 1 }), 'two computing beside the lane');
  assert.not.ok(parks({ ...base, lane: true, lanes: 1, live: 4 }), 'the lane itself');
  assert.ok(parks({ ...base, live: 4, lanes: 1 }), 'a third computing beside the lane');
});

test.run();
