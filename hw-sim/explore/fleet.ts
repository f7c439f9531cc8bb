// The fault explorer's fleet mode (`saphir sim --explore N --fleet`, docs/explorer.md): 2–4 devices
// running the real firmware share one embedded registry (PGlite, the registry's real SQL and rules);
// schedules of payments on any device, network cuts, partitions, latency and loss, registry restarts
// (same database), reboots and power cuts, then a settle (everything back up, time for every sync),
// checked by the fleet model (fleet-model.ts). A failing schedule is shrunk and written as a fleet
// scenario that `saphir sim --scenario FILE` replays.
import { ddmin } from './ddmin.ts';
import { stringify } from 'yaml';
import { seededRng, type Rng } from '../rng.ts';
import { runScenario } from '../runner.ts';
import { FLEET_ATTACKS, parseScenario, type Scenario, type Step } from '../scenario.ts';
import type { Simulator } from '../sim.ts';
import type { TicketSpec } from '../tickets.ts';
import { ticketCode } from '../tickets.ts';
import type { ScenarioRegistry } from '../runner.ts';
import {
  FleetModel,
  FleetViolation,
  campaignProblem,
  type DeviceView,
  type DrawnNotice,
  type TimedScreen,
} from './fleet-model.ts';
import { classify } from './model.ts';
import { claimEndMs } from './deadline.ts';
import { readNoticeRecords } from './notice-reader.ts';
import { signNotice, signedNoticeText, DEV_OPERATOR_SEED_HEX, type Notice } from '../../src/notice.ts';
import { simHost } from '../host.ts';
import { fromHex } from '../../src/hex.ts';
import { bootChip } from '../sim.ts';
import { readBootState } from '../../rom/bootloader.ts';
import { stepYaml } from './explore.ts';
import type { Violation } from './model.ts';

const DAY = 86_400_000;

export const FLEET_MENU = [
  { kind: 'pay', weight: 30, what: 'a ticket scanned on one device, maybe a pause, OK, then time for the answer' },
  { kind: 'scan', weight: 8, what: 'a ticket scanned on one device' },
  { kind: 'press-ok', weight: 4, what: 'OK on one device' },
  { kind: 'press-c', weight: 2, what: 'C on one device' },
  { kind: 'delay', weight: 8, what: '10 ms to 60 s for the whole fleet (syncs, timeouts)' },
  { kind: 'delay-one', weight: 4, what: '10 ms to 20 s on one device' },
  { kind: 'network-down', weight: 6, what: "one device's network cut" },
  { kind: 'network-up', weight: 6, what: "one device's network back" },
  { kind: 'network-flaky', weight: 4, what: 'one device: latency 5 ms–1.5 s, loss 0–50 %' },
  { kind: 'partition', weight: 3, what: 'a random part of the fleet cut from the registry, the rest connected' },
  { kind: 'heal', weight: 3, what: 'every network up, 20 ms, no loss' },
  { kind: 'registry-down', weight: 2, what: "the registry's server stops (its database stays)" },
  { kind: 'registry-up', weight: 3, what: 'the registry starts again on the same database (a restart)' },
  { kind: 'reboot', weight: 3, what: 'one device rebooted' },
  { kind: 'power-cut', weight: 2, what: "one device's power cut, then boot" },
  {
    kind: 'cut-at-flash-op',
    weight: 4,
    what: 'power cut at the N-th flash operation from now on one device (outbox, ledger), then a payment there',
  },
] as const;
/**
 * Drawn apart (their own random stream, so the operations above stay what they were for a seed): in
 * about a third of the schedules, an update campaign of the next (counter 2), older (counter 0) or forged
 * image, phases 50,100, stopped by one failure, at a random place.
 */
export const FLEET_CAMPAIGN_OP = {
  kind: 'campaign',
  what: 'an update campaign (next, older or forged image; phases 50,100; max 1 failure) for the fleet',
} as const;

/**
 * Operator notices (issue #31), drawn apart too (their own stream): in half of the schedules, 1–3 closing
 * notices of emission 1 published on the registry (the devices fetch them with their syncs), and after
 * the first, sometimes a notice signed by a foreign key (published, or pushed over one device's service
 * port) and sometimes an older one (a lower or equal version, pushed over the service port).
 */
export const FLEET_NOTICE_OPS = [
  { kind: 'notice', what: 'a closing notice of emission 1 signed by the operator, published on the registry' },
  {
    kind: 'notice-foreign',
    what: "a notice signed by a foreign key: published on the registry, or pushed over one device's service port",
  },
  {
    kind: 'notice-older',
    what: "an older notice (version not above the latest), pushed over one device's service port",
  },
] as const;
/** The key a foreign notice is signed with (not the operator's: every device must refuse it). */
const FOREIGN_NOTICE_SEED = new Uint8Array(32).fill(0x5a);

