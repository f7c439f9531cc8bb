// Runs one schedule of the fault explorer on the real firmware bundle, checks the model's invariants
// after every step, shrinks a failing schedule (delta debugging over its operations) and writes it as
// a scenario that `saphir sim --scenario FILE` replays.
import { ddmin } from './ddmin.ts';
import { CONFIG_INT_LIMITS, CONFIG_YAML_NAMES, type ConfigIntField } from '../../src/config-schema.ts';
import { stringify } from 'yaml';
import { Simulator, bootChip, ensureBundle, type SimVariant } from '../sim.ts';
import { bootInfo } from '../../rom/bootloader.ts';
import { runScenario, simulatorFor } from '../runner.ts';
import { parseScenario, type Scenario, type Step } from '../scenario.ts';
import { ticketCode } from '../tickets.ts';
import { simHost } from '../host.ts';
import { hostVerify } from '../v8-host.ts';
import { hostEd25519Bundle } from '../../tools/build-stale.ts';
import { composeZones, makeRng } from '../../src/gen/index.ts';
import { encodeTicket } from '../../src/sph1/encode.ts';
import { TEST_KEY_ID, TEST_KEY_SEED_HEX } from '../../src/sph1/keys.ts';
import { AMOUNTS_EUR, NUMBERS } from '../../src/game/rules.ts';
import { fromHex } from '../../src/hex.ts';
import { utf8Encode } from '../../src/utf8.ts';
import { Model, ViolationError, type BootView, type Violation } from './model.ts';
import { MARK_SECTORS, combineLogs, logSectors, readLog, type LogRead } from './ledger-reader.ts';
import { LAYOUT, SECTOR_SIZE } from '../../rom/layout.ts';
import { makeSchedule, toScenario, type Op, type Schedule, type ScheduleOptions } from './schedule.ts';
import type { Gate } from './menu.ts';

/** The firmware heap bound the model holds it to (the VM's limit is 8 MiB). */
export const HEAP_LIMIT = 4 << 20;

export interface ExploreOptions extends ScheduleOptions {
  /** Firmware bundle text (developer mode); default firmware/dist/saphir-fw.js. */
  bundle?: string;
  gates?: Gate[];
  /** Shrink a failing schedule (default true); at most this many reruns. */
  shrink?: boolean;
  shrinkRuns?: number;
  /**
   * The engine: `v8` (default) runs the same bundle in the host's engine, tens of times faster, with
   * every `quickjsEvery`-th schedule on QuickJS (the heap invariant is checked there), and every
   * violation run again on QuickJS; `quickjs` or `quickjs-ng` run every schedule on that engine.
   */
  variant?: SimVariant;
  /** Under `v8`: schedules whose index is a multiple of this run on QuickJS (default 32; 0: none). */
  quickjsEvery?: number;
  /**
   * Under `v8`, with the default bundle: `host` (default) runs it as built to ask the host for its
   * Ed25519 curve work (tools/build.ts hostEd25519Bundle), `firmware` runs it as shipped, curve work
   * and all. QuickJS always runs `bundle` untouched, and has the last word on every violation.
   */
  ed25519?: 'host' | 'firmware';
  /** The bundle the v8 runs take (set from `ed25519`); default `bundle`. */
  v8Bundle?: string;
  /** Under `v8` with `host`: the host's Ed25519 answers remembered (default true; false for a figure without). */
  verifyMemo?: boolean;
}

/** The engine schedule `index` runs on. */
export function engineOf(index: number, o: Pick<ExploreOptions, 'variant' | 'quickjsEvery'>): SimVariant {
  const v = o.variant ?? 'v8';
  if (v !== 'v8') return v;
  const every = o.quickjsEvery ?? 32;
  return every > 0 && index % every === 0 ? 'quickjs' : 'v8';
}

export interface ScheduleResult {
  seed: string;
  index: number;
  ops: number;
  steps: number;
  /** Operations by kind. */
  kinds: Record<string, number>;
  /** Invariant checks passed, by invariant. */
  checks: Record<number, number>;
  /** Update steps played, by how they went (countUpdate). */
  updates: Record<string, number>;
  violation?: Violation;
  /** The engine it ran on. */
  engine: SimVariant;
  /** Found under v8: whether QuickJS breaks the same invariant on the same schedule. */
  onQuickjs?: boolean;
  /** The shrunk failing schedule, as a scenario YAML text, and whether replaying it fails where it should. */
  shrunk?: { ops: number; steps: number; yaml: string; reproduces: boolean; runs: number };
  wallMs: number;
}

