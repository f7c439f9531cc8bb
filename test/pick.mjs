// Which file of test/run.mjs's queue a worker may take now (test/core/pick.test.ts).
/**
 * The index in `queue` (files `{ name }`, in run order) of the file a free worker may start while the files
 * named in `running` run, or -1 when it must wait. `alone` (a Set) files run beside none but `free` (a
 * RegExp) ones, and before every other file. While a file that mostly waits runs (`waits(name)`: a pty, a
 * browser, timeouts), the first that does not comes first: two waiting at once left a core idle.
 */
export function pick(queue, running, alone, free, waits = () => false) {
  if (queue.length === 0) return -1;
  const a = queue.findIndex((s) => alone.has(s.name));
  const busy = [...running];
  if (a >= 0 && busy.every((n) => free.test(n))) return a;
  if (a >= 0 || busy.some((n) => alone.has(n))) return queue.findIndex((s) => free.test(s.name));
  if (busy.some(waits))
    return Math.max(
      0,
      queue.findIndex((s) => !waits(s.name)),
    );
  return 0;
}