/**
 * The attacker's operations (`--attacker`, issue #30), drawn besides FLEET_MENU's: a man in the middle
 * of one device's network (hw-sim/attacker.ts: answers rewritten, unsigned, re-signed with the
 * attacker's key, a fake registry, an old answer replayed), a device's flash rolled back to an older
 * copy, and a clone (one device's flash, with its id and key, copied onto another).
 */
export const ATTACKER_MENU = [
  { kind: 'attack', weight: 5, what: "a man in the middle on one device's network (one of FLEET_ATTACKS)" },
  { kind: 'attack-off', weight: 3, what: "one device's network honest again" },
  { kind: 'snapshot', weight: 4, what: "one device's flash image copied aside" },
  { kind: 'rollback', weight: 3, what: 'one device rolled back to its last copy (power cut, image restored, boot)' },
  { kind: 'clone', weight: 2, what: 'one device becomes a clone of another (its flash, id and key copied), boots' },
] as const;
export type FleetOpKind =
  | (typeof FLEET_MENU)[number]['kind']
  | (typeof ATTACKER_MENU)[number]['kind']
  | (typeof FLEET_NOTICE_OPS)[number]['kind']
  | 'campaign'
  | 'boot'
  | 'settle';

export interface FleetOp {
  kind: FleetOpKind;
  steps: Step[];
}

export interface FleetSchedule {
  seed: string;
  index: number;
  devices: string[];
  tickets: TicketSpec[];
  clockMs: number;
  config: {
    payoutLimitEur: number;
    offlineLimitEur: number;
    registryTimeoutMs: number;
    syncIntervalMs: number;
    verdictMs: number;
    payWaitMs: number;
    clockJumpDays: number;
    lang: 'fr';
    emissions: { emission: number; closingDate: string }[];
    inputs: ('pos' | 'serial')[];
  };
  ops: FleetOp[];
  /** The operator notices drawn (their texts are in the operations' steps). */
  notices: DrawnNotice[];
}

export interface FleetScheduleOptions {
  /** Devices in the fleet (2–4; default drawn from the schedule). */
  devices?: number;
  minOps?: number;
  maxOps?: number;
  /** Draw the attacker's operations too (ATTACKER_MENU). */
  attacker?: boolean;
  /** false: no operator notices (FLEET_NOTICE_OPS; the other operations are the same either way). */
  notices?: boolean;
}

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[rng.int(xs.length)];

