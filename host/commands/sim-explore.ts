// saphir sim --explore N: the fault explorer (hw-sim/explore, docs/explorer.md).
import { intOf, UsageError } from '../args.ts';
import type { Lang } from '../../src/i18n.ts';
import { messages } from '../../src/messages/index.ts';
import { ensureBundle } from '../../hw-sim/sim.ts';
import { buildNotice } from '../build-notice.ts';
import { explore, gatesOf, GATES, INVARIANTS, type ExploreSummary, type Failure } from '../../hw-sim/explore/index.ts';
import '../../hw-sim/node-host.ts';
import { exploreFleet } from './sim-fleet.ts';
import { needXs } from './sim/common.ts';
import { FLEET_INVARIANTS } from '../../hw-sim/explore/fleet-model.ts';
import { untilStopped } from '../stop.ts';
import { eachTenth } from '../progress.ts';

export interface ExploreArgs {
  explore: string;
  seed?: string;
  index?: string;
  jobs?: string;
  json?: boolean;
  out?: string;
  faults?: string;
  /** Fleet mode (hw-sim/explore/fleet.ts), with `devices` devices a schedule (default 2–4). */
  fleet?: boolean;
  devices?: string;
  /** Fleet mode: the attacker's operations too. */
  attacker?: boolean;
  variant?: string;
  'quickjs-every'?: string;
  ed25519?: string;
  lang: Lang;
}

/** What both modes read the same way: how many schedules, from which seed and index, on how many threads. */
function runArgs(a: ExploreArgs) {
  const count = intOf(a.explore, '--explore', 1, 10_000_000);
  const seed = a.seed ?? String(Date.now() % 1_000_000);
  const first = a.index === undefined ? 0 : intOf(a.index, '--index', 0);
  if (a.index !== undefined && count !== 1) throw new UsageError((m) => m.explore.indexOne);
  const jobs = a.jobs === undefined ? undefined : intOf(a.jobs, '--jobs', 1, 256);
  const bundle = ensureBundle((why) => process.stderr.write(buildNotice(a.lang, why) + '\n'));
  return { count, seed, first, jobs, bundle, outDir: a.out ?? '.sim/explore' };
}

/**
 * The terminal side of both modes: a line at the start (the seed, known before any result), progress
 * (drawn on a terminal, a line each tenth elsewhere), each violation as it comes, then the scenarios
 * written and the summary. Ctrl-C says how far the run got, with its seed, and exits 130.
 */
function presenter(a: ExploreArgs, count: number, seed: string, invariants: Record<number, string>, fleet = false) {
  const m = messages(a.lang).explore;
  const tty = !a.json && process.stderr.isTTY;
  let lastDraw = 0;
  let last: ExploreSummary | undefined;
  const line = (sum: ExploreSummary) => m.progress(sum.schedules, count, sum.schedulesPerS, sum.violations);
  const tenth = eachTenth(() => process.stderr.write(line(last!) + '\n'));
  const ctrlC = untilStopped(['SIGINT']);
  void ctrlC.stopped.then(() => {
    if (tty) process.stderr.write('\n');
    const text = m.interrupted(last?.schedules ?? 0, count, seed, last?.violations ?? 0);
    process.stderr.write(text + '\n', () => process.exit(130));
  });
  return {
    onStart(threads: number) {
      if (!a.json) process.stderr.write(m.start(count, seed, threads, fleet) + '\n');
    },
    onResult(
      r: { index: number; violation?: { invariant: number; step: number; message: string } },
      sum: ExploreSummary,
    ) {
      last = sum;
      const now = performance.now();
      if (tty && (now - lastDraw > 200 || sum.schedules === count)) {
        lastDraw = now;
        process.stderr.write(`\r${line(sum)}   `);
      }
      if (!a.json && !tty) tenth({ done: sum.schedules, total: count });
      if (!a.json && r.violation) {
        if (tty) process.stderr.write('\n');
        process.stdout.write(
          `✗ ${seed}#${r.index}: ${m.failure} ${r.violation.invariant} (${invariants[r.violation.invariant]}), step ${r.violation.step}: ${r.violation.message}\n`,
        );
      }
    },
    /** `replay`: the explorer command line that replays failure `f` alone. */
    finish(s: ExploreSummary, replay: (f: Failure) => string, extra = ''): number {
      ctrlC.off();
      if (tty) process.stderr.write('\n');
      if (a.json) {
        process.stdout.write(JSON.stringify(s) + '\n');
      } else {
        for (const f of s.failures) {
          if (f.file)
            process.stdout.write(
              `  ${m.written}: ${f.file} (${f.shrunkOps} ops; ${m.reproduces(!!f.reproduces)})\n  ${m.replay}: saphir sim --scenario ${f.file}   |   ${replay(f)}\n`,
            );
        }
        process.stdout.write(
          m.summary(
            s.schedules,
            s.seed,
            s.operations,
            s.steps,
            s.wallMs / 1000,
            s.schedulesPerS,
            s.stepsPerS,
            s.violations,
          ) +
            '\n' +
            extra,
        );
      }
      return s.violations > 0 ? 1 : 0;
    },
  };
}

