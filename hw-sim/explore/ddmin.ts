// Delta debugging (Zeller's ddmin) over a schedule's operations, for the single-device and the fleet
// explorers: drop chunks, then single items, keeping any smaller list that still fails the same way.

/**
 * `test(cand)` runs a candidate and, when it still fails, answers what to keep (the candidate, or a
 * trimmed copy) and the failure found; at most `maxRuns` candidates are run.
 */
export async function ddmin<T, F>(
  body: T[],
  test: (cand: T[]) => Promise<{ body: T[]; found: F } | undefined>,
  maxRuns: number,
): Promise<{ body: T[]; found?: F; runs: number }> {
  let found: F | undefined;
  let runs = 0;
  let n = 2;
  while (body.length > 0 && runs < maxRuns) {
    const size = Math.ceil(body.length / n);
    let reduced = false;
    for (let start = 0; start < body.length && runs < maxRuns; start += size) {
      runs++;
      const r = await test([...body.slice(0, start), ...body.slice(start + size)]);
      if (r) {
        body = r.body;
        found = r.found;
        n = Math.max(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (size <= 1) break;
      n = Math.min(n * 2, body.length);
    }
  }
  return { body, found, runs };
}