/** The fleet schedule of (seed, index): drawn from those alone. */
export function makeFleetSchedule(seed: string | number, index: number, o: FleetScheduleOptions = {}): FleetSchedule {
  const rng = seededRng(`fleet:${seed}:${index}`);
  const n = o.devices ?? 2 + rng.int(3);
  if (!(n >= 2 && n <= 4)) throw new RangeError('a fleet schedule has 2 to 4 devices');
  const devices = Array.from({ length: n }, (_, i) => `CAISSE-${i + 1}`);
  const clockMs = Date.UTC(2027, 0, 1) + rng.int(300) * DAY + rng.int(DAY);
  const offlineLimitEur = pick(rng, [30, 150, 300]);
  const config: FleetSchedule['config'] = {
    payoutLimitEur: 5000,
    offlineLimitEur,
    registryTimeoutMs: pick(rng, [1000, 3000]),
    syncIntervalMs: pick(rng, [2000, 5000, 10000]),
    verdictMs: 3000,
    payWaitMs: 20000,
    clockJumpDays: 3650,
    lang: 'fr',
    emissions: [{ emission: 1, closingDate: new Date(clockMs + 200 * DAY).toISOString().slice(0, 10) }],
    inputs: ['pos', 'serial'],
  };
  // A few tickets, so that the same one comes to several shops; prizes on both sides of the offline limit.
  const tickets: TicketSpec[] = [];
  const pool = 3 + rng.int(5);
  for (let i = 0; i < pool; i++)
    tickets.push({
      emission: 1,
      block: 1 + rng.int(3),
      number: rng.int(3_000_000),
      prize: rng.next() < 0.1 ? 0 : pick(rng, [5, 10, 15, 30, 150, 500, 2500]),
    });
  const min = o.minOps ?? 10;
  const max = o.maxOps ?? 60;
  const count = min + Math.floor((max - min) * rng.next() ** 2);
  const menu: readonly { kind: FleetOpKind; weight: number }[] = o.attacker
    ? [...FLEET_MENU, ...ATTACKER_MENU]
    : FLEET_MENU;
  const total = menu.reduce((s, m) => s + m.weight, 0);
  const draw = (): FleetOpKind => {
    let x = rng.next() * total;
    for (const m of menu) if ((x -= m.weight) < 0) return m.kind;
    return menu[0].kind;
  };
  /** Devices with a flash copy to roll back to. */
  const snapped = new Set<string>();
  const ops: FleetOp[] = [{ kind: 'boot', steps: [{ kind: 'boot', line: 0 }] }];
  const scan = (on: string): Step => ({
    kind: 'scan',
    line: 0,
    on,
    ticket: { ...pick(rng, tickets) },
    via: rng.next() < 0.7 ? 'hid-pos' : 'serial',
    options: {},
  });
  const press = (on: string, key: 'OK' | 'C'): Step => ({ kind: 'press', line: 0, on, key });
  const delay = (ms: number, on?: string): Step => ({ kind: 'delay', line: 0, ms, ...(on ? { on } : {}) });
  const net = (on: string, up: boolean, latencyMs?: number, loss?: number): Step => ({
    kind: 'network',
    line: 0,
    on,
    up,
    ...(latencyMs !== undefined ? { latencyMs } : {}),
    ...(loss !== undefined ? { loss } : {}),
  });
  while (ops.length < count) {
    const kind = draw();
    const d = pick(rng, devices);
    const op = (...steps: Step[]) => ops.push({ kind, steps });
    switch (kind) {
      case 'pay': {
        const steps = [scan(d)];
        if (rng.next() < 0.3) steps.push(delay(rng.int(3000), d));
        steps.push(press(d, 'OK'));
        if (rng.next() < 0.8) steps.push(delay(rng.int(6000), d));
        op(...steps);
        break;
      }
      case 'scan':
        op(scan(d));
        break;
      case 'press-ok':
        op(press(d, 'OK'));
        break;
      case 'press-c':
        op(press(d, 'C'));
        break;
      case 'delay':
        op(delay(rng.next() < 0.7 ? 10 + rng.int(5000) : 5000 + rng.int(55_000)));
        break;
      case 'delay-one':
        op(delay(10 + rng.int(20_000), d));
        break;
      case 'network-down':
        op(net(d, false));
        break;
      case 'network-up':
        op(net(d, true));
        break;
      case 'network-flaky':
        op(net(d, true, 5 + rng.int(1500), Math.round(rng.next() * 50) / 100));
        break;
      case 'partition': {
        const cut = devices.filter(() => rng.next() < 0.5);
        if (cut.length === 0 || cut.length === devices.length) cut.splice(0, cut.length, d);
        op(...devices.map((x) => net(x, !cut.includes(x))));
        break;
      }
      case 'heal':
        op(...devices.map((x) => net(x, true, 20, 0)));
        break;
      case 'registry-down':
      case 'registry-up':
        op({ kind: 'registry', line: 0, up: kind === 'registry-up' });
        break;
      case 'reboot':
        op({ kind: 'reboot', line: 0, on: d });
        break;
      case 'power-cut':
        op({ kind: 'power-cut', line: 0, on: d }, { kind: 'boot', line: 0, on: d });
        break;
      case 'attack':
        op({ kind: 'attack', line: 0, on: d, attack: pick(rng, FLEET_ATTACKS) });
        break;
      case 'attack-off':
        op({ kind: 'attack', line: 0, on: d, attack: 'off' });
        break;
      case 'snapshot':
        snapped.add(d);
        op({ kind: 'snapshot', line: 0, on: d });
        break;
      case 'rollback':
        if (!snapped.has(d)) {
          snapped.add(d);
          ops.push({ kind: 'snapshot', steps: [{ kind: 'snapshot', line: 0, on: d }] });
        } else op({ kind: 'rollback', line: 0, on: d });
        break;
      case 'clone': {
        const of = pick(
          rng,
          devices.filter((x) => x !== d),
        );
        snapped.delete(d);
        op({ kind: 'clone', line: 0, on: d, of });
        break;
      }
      case 'cut-at-flash-op':
        op(
          { kind: 'power-cut', line: 0, on: d, afterFlashOps: 1 + rng.int(6) },
          scan(d),
          press(d, 'OK'),
          delay(config.registryTimeoutMs + 1500, d),
          { kind: 'ensure-on', line: 0, on: d },
        );
        break;
    }
  }
  const crng = seededRng(`fleet:${seed}:${index}:campaign`);
  if (crng.next() < 0.35 && ops.length > 1) {
    const image = pick(crng, ['next', 'older', 'forged'] as const);
    const step: Step = {
      kind: 'campaign',
      line: 0,
      name: 'c1',
      verb: 'create',
      image,
      phases: [50, 100],
      maxFailures: 1,
    };
    let at = 1 + crng.int(ops.length - 1);
    ops.splice(at, 0, { kind: 'campaign', steps: [step] });
    // Half of them are paused then resumed or aborted, or aborted, later on (lenient: a campaign that
    // stopped or finished meanwhile is left as it is).
    if (crng.next() < 0.5) {
      const verbs = pick(crng, [['pause', 'resume'], ['pause', 'abort'], ['abort']] as const);
      for (const verb of verbs) {
        at = at + 1 + crng.int(ops.length - at);
        ops.splice(at, 0, {
          kind: 'campaign',
          steps: [{ kind: 'campaign', line: 0, name: 'c1', verb, lenient: true }],
        });
      }
    }
  }
  const notices =
    o.notices === false ? [] : drawNotices(`fleet:${seed}:${index}:notice`, ops, devices, clockMs, config);
  // Everything back: the registry, every network (no loss), every device on; then time for every sync,
  // after a win still waiting for OK (a device syncs only when idle). Twice: a cut still armed strikes
  // once, in the first round (a claim given up on pays offline, a sync marks its entries), and the
  // device it stopped comes back for the second.
  const on = devices.map((x): Step => ({ kind: 'ensure-on', line: 0, on: x }));
  const syncTime = delay(
    config.payWaitMs + 4 * config.syncIntervalMs + config.verdictMs + 2 * config.registryTimeoutMs + 5000,
  );
  ops.push({
    kind: 'settle',
    steps: [
      { kind: 'registry', line: 0, up: true },
      ...(o.attacker ? devices.map((x): Step => ({ kind: 'attack', line: 0, on: x, attack: 'off' })) : []),
      ...devices.map((x) => net(x, true, 20, 0)),
      ...on,
      syncTime,
      ...on,
      syncTime,
    ],
  });
  return { seed: String(seed), index, devices, tickets, clockMs, config, ops, notices };
}

