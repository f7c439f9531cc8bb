// One seeded explorer schedule (seed `xs-engine`, every fault group, at most 70 operations) run on
// QuickJS and on XS, compared screen by screen, log line by line and verdict by verdict: for
// xs-engine.test.ts (a few) and xs-engine.long.ts (the 1 000 of docs/firmware.md, "Engines").
import { makeSchedule, runOps } from '../../hw-sim/explore/explore.ts';
import { GATES } from '../../hw-sim/explore/menu.ts';

export interface Compared {
  index: number;
  steps: number;
  /** Screens and log lines compared. */
  lines: number;
  /** The model's verdict on QuickJS: the invariant broken, or null. */
  violation: number | null;
  /** The first difference between the engines, or null. */
  difference: string | null;
  /** Milliseconds of the run on each engine. */
  quickjsMs: number;
  xsMs: number;
}

export const XS_SEED = 'xs-engine';

export async function compareSchedule(bundle: string, index: number): Promise<Compared> {
  const s = makeSchedule(XS_SEED, index, { maxOps: 70, gates: [...GATES] });
  const q: string[] = [];
  const x: string[] = [];
  const t0 = performance.now();
  const rq = await runOps(s, s.ops, bundle, 'quickjs', q);
  const t1 = performance.now();
  const rx = await runOps(s, s.ops, bundle, 'xs', x);
  const t2 = performance.now();
  const at = q.findIndex((line, k) => line !== x[k]);
  const vq = rq.violation ? `${rq.violation.invariant} at step ${rq.violation.step}: ${rq.violation.message}` : 'none';
  const vx = rx.violation ? `${rx.violation.invariant} at step ${rx.violation.step}: ${rx.violation.message}` : 'none';
  const difference =
    at >= 0
      ? `line ${at}: quickjs «${q[at]}», xs «${x[at]}»`
      : x.length !== q.length
        ? `quickjs showed ${q.length} lines, xs ${x.length}`
        : vq !== vx
          ? `verdict: quickjs ${vq}, xs ${vx}`
          : rq.steps !== rx.steps
            ? `steps: quickjs ${rq.steps}, xs ${rx.steps}`
            : null;
  return {
    index,
    steps: rq.steps,
    lines: q.length,
    violation: rq.violation?.invariant ?? null,
    difference,
    quickjsMs: t1 - t0,
    xsMs: t2 - t1,
  };
}