const codeCache = new Map<string, string>();
/** Ticket codes are signed in Node: the same ticket comes back often, so keep them. */
function cachedCode(t: Parameters<typeof ticketCode>[0]): string {
  const k = `${t.emission}/${t.block}/${t.number}/${t.prize}/${t.key ?? 'test'}`;
  let c = codeCache.get(k);
  if (c === undefined) {
    c = ticketCode(t);
    if (codeCache.size > 5000) codeCache.clear();
    codeCache.set(k, c);
  }
  return c;
}

const BASE45 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';
/** Wins no row of the prize table pays (one match of that amount). */
const UNTABLED_EUR = [20, 40, 50, 100, 1000, 5000];

/**
 * `@foreign:e/b/n/p/g`: that ticket signed with the trusted test key for game g; `@untabled:e/b/n/r`:
 * a ticket signed with it whose one match wins an amount no prize of the table pays (r picks which).
 */
function resolveSigned(code: string): string | undefined {
  const f = /^@foreign:(\d+)\/(\d+)\/(\d+)\/(\d+)\/(\d+)$/.exec(code);
  const u = /^@untabled:(\d+)\/(\d+)\/(\d+)\/(\d+)$/.exec(code);
  if (!f && !u) return undefined;
  let c = codeCache.get(code);
  if (c !== undefined) return c;
  const id = { emission: +(f ?? u)![1], block: +(f ?? u)![2], number: +(f ?? u)![3], keyId: TEST_KEY_ID };
  const seed = fromHex(TEST_KEY_SEED_HEX);
  if (f) {
    const rng = makeRng(utf8Encode(`sim:${id.emission}/${id.block}/${id.number}/${f[4]}`));
    c = encodeTicket({ ...id, game: +f[5] }, composeZones(+f[4], rng), seed, simHost().sign);
  } else {
    const r = +u![4];
    // Six winning numbers, twenty others; the first of "Vos numéros" is the one match.
    const winning = NUMBERS.slice(0, 6);
    const player = NUMBERS.slice(6, 26).map((n, i) => ({ number: n, amountEur: AMOUNTS_EUR[(r + i) % 4] }));
    player[0] = { number: winning[r % 6], amountEur: UNTABLED_EUR[r % UNTABLED_EUR.length] };
    c = encodeTicket(id, { winning, player }, seed, simHost().sign);
  }
  codeCache.set(code, c);
  return c;
}

/** `@mutate:e/b/n/p/r`: the genuine code of that ticket with one character changed (r picks which). */
export function resolveCode(code: string): string {
  const signed = resolveSigned(code);
  if (signed !== undefined) return signed;
  const m = /^@mutate:(\d+)\/(\d+)\/(\d+)\/(\d+)\/(\d+)$/.exec(code);
  if (!m) return code;
  const good = cachedCode({ emission: +m[1], block: +m[2], number: +m[3], prize: +m[4] });
  const r = +m[5];
  const at = 5 + (r % (good.length - 5));
  const now = BASE45.indexOf(good[at]);
  const repl = BASE45[(now + 1 + ((r >>> 8) % (BASE45.length - 1))) % BASE45.length];
  return good.slice(0, at) + repl + good.slice(at + 1);
}

const BOOT_STEPS = new Set(['boot', 'reboot', 'ensure-on', 'power-cut', 'update', 'provision']);

/** Service requests before BEGIN, where the device has not seen the image yet (a cut there judges nothing). */
const PRE_IMAGE = new Set(['identify', 'auth', 'abort']);