/**
 * Operator notices into `ops` (FLEET_NOTICE_OPS), from stream `name` alone: in half of the schedules 1–3
 * closing notices of emission 1 published on the registry, the first at a random place, the rest after it;
 * after the first, a foreign-signed notice 2 times in 5 and an older one 2 times in 5. Versions rise in
 * the order of the operations (the registry refuses a version not above its latest). Emission 1's
 * closing date: 2 in 5 open (its claim period ends days after the schedule's clock or later), 1 in 4 long
 * over, else at the edge: the claim period that ended last before the schedule's clock, or the next to
 * end (deadline.ts: Sundays and holidays move it). Limits as the configuration's.
 */
function drawNotices(
  name: string,
  ops: FleetOp[],
  devices: readonly string[],
  clockMs: number,
  config: FleetSchedule['config'],
): DrawnNotice[] {
  const rng = seededRng(name);
  if (!(rng.next() < 0.5) || ops.length < 2) return [];
  const kinds: FleetOpKind[] = Array.from({ length: 1 + rng.int(3) }, () => 'notice');
  if (rng.next() < 0.4) kinds.push('notice-foreign');
  if (rng.next() < 0.4) kinds.push('notice-older');
  // Where each goes: before the operation at that index of `ops` (the first genuine one first).
  const first = 1 + rng.int(ops.length - 1);
  const at = kinds.map((kind, i) => ({ kind, i, before: i === 0 ? first : first + rng.int(ops.length - first) }));
  at.sort((a, b) => a.before - b.before || a.i - b.i);
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const closes = (): string => {
    const x = rng.next();
    if (x < 0.4) return day(clockMs + (-28 + rng.int(60)) * DAY);
    if (x < 0.65) return day(clockMs - (40 + rng.int(300)) * DAY);
    const dates = Array.from({ length: 14 }, (_, i) => day(clockMs - (38 - i) * DAY));
    return rng.next() < 0.5
      ? dates.filter((c) => claimEndMs(c) <= clockMs).pop()!
      : dates.find((c) => claimEndMs(c) > clockMs)!;
  };
  const drawn: DrawnNotice[] = [];
  const make = (version: number, foreign: boolean): DrawnNotice => {
    const n: Notice = {
      version,
      payout_limit_eur: config.payoutLimitEur,
      offline_limit_eur: config.offlineLimitEur,
      id_threshold_eur: 5000,
      emissions: [{ number: 1, name: 'SAPHIR 1', on_sale: '2026-01-05', closes: closes() }],
      holidays: [],
    };
    const seed = foreign ? FOREIGN_NOTICE_SEED : fromHex(DEV_OPERATOR_SEED_HEX);
    const signed = signNotice(n, (m) => simHost().sign(m, seed));
    const d = {
      text: signedNoticeText(signed),
      signature: signed.signature!,
      version,
      closes: n.emissions[0].closes!,
      foreign,
    };
    drawn.push(d);
    return d;
  };
  /** The registry's latest version, and the operator's notices published so far. */
  let latest = 0;
  const published: DrawnNotice[] = [];
  const placed: FleetOp[][] = ops.map(() => []);
  for (const { kind, before } of at) {
    const d = pick(rng, devices);
    const push = (n: DrawnNotice): Step[] => [
      { kind: 'ensure-on', line: 0, on: d },
      { kind: 'notice', line: 0, on: d, text: n.text, via: 'service', lenient: true },
    ];
    // Published, then 3 times in 5 time for a heartbeat sync (10 sync intervals), so that it meets later scans.
    const publish = (n: DrawnNotice): Step[] => [
      { kind: 'notice', line: 0, text: n.text, via: 'registry' },
      ...(rng.next() < 0.6 ? [{ kind: 'delay', line: 0, ms: 10 * config.syncIntervalMs + 2000 } as Step] : []),
    ];
    let steps: Step[];
    if (kind === 'notice') {
      latest += 1 + (rng.next() < 0.2 ? rng.int(3) : 0);
      const n = make(latest, false);
      published.push(n);
      steps = publish(n);
    } else if (kind === 'notice-foreign') {
      if (rng.next() < 0.6) steps = publish(make(++latest, true));
      else steps = push(make(Math.max(1, latest + 1 - rng.int(3)), true));
    } else {
      // An earlier notice again, or another one whose version is not above the latest.
      const top = published[published.length - 1];
      steps = push(
        published.length > 1 && rng.next() < 0.5
          ? published[rng.int(published.length - 1)]
          : make(1 + rng.int(top.version), false),
      );
    }
    placed[before].push({ kind, steps });
  }
  const all = ops.splice(0);
  all.forEach((op, i) => ops.push(...placed[i], op));
  return drawn;
}

