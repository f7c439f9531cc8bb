// Which file of test/run.mjs's queue a worker may take now (test/core/pick.test.ts).
/**
 * The index in `queue` (files `{ name }`, in run order) of the file a free worker may start while the files
 * named in `running` run, or -1 when it must wait. `alone` (a Set) files run beside none but `free` (a
 * RegExp) ones, and before every other file. While a file that mostly waits runs (`waits(name)`: a pty, a
 * browser, timeouts), the first that does not comes first: two waiting at once left a core idle.
 * `lane`: 'waits' for the worker beyond the cores that takes only files that mostly wait (-1 when none may
 * start now); 'compute' for the others while it runs: those that compute first.
 */
export function pick(queue, running, alone, free, waits = () => false, lane = undefined) {
  if (queue.length === 0) return -1;
  const a = queue.findIndex((s) => alone.has(s.name));
  const busy = [...running];
  if (lane === 'waits') {
    const held = a >= 0 || busy.some((n) => alone.has(n)); // only firmware-free files may start
    return queue.findIndex((s) => waits(s.name) && (!held || (free.test(s.name) && !alone.has(s.name))));
  }
  if (a >= 0 && busy.every((n) => free.test(n))) return a;
  if (a >= 0 || busy.some((n) => alone.has(n))) return queue.findIndex((s) => free.test(s.name));
  if (lane === 'compute' || busy.some(waits))
    return Math.max(
      0,
      queue.findIndex((s) => !waits(s.name)),
    );
  return 0;
}

/**
 * Whether a worker whose file ended parks (waits for a core to idle) instead of taking the next file: one
 * beyond the `jobs` once no core idles (`idleCores`, over the last half second). The waiting lane's worker
 * (`lane`) never parks, and is not one of the jobs: `live` workers run, `lanes` of them in the lane.
 */
export function parks({ lane, live, lanes, jobs, idleCores, queued }) {
  return !lane && live - lanes > jobs && idleCores < 0.5 && queued > 0;
}