export async function exploreCommand(a: ExploreArgs): Promise<number> {
  if (a.fleet) return fleetCommand(a);
  if (a.devices !== undefined) throw new UsageError((m) => m.explore.devicesFleet);
  if (a.attacker) throw new UsageError((m) => m.explore.attackerFleet);
  // Since the mirrored ledger and trusted time (#9), every fault group is on unless --faults says otherwise.
  const groups = a.faults
    ? a.faults
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : ['all'];
  const unknown = groups.find((g) => g !== 'all' && g !== 'none' && !(GATES as readonly string[]).includes(g));
  if (unknown !== undefined) throw new UsageError((m) => m.explore.faults(unknown, [...GATES, 'all'].join(', ')));
  const gates = gatesOf(groups);
  const variant = a.variant ?? 'v8';
  if (variant !== 'v8' && variant !== 'quickjs' && variant !== 'quickjs-ng' && variant !== 'xs')
    throw new UsageError((m) => m.explore.variant);
  if (variant === 'xs') needXs();
  const quickjsEvery = a['quickjs-every'] === undefined ? undefined : intOf(a['quickjs-every'], '--quickjs-every', 0);
  const ed25519 = a.ed25519;
  if (ed25519 !== undefined && ed25519 !== 'host' && ed25519 !== 'firmware')
    throw new UsageError((m) => m.explore.ed25519);
  const run = runArgs(a);
  const show = presenter(a, run.count, run.seed, INVARIANTS);
  const s = await explore({
    ...run,
    gates,
    variant,
    quickjsEvery,
    ed25519,
    onStart: show.onStart,
    onResult: show.onResult,
  });
  return show.finish(
    s,
    (f) =>
      `saphir sim --explore 1 --seed ${f.seed} --index ${f.index}${gates.length ? ` --faults ${gates.join(',')}` : ''}` +
      (a.variant ? ` --variant ${a.variant}` : '') +
      (a['quickjs-every'] ? ` --quickjs-every ${a['quickjs-every']}` : '') +
      (ed25519 ? ` --ed25519 ${ed25519}` : ''),
    messages(a.lang).explore.engines(s.engines, s.v8Ed25519) +
      '\n' +
      (Object.keys(s.updates).length ? messages(a.lang).explore.updates(s.updates) + '\n' : ''),
  );
}

/** `--explore N --fleet`: fleet schedules, checked by the fleet model (docs/explorer.md, "Fleet mode"). */
async function fleetCommand(a: ExploreArgs): Promise<number> {
  if (a.faults !== undefined) throw new UsageError((m) => m.explore.faultsFleet);
  if (a.variant !== undefined || a['quickjs-every'] !== undefined || a.ed25519 !== undefined)
    throw new UsageError((m) => m.explore.fleetEngine);
  const devices = a.devices === undefined ? undefined : intOf(a.devices, '--devices', 2, 4);
  const run = runArgs(a);
  const show = presenter(a, run.count, run.seed, FLEET_INVARIANTS, true);
  const s = await exploreFleet({
    ...run,
    devices,
    attacker: a.attacker,
    onStart: show.onStart,
    onResult: show.onResult,
  });
  return show.finish(
    s,
    (f) =>
      `saphir sim --explore 1 --fleet --seed ${f.seed} --index ${f.index}${devices ? ` --devices ${devices}` : ''}${a.attacker ? ' --attacker' : ''}`,
    messages(a.lang).explore.fleet(s.payments.online, s.payments.offline, s.payments.unknown, s.phantomHolds) +
      (a.attacker ? ' ' + messages(a.lang).explore.fleetErased(s.erasedDoubles) : '') +
      '\n' +
      (s.kinds.notice ? messages(a.lang).explore.fleetNotices(s.kinds, s.notices) + '\n' : ''),
  );
}