/** The schedule's operations as a fleet scenario: after a cut that may not have struck yet, `ensure-on` before a key or a scan there. */
export function fleetScenario(s: FleetSchedule, ops: readonly FleetOp[] = s.ops): Scenario {
  const steps: Step[] = [];
  const armed = new Set<string>();
  for (const op of ops)
    for (const st of op.steps) {
      if (st.on && armed.has(st.on) && (st.kind === 'scan' || st.kind === 'press'))
        steps.push({ kind: 'ensure-on', line: steps.length + 1, on: st.on });
      steps.push({ ...st, line: steps.length + 1 } as Step);
      if (st.kind === 'power-cut' && st.afterFlashOps && st.on) armed.add(st.on);
    }
  const { emissions, ...rest } = s.config;
  return {
    file: `fleet-${s.seed}-${s.index}.yaml`,
    name: `fleet explore seed ${s.seed} index ${s.index}`,
    seed: `fleet:${s.seed}:${s.index}`,
    config: { ...rest, emissions: emissions.map((e) => ({ ...e })) },
    clockMs: s.clockMs,
    devices: [...s.devices],
    steps,
  };
}

const codes = new Map<string, string>();
function codeOf(t: TicketSpec): string {
  const k = `${t.emission}/${t.block}/${t.number}/${t.prize}`;
  let c = codes.get(k);
  if (c === undefined) codes.set(k, (c = ticketCode(t)));
  return c;
}

export interface FleetRun {
  violation?: Violation;
  steps: number;
  checks: Record<number, number>;
  phantomHolds: number;
  /** Double payments by one device id that a rollback made invisible (one payment's only record erased). */
  erasedDoubles: number;
  payments: { online: number; offline: number; unknown: number };
  /** Notices taken by devices (a version rising), AVIS REFUSÉ screens, TICKET EXPIRÉ verdicts. */
  notices: { adopted: number; refused: number; expired: number };
}

/**
 * What the fleet explorer needs of a registry: the real one, which the host gives (the simulator never
 * imports the CLI): Node's embedded PGlite registry, installed by host/commands/sim-fleet.ts.
 */
