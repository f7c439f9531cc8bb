// tools/worker-pool.ts: results come back in job order, a worker that finishes ahead of a slow earlier
// job is given more work meanwhile (the explorer's QuickJS schedules), and a worker runs one job at a time.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOrdered, startWorkers } from '../../tools/worker-pool.ts';

type Answer = { result: { endedAt: number; concurrent: number } };

for (const depth of [1, 2]) {
  test(`runOrdered (depth ${depth}): in order, and the other worker goes on past a slow job`, async () => {
    const workers = startWorkers(new URL('../fixtures/workers/slow-first.ts', import.meta.url), 2, { slowMs: 1500 });
    try {
      const got: { id: number; a: Answer['result'] }[] = [];
      await runOrdered<Answer>(
        workers,
        40,
        (id) => ({ id }),
        (r, id) => void got.push({ id, a: r.result }),
        depth,
        64,
      );
      assert.equal(
        got.map((g) => g.id),
        [...Array(40).keys()],
        'consumed in job order',
      );
      assert.ok(
        got.every((g) => g.a.concurrent === 1),
        'one job at a time in a worker',
      );
      const slowEnd = got[0].a.endedAt;
      const before = got.filter((g) => g.id > 0 && g.a.endedAt < slowEnd).length;
      // Without dispatch on arrival, the fast worker stopped after `depth` jobs until job 0 was consumed.
      assert.ok(before >= 30, `${before} of 39 jobs ended while job 0 ran`);
    } finally {
      await Promise.all(workers.map((w) => w.terminate()));
    }
  });
}

test.run();
