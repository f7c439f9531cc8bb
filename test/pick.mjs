// Which file of test/run.mjs's queue a worker may take now (test/core/pick.test.ts).
/**
 * The index in `queue` (files `{ name }`, in run order) of the file a free worker may start while the files
 * named in `running` run, or -1 when it must wait. `alone` (a Set) files run beside none but `free` (a
 * RegExp) ones, and before every other file.
 */
export function pick(queue, running, alone, free) {
  if (queue.length === 0) return -1;
  const a = queue.findIndex((s) => alone.has(s.name));
  const busy = [...running];
  if (a >= 0 && busy.every((n) => free.test(n))) return a;
  if (a >= 0 || busy.some((n) => alone.has(n))) return queue.findIndex((s) => free.test(s.name));
  return 0;
}