export interface FleetRegistry {
  /** What a scenario run sees of it. */
  scenario: ScenarioRegistry;
  report(): Promise<{ holders: FleetHolder[]; conflicts: unknown; regrants?: unknown }>;
  start(): Promise<void>;
  reset(): Promise<void>;
  close(): Promise<void>;
}
type FleetHolder = Awaited<ReturnType<ScenarioRegistry['state']>>['holders'][number];

let starter: (() => Promise<FleetRegistry>) | null = null;
/** The host says how to start a registry (one a thread). */
export function useFleetRegistry(start: () => Promise<FleetRegistry>): void {
  starter = start;
}

/** One registry a thread, emptied before each schedule. */
let shared: Promise<FleetRegistry> | null = null;
export function fleetRegistry(): Promise<FleetRegistry> {
  if (!starter) throw new Error('fleet explorer: no registry given (Node: import host/commands/sim-fleet.ts)');
  shared ??= starter();
  return shared;
}
export async function closeFleetRegistry(): Promise<void> {
  const r = shared;
  shared = null;
  await (await r)?.close();
}

/** Runs operations `ops` of schedule `s` once, on a fresh registry; stops at the first violation. */
export async function runFleetOps(s: FleetSchedule, ops: readonly FleetOp[], bundle?: string): Promise<FleetRun> {
  const reg = await fleetRegistry();
  await reg.start();
  await reg.reset();
  const sc = fleetScenario(s, ops);
  for (const st of sc.steps) if (st.kind === 'scan' && st.ticket) st.code = codeOf(st.ticket);
  const model = new FleetModel(s.tickets, s.devices, s.config.offlineLimitEur, {
    drawn: s.notices,
    closingDate: s.config.emissions[0].closingDate,
    paySlackMs: s.config.registryTimeoutMs + 2000,
  });
  const screens = new Map<string, string[][]>(s.devices.map((d) => [d, []]));
  const timed = new Map<string, TimedScreen[]>(s.devices.map((d) => [d, []]));
  const records = (sim: Simulator) => readNoticeRecords((o, n) => sim.chip.peek(o, n));
  let devices: ReadonlyMap<string, Simulator> = new Map();
  const chipOps = new Map<string, number>();
  const faults = new Map<string, number>();
  const checks: Record<number, number> = { 4: 0, 7: 0, 8: 0, 9: 0, 10: 0, 11: 0, 12: 0, 13: 0, 14: 0 };
  let violation: Violation | undefined;
  let steps = 0;
  let end: DeviceView[] | undefined;
  const views = (all: boolean): DeviceView[] =>
    [...devices].map(([id, sim]) => {
      const touched = all || sim.chip.ops !== chipOps.get(id);
      chipOps.set(id, sim.chip.ops);
      return {
        id,
        screens: screens.get(id)!.splice(0),
        screen: sim.screen,
        ledger: touched ? sim.ledger() : undefined,
        timed: timed.get(id)!.splice(0),
        notices: records(sim),
      };
    });
  try {
    await runScenario(sc, {
      bundle,
      registry: reg.scenario,
      events: {
        display: (lines, sim) => {
          screens.get(sim.deviceId)?.push(lines);
          // The moment a verdict or PAYÉ shows: the clock and the notice its flash holds then (13).
          const k = classify(lines, 'fr');
          if (k === 'win' || k === 'paid' || k === 'expired')
            timed.get(sim.deviceId)?.push({ screen: lines, clockMs: sim.clock, records: records(sim) });
        },
      },
      onDevices: (m) => void (devices = m),
      onStep: (r) => {
        steps = r.line;
        if (!r.ok) throw new FleetViolation({ invariant: 4, step: r.line, message: `the step failed: ${r.problem}` });
        for (const [id, sim] of devices) {
          const f = sim.faults.slice(faults.get(id) ?? 0);
          faults.set(id, sim.faults.length);
          if (f.length)
            throw new FleetViolation({
              invariant: 4,
              step: r.line,
              message: `${id}: VM fault ${f[0].kind} in ${f[0].where}: ${f[0].message}`,
            });
        }
        checks[4]++;
        for (const [id, sim] of devices) {
          const b = sim.booted;
          if (!b || !sim.on) continue;
          const min = readBootState(bootChip(sim.chip)).minCounter;
          if (b.securityCounter < min)
            throw new FleetViolation({
              invariant: 11,
              step: r.line,
              message: `${id} runs ${b.version} (security counter ${b.securityCounter}) below its anti-rollback counter ${min}`,
            });
        }
        checks[11]++;
        const st = sc.steps[r.line - 1];
        model.observe(r.line, st, views(st.kind === 'rollback' || st.kind === 'clone'));
        checks[7]++;
        checks[8]++;
        checks[13]++;
        checks[14]++;
        // The runner powers the devices off once the last step passed: what they show is read here.
        if (r.line === sc.steps.length) end = views(true);
      },
    });
    if (end && ops[ops.length - 1]?.kind === 'settle') {
      const rep = await reg.report();
      model.final(steps, end, {
        holders: rep.holders,
        conflicts: rep.conflicts as never,
        regrants: rep.regrants as never,
      });
      checks[9]++;
      checks[10]++;
    }
    // A device's campaign state never goes back to pending: the end shows every phase that started.
    for (const op of ops)
      for (const st of op.steps)
        if (st.kind === 'campaign' && st.verb === 'create' && reg.scenario.campaign) {
          const c = await reg.scenario.campaign({ verb: 'status', name: st.name });
          const problem = campaignProblem({ name: st.name, max_failures: c.max_failures ?? 1, devices: c.devices });
          if (problem) throw new FleetViolation({ invariant: 12, step: steps, message: problem });
          checks[12]++;
        }
  } catch (e) {
    if (!(e instanceof FleetViolation)) throw e;
    violation = e.v;
    for (const d of devices.values()) d.dispose();
  }
  return {
    violation,
    steps,
    checks,
    phantomHolds: model.phantomHolds,
    erasedDoubles: model.erasedDoubles,
    payments: model.payments,
    notices: model.noticeCounts,
  };
}

