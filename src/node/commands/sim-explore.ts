// saphir sim --explore N: the fault explorer (hw-sim/explore, docs/explorer.md).
import { intOf, UsageError } from '../args.ts';
import type { Lang } from '../../i18n.ts';
import { ensureBundle } from '../../../hw-sim/sim.ts';
import { buildNotice } from '../build-notice.ts';
import { explore, gatesOf, INVARIANTS, type ExploreSummary, type Failure } from '../../../hw-sim/explore/index.ts';
import '../../../hw-sim/node-host.ts';
import { exploreFleet, type FleetSummary } from './sim-fleet.ts';
import { FLEET_INVARIANTS } from '../../../hw-sim/explore/fleet-model.ts';

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
  lang: Lang;
}

const M = {
  fr: {
    progress: (s: ExploreSummary, n: number) =>
      `${s.schedules}/${n} programmes, ${s.schedulesPerS.toFixed(1)}/s, ${s.violations} violation(s)`,
    summary: (s: ExploreSummary) =>
      `${s.schedules} programmes (graine ${s.seed}), ${s.operations} opérations, ${s.steps} étapes en ${(s.wallMs / 1000).toFixed(1)} s : ` +
      `${s.schedulesPerS.toFixed(1)} programmes/s, ${s.stepsPerS.toFixed(0)} étapes/s. ${s.violations} violation(s).`,
    failure: 'invariant',
    written: 'scénario',
    replay: 'rejouer',
    reproduces: (ok: boolean) =>
      ok ? 'le scénario reproduit le défaut' : 'le scénario ne peut pas vérifier cet invariant',
    fleet: (s: FleetSummary) =>
      `Paiements : ${s.payments.online} en ligne, ${s.payments.offline} hors ligne, ${s.payments.unknown} coupés avant PAYÉ ; ` +
      `${s.phantomHolds} ticket(s) tenu(s) par le registre pour un appareil qui ne l’a pas payé (réponse perdue).`,
  },
  en: {
    progress: (s: ExploreSummary, n: number) =>
      `${s.schedules}/${n} schedules, ${s.schedulesPerS.toFixed(1)}/s, ${s.violations} violation(s)`,
    summary: (s: ExploreSummary) =>
      `${s.schedules} schedules (seed ${s.seed}), ${s.operations} operations, ${s.steps} steps in ${(s.wallMs / 1000).toFixed(1)} s: ` +
      `${s.schedulesPerS.toFixed(1)} schedules/s, ${s.stepsPerS.toFixed(0)} steps/s. ${s.violations} violation(s).`,
    failure: 'invariant',
    written: 'scenario',
    replay: 'replay',
    reproduces: (ok: boolean) => (ok ? 'the scenario reproduces the defect' : 'a scenario cannot check this invariant'),
    fleet: (s: FleetSummary) =>
      `Payments: ${s.payments.online} online, ${s.payments.offline} offline, ${s.payments.unknown} cut before PAYÉ; ` +
      `${s.phantomHolds} ticket(s) held by the registry for a device that did not pay it (answer lost).`,
  },
} as const;

/** What both modes read the same way: how many schedules, from which seed and index, on how many threads. */
function runArgs(a: ExploreArgs) {
  const count = intOf(a.explore, '--explore', 1, 10_000_000);
  const seed = a.seed ?? String(Date.now() % 1_000_000);
  const first = a.index === undefined ? 0 : intOf(a.index, '--index', 0);
  if (a.index !== undefined && count !== 1)
    throw new UsageError('--index replays one schedule: use it with --explore 1');
  const jobs = a.jobs === undefined ? undefined : intOf(a.jobs, '--jobs', 1, 256);
  const bundle = ensureBundle((why) => process.stderr.write(buildNotice(a.lang, why) + '\n'));
  return { count, seed, first, jobs, bundle, outDir: a.out ?? '.sim/explore' };
}

/** The terminal side of both modes: progress, each violation as it comes, then the scenarios written and the summary. */
function presenter(a: ExploreArgs, count: number, seed: string, invariants: Record<number, string>) {
  const m = M[a.lang];
  const tty = !a.json && process.stderr.isTTY;
  let lastDraw = 0;
  return {
    onResult(
      r: { index: number; violation?: { invariant: number; step: number; message: string } },
      sum: ExploreSummary,
    ) {
      const now = performance.now();
      if (tty && (now - lastDraw > 200 || sum.schedules === count)) {
        lastDraw = now;
        process.stderr.write(`\r${m.progress(sum, count)}   `);
      }
      if (!a.json && r.violation) {
        if (tty) process.stderr.write('\n');
        process.stdout.write(
          `✗ ${seed}#${r.index}: ${m.failure} ${r.violation.invariant} (${invariants[r.violation.invariant]}), step ${r.violation.step}: ${r.violation.message}\n`,
        );
      }
    },
    /** `replay`: the explorer command line that replays failure `f` alone. */
    finish(s: ExploreSummary, replay: (f: Failure) => string, extra = ''): number {
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
        process.stdout.write(m.summary(s) + '\n' + extra);
      }
      return s.violations > 0 ? 1 : 0;
    },
  };
}

export async function exploreCommand(a: ExploreArgs): Promise<number> {
  if (a.fleet) return fleetCommand(a);
  if (a.devices !== undefined) throw new UsageError('--devices goes with --fleet');
  let gates;
  try {
    // Since the mirrored ledger and trusted time (#9), every fault group is on unless --faults says otherwise.
    gates = gatesOf(
      a.faults
        ? a.faults
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : ['all'],
    );
  } catch (e) {
    throw new UsageError(`--faults: ${(e as Error).message}`);
  }
  const run = runArgs(a);
  const show = presenter(a, run.count, run.seed, INVARIANTS);
  const s = await explore({ ...run, gates, onResult: show.onResult });
  return show.finish(
    s,
    (f) =>
      `saphir sim --explore 1 --seed ${f.seed} --index ${f.index}${gates.length ? ` --faults ${gates.join(',')}` : ''}`,
  );
}

/** `--explore N --fleet`: fleet schedules, checked by the fleet model (docs/explorer.md, "Fleet mode"). */
async function fleetCommand(a: ExploreArgs): Promise<number> {
  if (a.faults !== undefined) throw new UsageError('--faults is for single-device schedules, not --fleet');
  const devices = a.devices === undefined ? undefined : intOf(a.devices, '--devices', 2, 4);
  const run = runArgs(a);
  const show = presenter(a, run.count, run.seed, FLEET_INVARIANTS);
  const s = await exploreFleet({ ...run, devices, onResult: show.onResult });
  return show.finish(
    s,
    (f) =>
      `saphir sim --explore 1 --fleet --seed ${f.seed} --index ${f.index}${devices ? ` --devices ${devices}` : ''}`,
    M[a.lang].fleet(s) + '\n',
  );
}