function bootView(sim: Simulator, step: Step): BootView {
  sim.chip.powerOn();
  const info = bootInfo(bootChip(sim.chip));
  const u = step.kind === 'update' ? sim.lastUpdate : undefined;
  const counters = { base: 1, next: 2, older: 0, forged: 2 } as const;
  return {
    minCounter: info.state.minCounter,
    validCounters: info.slots.filter((x) => x.status === 'valid').map((x) => x.securityCounter ?? -1),
    bootMode: sim.bootMode,
    runningSlot: sim.booted ? sim.booted.slot : null,
    confirmedSlot: info.state.confirmed,
    pendingConfirm: sim.pendingConfirm,
    update:
      step.kind === 'update' && u
        ? {
            image: step.image,
            counter: counters[step.image],
            ok: u.ok,
            reason: u.ok ? undefined : u.reason,
            beforeImage: !u.ok && u.reason === 'power-cut' && u.stage !== undefined && PRE_IMAGE.has(u.stage),
            slot: u.ok ? u.slot : undefined,
          }
        : undefined,
  };
}

interface Run {
  violation?: Violation;
  steps: number;
  checks: Record<number, number>;
  updates: Record<string, number>;
}

/** Counts an update step by how it went (`direct`, `service`, and of those: cut, resumed, installed, refused). */
function countUpdate(updates: Record<string, number>, step: Step & { kind: 'update' }, sim: Simulator): void {
  const u = sim.lastUpdate;
  const add = (k: string) => (updates[k] = (updates[k] ?? 0) + 1);
  add(step.via ?? 'direct');
  if (!u || step.via !== 'service') return;
  if (u.ok) add('service-installed');
  else add(u.reason === 'power-cut' ? 'service-cut' : 'service-refused');
  if (step.resume && (u.resumedFrom ?? 0) > 0) {
    add('service-resumed');
    if (u.ok) add('service-resumed-installed');
  }
}

/** Runs the operations `ops` of schedule `s` once; stops at the first violation. */
export async function runOps(
  s: Schedule,
  ops: readonly Op[],
  bundle: string | undefined,
  variant: SimVariant = 'quickjs',
  trace?: string[],
): Promise<Run> {
  const { scenario, meta } = toScenario(s, ops, resolveCode);
  // v8 has no figure of the firmware's own heap, XS's meters count its preallocated arenas (not a
  // QuickJS-comparable figure): invariant 6 is checked on the QuickJS schedules.
  const heapKnown = variant !== 'v8' && variant !== 'xs';
  const model = new Model(s, { heapLimit: HEAP_LIMIT, haltAllowed: s.gates.includes('ledger-damage') });
  const screens: string[][] = [];
  const power: string[] = [];
  const logs: string[] = [];
  const sim: Simulator = simulatorFor(scenario, {
    bundle,
    variant,
    events: {
      display: (lines) => {
        screens.push(lines);
        trace?.push(lines.join('|'));
      },
      power: (p) => void power.push(p),
      log: (l) => {
        logs.push(l);
        trace?.push(l);
      },
    },
  });
  // The runner plays `code` when a step has one; the model reads `ticket`. Signed once per ticket.
  for (const st of scenario.steps) if (st.kind === 'scan' && st.ticket) st.code = cachedCode(st.ticket);
  const checks: Record<number, number> = { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0 };
  let faults = 0;
  let chipOps = -1;
  let violation: Violation | undefined;
  let steps = 0;
  const updates: Record<string, number> = {};
  try {
    await runScenario(scenario, {
      sim,
      bundle,
      onStep: (r) => {
        const i = r.line - 1;
        steps = r.line;
        const step = scenario.steps[i];
        if (step.kind === 'update' && r.ok) countUpdate(updates, step, sim);
        // Read again only when the chip was written or damaged since the last read.
        const touched =
          sim.chip.ops !== chipOps || step.kind === 'flip-bit' || step.kind === 'lose-sector' || step.kind === 'press';
        let ledger;
        if (touched || meta[i].op === 'settle') {
          chipOps = sim.chip.ops;
          try {
            ledger = readDeviceLedger(sim);
          } catch (e) {
            ledger = { error: (e as Error).message };
          }
        }
        const fresh = sim.faults.slice(faults);
        faults = sim.faults.length;
        if (!r.ok) throw new ViolationError({ invariant: 4, step: r.line, message: `the step failed: ${r.problem}` });
        for (const f of fresh)
          throw new ViolationError({
            invariant: 4,
            step: r.line,
            message: `VM fault ${f.kind} in ${f.where}: ${f.message}`,
          });
        model.observe({
          step,
          meta: meta[i],
          index: r.line,
          screens: screens.splice(0),
          power: power.splice(0),
          logs: logs.splice(0),
          on: sim.on,
          clockMs: sim.clock,
          nowMs: sim.now,
          ledger,
          boot: s.images && BOOT_STEPS.has(step.kind) ? bootView(sim, step) : undefined,
          heapBytes: heapKnown && (i % 16 === 15 || meta[i].op === 'settle') ? sim.heapUsed() : undefined,
        });
        checks[3]++;
        if (ledger) checks[2]++;
        if (s.images && BOOT_STEPS.has(step.kind)) checks[5]++;
        checks[1]++;
        checks[4]++;
        if (heapKnown && i % 16 === 15) checks[6]++;
      },
    });
  } catch (e) {
    if (!(e instanceof ViolationError)) throw e;
    violation = e.v;
  } finally {
    sim.dispose();
    sim.chip.recycle();
  }
  return { violation, steps, checks, updates };
}