export interface FleetResult {
  seed: string;
  index: number;
  devices: number;
  ops: number;
  steps: number;
  kinds: Record<string, number>;
  checks: Record<number, number>;
  phantomHolds: number;
  erasedDoubles: number;
  payments: { online: number; offline: number; unknown: number };
  notices: { adopted: number; refused: number; expired: number };
  violation?: Violation;
  shrunk?: { ops: number; steps: number; yaml: string; reproduces: boolean; runs: number };
  wallMs: number;
}

export interface FleetExploreOptions extends FleetScheduleOptions {
  bundle?: string;
  shrink?: boolean;
  shrinkRuns?: number;
}

/** Runs fleet schedule (seed, index); on a violation, shrinks it and writes its scenario text. */
export async function exploreFleetOne(
  seed: string | number,
  index: number,
  o: FleetExploreOptions = {},
): Promise<FleetResult> {
  const wall = performance.now();
  const s = makeFleetSchedule(seed, index, o);
  const run = await runFleetOps(s, s.ops, o.bundle);
  const kinds: Record<string, number> = {};
  for (const op of s.ops) kinds[op.kind] = (kinds[op.kind] ?? 0) + 1;
  const res: FleetResult = {
    seed: String(seed),
    index,
    devices: s.devices.length,
    ops: s.ops.length,
    steps: run.steps,
    kinds,
    checks: run.checks,
    phantomHolds: run.phantomHolds,
    erasedDoubles: run.erasedDoubles,
    payments: run.payments,
    notices: run.notices,
    violation: run.violation,
    wallMs: 0,
  };
  if (run.violation && o.shrink !== false) {
    const { ops, violation, runs } = await shrinkFleet(s, run.violation, o.bundle, o.shrinkRuns ?? 150);
    const yaml = fleetScenarioYaml(s, ops, violation);
    res.violation = violation;
    res.shrunk = {
      ops: ops.length,
      steps: violation.step + (violation.expect?.length ?? 0),
      yaml,
      reproduces: await fleetReplays(yaml, violation, o.bundle),
      runs,
    };
  }
  res.wallMs = performance.now() - wall;
  return res;
}

/**
 * Delta debugging over the operations (as the single-device explorer's `shrink`): drop chunks, then
 * single operations, keeping a smaller schedule that still breaks the same invariant. The boot stays,
 * and so does the settle when the violation showed there (the end checks need it).
 */
export async function shrinkFleet(
  s: FleetSchedule,
  v: Violation,
  bundle: string | undefined,
  maxRuns: number,
): Promise<{ ops: FleetOp[]; violation: Violation; runs: number }> {
  const last = s.ops[s.ops.length - 1];
  const keepSettle = v.step > fleetScenario(s, s.ops.slice(0, -1)).steps.length;
  const whole = (b: FleetOp[]) => [s.ops[0], ...b, ...(keepSettle ? [last] : [])];
  const r = await ddmin(
    s.ops.slice(1, keepSettle ? -1 : undefined),
    async (cand) => {
      const x = await runFleetOps(s, whole(cand), bundle);
      return x.violation && x.violation.invariant === v.invariant ? { body: cand, found: x.violation } : undefined;
    },
    maxRuns,
  );
  return { ops: whole(r.body), violation: r.found ?? v, runs: r.runs };
}