let defaultBundle: string | undefined;
let hostBundle: Promise<string> | undefined;

/**
 * `o` with its bundles: `bundle` (default: the shipped one, checked against the sources once per
 * process) and, for the shipped one on v8 unless `ed25519` is `firmware`, `v8Bundle`, its host-Ed25519
 * build (kept in node_modules/.cache while current: tools/build-stale.ts). A bundle of other sources (a
 * planted defect) runs as it is.
 */
export async function withBundles(o: ExploreOptions): Promise<ExploreOptions> {
  if (o.v8Bundle !== undefined) return o;
  const shipped = (defaultBundle ??= ensureBundle());
  const bundle = o.bundle ?? shipped;
  const host = o.ed25519 !== 'firmware' && (o.variant ?? 'v8') === 'v8' && bundle === shipped;
  return {
    ...o,
    bundle,
    v8Bundle: host ? await (hostBundle ??= hostEd25519Bundle()) : undefined,
  };
}

/** Runs schedule (seed, index); on a violation, shrinks it and writes its scenario text. */
export async function exploreOne(
  seed: string | number,
  index: number,
  o: ExploreOptions = {},
): Promise<ScheduleResult> {
  const wall = performance.now();
  hostVerify.memo = o.verifyMemo !== false;
  o = await withBundles(o);
  const s = makeSchedule(seed, index, o);
  const engine = engineOf(index, o);
  const bundle = engine === 'v8' ? (o.v8Bundle ?? o.bundle) : o.bundle;
  const run = await runOps(s, s.ops, bundle, engine);
  let onQuickjs: boolean | undefined;
  if (run.violation && engine === 'v8') {
    // The device's engine has the last word: QuickJS's violation is the one reported when it agrees.
    const q = await runOps(s, s.ops, o.bundle, 'quickjs');
    onQuickjs = q.violation?.invariant === run.violation.invariant;
    if (onQuickjs) run.violation = q.violation;
    else
      run.violation = {
        ...run.violation,
        message: `${run.violation.message} (under v8 only: QuickJS ${q.violation ? `broke invariant ${q.violation.invariant} instead` : 'ran the schedule clean'}, the engines differ here)`,
      };
  }
  const kinds: Record<string, number> = {};
  for (const op of s.ops) kinds[op.kind] = (kinds[op.kind] ?? 0) + 1;
  const res: ScheduleResult = {
    seed: String(seed),
    index,
    ops: s.ops.length,
    steps: run.steps,
    kinds,
    checks: run.checks,
    updates: run.updates,
    violation: run.violation,
    engine,
    ...(onQuickjs === undefined ? {} : { onQuickjs }),
    wallMs: 0,
  };
  if (run.violation && o.shrink !== false) {
    const { ops, violation, runs } = await shrink(s, run.violation, bundle, o.shrinkRuns ?? 300, engine);
    const yaml = scenarioYaml(s, ops, violation);
    const reproduces = await replays(yaml, violation, o.bundle);
    res.violation = violation;
    res.shrunk = { ops: ops.length, steps: violation.step + (violation.expect?.length ?? 0), yaml, reproduces, runs };
  }
  res.wallMs = performance.now() - wall;
  return res;
}

/**
 * Delta debugging (ddmin) over the operations: drops chunks, then single operations, keeping any
 * smaller schedule that still breaks the same invariant. The first operation (boot) always stays.
 */
export async function shrink(
  s: Schedule,
  v: Violation,
  bundle: string | undefined,
  maxRuns: number,
  variant: SimVariant = 'quickjs',
): Promise<{ ops: Op[]; violation: Violation; runs: number }> {
  // Operations after the one that failed play no part.
  const { meta } = toScenario(s, s.ops, (c) => c);
  let stepsSeen = 0;
  let cut = s.ops.length;
  for (let i = 0; i < s.ops.length; i++) {
    stepsSeen += s.ops[i].steps.length;
    if (stepsSeen >= Math.min(v.step, meta.length)) {
      cut = i + 1;
      break;
    }
  }
  let ops = s.ops.slice(0, Math.max(cut, 1));
  let best = v;
  let runs = 0;
  const still = async (cand: Op[]): Promise<Violation | undefined> => {
    runs++;
    const r = await runOps(s, cand, bundle, variant);
    return r.violation && r.violation.invariant === v.invariant ? r.violation : undefined;
  };
  // Truncating may already lose it (a later step's ensure-on…): check once.
  if (ops.length < s.ops.length) {
    const w = await still(ops);
    if (w) best = w;
    else ops = s.ops.slice();
  }
  const first = ops[0];
  const r = await ddmin(
    ops.slice(1),
    async (b) => {
      const cand = [first, ...b];
      const w = await still(cand);
      return w ? { body: cand.slice(1, opsUpTo(cand, w.step)), found: w } : undefined;
    },
    maxRuns - runs,
  );
  ops = [first, ...r.body];
  if (r.found) best = r.found;
  return { ops, violation: best, runs };
}

/** How many operations hold the first `step` scenario steps. */
function opsUpTo(ops: readonly Op[], step: number): number {
  let seen = 0;
  let armed = false;
  for (let i = 0; i < ops.length; i++) {
    for (const st of ops[i].steps) {
      if (armed && (st.kind === 'scan' || st.kind === 'press')) seen++;
      seen++;
      if (st.kind === 'power-cut' && st.afterFlashOps) armed = true;
    }
    if (seen >= step) return i + 1;
  }
  return ops.length;
}

/** The scenario YAML of a (shrunk) failing schedule: its steps up to the failure, then what the model expected there. */
export function scenarioYaml(s: Schedule, ops: readonly Op[], v: Violation): string {
  const { scenario } = toScenario(s, ops, resolveCode);
  const steps = scenario.steps.slice(0, v.step);
  const last = steps[steps.length - 1];
  if (v.withoutPress && last?.kind === 'scan') steps[steps.length - 1] = { ...last, during: undefined };
  const c = scenario.config!;
  const doc: Record<string, unknown> = {
    name: `explore seed ${s.seed} index ${s.index}: invariant ${v.invariant}`,
    description:
      `Found by saphir sim --explore (seed ${s.seed}, index ${s.index}${s.gates.length ? `, faults ${s.gates.join(',')}` : ''}), shrunk to ${ops.length} operations. ` +
      `Invariant ${v.invariant} broke at step ${v.step}: ${v.message}.` +
      (v.expect?.length
        ? ` The last step checks what the model expected.`
        : ` A scenario cannot check this invariant: the replay shows the steps only.`),
    seed: scenario.seed,
    device: { 'ledger-sectors': scenario.device!.ledgerSectors },
    config: {
      language: c.lang,
      clock: new Date(s.clockMs).toISOString(),
      emissions: c.emissions!.map((e) => ({ emission: e.emission, closes: e.closingDate })),
      // Every whole-number field the schedule set (clock-jump-days too: the replay must believe the same clocks).
      ...Object.fromEntries(
        (Object.keys(CONFIG_INT_LIMITS) as ConfigIntField[])
          .filter((k) => c[k] !== undefined)
          .map((k) => [CONFIG_YAML_NAMES[k], c[k]]),
      ),
      inputs: c.inputs,
    },
    steps: [...steps, ...(v.expect ?? [])].map(stepYaml),
  };
  // The swarm's weights this schedule was drawn with (from seed and index alone: the record, not the input).
  const weights = Object.entries(s.weights)
    .map(([k, w]) => `${k} ${w}`)
    .join(', ');
  return `# saphir sim --scenario FILE replays this schedule; it fails at its last step while the defect is there.\n# Operation weights (swarm): ${weights}\n${stringify(doc, { lineWidth: 0 })}`;
}