function fleetStepYaml(st: Step): unknown {
  let y: unknown;
  switch (st.kind) {
    case 'network':
      y = {
        network: !st.up
          ? 'down'
          : st.latencyMs === undefined && st.loss === undefined
            ? 'up'
            : {
                ...(st.latencyMs !== undefined ? { latency: `${st.latencyMs}ms` } : {}),
                ...(st.loss !== undefined ? { loss: st.loss } : {}),
              },
      };
      break;
    case 'registry':
      y = { registry: st.up ? 'up' : 'down' };
      break;
    case 'campaign':
      y = {
        campaign:
          st.verb === 'create'
            ? {
                name: st.name,
                image: st.image,
                phases: (st.phases ?? [1, 10, 100]).join(','),
                'max-failures': st.maxFailures ?? 1,
              }
            : { name: st.name, do: st.verb, ...(st.lenient ? { lenient: true } : {}) },
      };
      break;
    case 'attack':
      y = { attack: st.attack };
      break;
    case 'notice':
      y = {
        notice: {
          ...(st.text !== undefined ? { text: st.text } : { file: st.file }),
          via: st.via,
          ...(st.lenient ? { lenient: true } : {}),
          ...(st.refused ? { refused: true } : {}),
        },
      };
      break;
    case 'expect-notice':
      y = { 'expect-notice': st.version };
      break;
    case 'clone':
      y = { clone: st.of };
      break;
    case 'snapshot':
    case 'rollback':
      y = st.kind;
      break;
    case 'expect-registry':
      y = {
        'expect-registry': {
          ...(st.claims !== undefined ? { claims: st.claims } : {}),
          ...(st.conflicts !== undefined ? { conflicts: st.conflicts } : {}),
          within: `${st.withinMs}ms`,
        },
      };
      break;
    default:
      y = stepYaml(st);
  }
  if (!st.on) return y;
  return typeof y === 'string' ? { [y]: null, on: st.on } : { ...(y as object), on: st.on };
}

/** A (shrunk) failing fleet schedule as scenario YAML: its steps up to the failure, then what the model expected. */
export function fleetScenarioYaml(s: FleetSchedule, ops: readonly FleetOp[], v: Violation): string {
  const sc = fleetScenario(s, ops);
  const c = s.config;
  const doc = {
    name: `fleet explore seed ${s.seed} index ${s.index}: invariant ${v.invariant}`,
    description:
      `Found by saphir sim --explore --fleet (seed ${s.seed}, index ${s.index}, ${s.devices.length} devices), shrunk to ${ops.length} operations. ` +
      `Invariant ${v.invariant} broke at step ${v.step}: ${v.message}.` +
      (v.expect?.length ? ' The last step checks what the model expected.' : ' The replay shows the steps only.'),
    seed: sc.seed,
    config: {
      'payout-limit': c.payoutLimitEur,
      language: c.lang,
      clock: new Date(s.clockMs).toISOString(),
      emissions: c.emissions.map((e) => ({ emission: e.emission, closes: e.closingDate })),
      'verdict-ms': c.verdictMs,
      'pay-wait-ms': c.payWaitMs,
      'clock-jump-days': c.clockJumpDays,
      inputs: c.inputs,
      'offline-limit': c.offlineLimitEur,
      'registry-timeout-ms': c.registryTimeoutMs,
      'sync-interval-ms': c.syncIntervalMs,
    },
    devices: s.devices,
    steps: [...sc.steps.slice(0, v.step), ...(v.expect ?? [])].map(fleetStepYaml),
  };
  return `# saphir sim --scenario FILE replays this fleet schedule; it fails at its last step while the defect is there.\n${stringify(doc, { lineWidth: 0 })}`;
}

/** Whether the scenario text fails at (or after) the step where the violation showed. */
export async function fleetReplays(yaml: string, v: Violation, bundle: string | undefined): Promise<boolean> {
  if (!v.expect?.length) return false;
  const sc = parseScenario(yaml, 'fleet.yaml');
  const reg = await fleetRegistry();
  await reg.start();
  await reg.reset();
  const r = await runScenario(sc, { bundle, registry: reg.scenario });
  return !r.ok && r.steps.length > v.step;
}