export function stepYaml(s: Step): unknown {
  switch (s.kind) {
    case 'boot':
    case 'reboot':
    case 'ensure-on':
    case 'provision':
      return s.kind;
    case 'expect-image':
      return {
        'expect-image': {
          ...(s.slot ? { slot: s.slot } : {}),
          ...(s.confirmed !== undefined ? { confirmed: s.confirmed } : {}),
        },
      };
    case 'update':
      return {
        update: {
          image: s.image,
          ...(s.via ? { via: s.via } : {}),
          ...(s.afterFlashOps ? { 'after-flash-ops': s.afterFlashOps } : {}),
          ...(s.resume ? { resume: true } : {}),
        },
      };
    case 'power-cut':
      return s.afterFlashOps ? { 'power-cut': { 'after-flash-ops': s.afterFlashOps } } : 'power-cut';
    case 'delay':
      return { delay: `${s.ms}ms` };
    case 'set-clock':
      return { 'set-clock': s.text };
    case 'press':
      return { press: s.key };
    case 'flip-bit':
    case 'lose-sector':
      return { [s.kind]: s.index };
    case 'scan': {
      const body: Record<string, unknown> = s.ticket ? { ticket: { ...s.ticket } } : { code: s.code };
      if (s.during) body.press = { key: s.during.key, at: `${s.during.atMs}ms` };
      return { scan: { ...body, via: s.via, ...s.options } };
    }
    case 'expect-display': {
      const e: Record<string, unknown> =
        s.contains !== undefined ? { contains: s.contains } : { matches: s.matches!.source };
      if (s.row) e.line = s.row;
      e.within = `${s.withinMs}ms`;
      return { 'expect-display': e };
    }
    case 'expect-ledger': {
      const e: Record<string, unknown> = {};
      if (s.count !== undefined) e.count = s.count;
      if (s.contains) e.contains = s.contains;
      return { 'expect-ledger': e };
    }
    default:
      throw new Error(`explorer: cannot write step ${s.kind}`);
  }
}

/** Whether the scenario text fails at the step where the violation showed (or after it, for checks). */
export async function replays(yaml: string, v: Violation, bundle: string | undefined): Promise<boolean> {
  if (!v.expect?.length) return false;
  const sc: Scenario = parseScenario(yaml, 'explore.yaml');
  const r = await runScenario(sc, { bundle });
  return !r.ok && r.steps.length > v.step;
}

export { makeSchedule };

/** Each log as last read, with the chip's generation of its sectors then (NorFlash.generation). */
const logCache = new WeakMap<object, { gens: number[]; logs: LogRead[] }>();

/**
 * The device's ledger read by the explorer's own reader (docs/ledger.md's format), not the firmware's:
 * the payments, or why the model must refuse them (two valid copies of a ticket that differ). A log
 * whose sectors nothing erased, programmed or damaged since the last read is not read again (most
 * steps write the check journal or the time mark, not a payment).
 */
export function readDeviceLedger(
  sim: Simulator,
): { emission: number; block: number; number: number; prizeEur: number }[] | { error: string } {
  // Reading needs the chip powered; a later boot powers it anyway.
  sim.chip.powerOn();
  const { offset, size } = LAYOUT.ledger;
  const length = Math.min(size, (sim.ledgerSectors ?? Infinity) * SECTOR_SIZE);
  const bytes = sim.chip.peek(offset, length);
  const n = logSectors(length, SECTOR_SIZE);
  let cached = logCache.get(sim.chip);
  if (!cached) logCache.set(sim.chip, (cached = { gens: [-1, -1], logs: [] }));
  for (const k of [0, 1]) {
    const first = MARK_SECTORS + k * n;
    const gen = sim.chip.generation(offset + first * SECTOR_SIZE, n * SECTOR_SIZE);
    if (gen !== cached.gens[k] || !cached.logs[k]) {
      cached.logs[k] = readLog(bytes, first, n, SECTOR_SIZE);
      cached.gens[k] = gen;
    }
  }
  const r = combineLogs(cached.logs[0], cached.logs[1]);
  if (r.disagree.length) return { error: `the two logs hold different payments for ${r.disagree.join(', ')}` };
  return r.payments;
}
