// A schedule of the fault explorer: a device configuration and 20–300 operations, drawn from
// (seed, index) alone, so that any one schedule can be replayed by itself. Operations are scenario
// steps (hw-sim/scenario.ts), so a schedule runs through the same runner as a scenario file, and a
// shrunk schedule written as YAML replays exactly.
import { seededRng, type Rng } from '../rng.ts';
import { SCANNER_KINDS, type ModelOptions, type ScannerKind } from '../scanners/index.ts';
import type { Scenario, Step } from '../scenario.ts';
import type { TicketSpec } from '../tickets.ts';
import type { SimConfig } from '../sim.ts';
import { PRIZE_AMOUNTS_EUR } from '../../src/game/prize-table.ts';
import { MENU, type Gate, type OpKind } from './menu.ts';
import { claimEndMs } from './deadline.ts';

const DAY = 86_400_000;

/** What the model needs to know about a step beyond the step itself. */
export interface StepMeta {
  op: OpKind;
  /** For scans: what the code is. */
  cls?: 'genuine' | 'forged' | 'mutated' | 'garbage' | 'foreign' | 'untabled';
}

/** One operation: one or a few steps that belong together (shrinking keeps or drops them as one). */
export interface Op {
  kind: OpKind;
  steps: Step[];
  meta: StepMeta[];
}

/** The emissions every schedule configures: 1 claimable, 2 past its claim deadline; 3 is unknown. */
export interface EmissionPlan {
  emission: number;
  closingDate: string;
}

export interface Schedule {
  seed: string;
  index: number;
  config: SimConfig & {
    verdictMs: number;
    payWaitMs: number;
    payoutLimitEur: number;
    lang: 'fr' | 'en';
    emissions: EmissionPlan[];
  };
  clockMs: number;
  ops: Op[];
  gates: Gate[];
  /** The device boots signed images through the bootloader (and takes updates). */
  images: boolean;
  /** The weight each operation kind was drawn with in this schedule (swarm testing; 0: off). */
  weights: Partial<Record<OpKind, number>>;
}

/** Kinds a swarm never switches off: without genuine scans a schedule tests little. */
const ALWAYS_ON: ReadonlySet<string> = new Set(['scan-ticket']);

/**
 * Swarm testing (as TigerBeetle's simulator does): each schedule draws its own weights from
 * `(seed, index)` alone, so some schedules hammer one fault and others never see it (a defect that
 * needs two things together, or one thing left alone for long, comes up). Each kind of the menu is
 * off one time in four (never `scan-ticket`), else its menu weight times 2^u, u uniform in -2 … 2.
 */
export function swarmWeights(
  seed: string | number,
  index: number,
  kinds: readonly { kind: OpKind; weight: number }[],
): Partial<Record<OpKind, number>> {
  const rng = seededRng(`swarm:${seed}:${index}`);
  const out: Partial<Record<OpKind, number>> = {};
  for (const m of kinds) {
    const off = rng.next() < 0.25 && !ALWAYS_ON.has(m.kind);
    const factor = 2 ** (4 * rng.next() - 2);
    out[m.kind] = off ? 0 : Math.round(m.weight * factor * 100) / 100;
  }
  return out;
}

export interface ScheduleOptions {
  gates?: readonly Gate[];
  /** Bounds of the number of operations (default 20–300). */
  minOps?: number;
  maxOps?: number;
  /** The bundle has no camera path (planted-defect builds): never configure the camera input. */
  noCamera?: boolean;
  /** Draw the operation weights per schedule (default true); false: the menu's weights. */
  swarm?: boolean;
}

/** Share of `update` operations installed at once (`installImage`) rather than over the service port. */
const DIRECT_UPDATES = 0.2;
/**
 * Flash operations of a whole service upload of the explorer's images (~120 KB: 29–30 chunks of 16 pages
 * and a journal mark; BEGIN's journal head and the erase of the first 64 KiB block, the erase ahead of
 * the second; FINISH's boot-state record and journal erase): 493 for the developer bundle, 511 for the
 * camera-less planted ones. Cuts are drawn up to a little beyond (a cut that misses lets the upload
 * finish), and among the last ones (FINISH) from SERVICE_OPS_TAIL.
 */
const SERVICE_OPS = 530;
const SERVICE_OPS_TAIL = 480;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[rng.int(xs.length)];
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const BASE45 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';
const TYPABLE = BASE45 + 'abcdefghijklmnopqrstuvwxyz';

/** The schedule of (seed, index). */
export function makeSchedule(seed: string | number, index: number, o: ScheduleOptions = {}): Schedule {
  const rng = seededRng(`explore:${seed}:${index}`);
  const gates = [...(o.gates ?? [])];
  const clockMs = Date.UTC(2027, 0, 1) + rng.int(700) * DAY + rng.int(DAY);
  const inputs: NonNullable<SimConfig['inputs']> = ['pos'];
  if (rng.next() < 0.7) inputs.push('serial');
  if (rng.next() < 0.7) inputs.push('keyboard');
  if (rng.next() < 0.05 && !o.noCamera) inputs.push('camera');
  const config: Schedule['config'] = {
    payoutLimitEur: pick(rng, [30, 150, 300, 1000, 5000]),
    lang: rng.next() < 0.7 ? 'fr' : 'en',
    emissions: [
      { emission: 1, closingDate: isoDate(clockMs + (20 + rng.int(400)) * DAY) },
      { emission: 2, closingDate: isoDate(clockMs - (45 + rng.int(400)) * DAY) },
    ],
    verdictMs: pick(rng, [1500, 3000, 8000]),
    payWaitMs: pick(rng, [5000, 20000, 60000]),
    inputs,
  };
  if (rng.next() < 0.3) config.compactFreeSectors = 256;
  // Every forward move is believed (each is under 400 days): the far-jump confirmation is a screen the
  // schedules do not answer (its rule is tested in test/firmware/trusted-time.test.ts).
  config.clockJumpDays = 3650;
  const vias: ScannerKind[] = SCANNER_KINDS.filter((k) =>
    k === 'hid-pos'
      ? true
      : k === 'serial'
        ? inputs.includes('serial')
        : k === 'hid-keyboard'
          ? inputs.includes('keyboard')
          : inputs.includes('camera'),
  );

  // A small pool of tickets, so that the same ticket comes back (paid, then scanned again).
  const tickets: TicketSpec[] = [];
  const poolSize = 3 + rng.int(8);
  for (let i = 0; i < poolSize; i++) {
    const r = rng.next();
    const emission = r < 0.75 ? 1 : r < 0.92 ? 2 : 3;
    const prize =
      rng.next() < 0.25
        ? 0
        : pick(
            rng,
            PRIZE_AMOUNTS_EUR.filter((p) => p <= 2500 || rng.next() < 0.3),
          );
    tickets.push({ emission, block: 1 + rng.int(3), number: rng.int(3_000_000), prize });
  }

  const images = rng.next() < 0.35;
  const offered = MENU.filter((m) => (!('gate' in m) || gates.includes(m.gate)) && (images || m.kind !== 'update'));
  const weights: Partial<Record<OpKind, number>> =
    o.swarm === false ? Object.fromEntries(offered.map((m) => [m.kind, m.weight])) : swarmWeights(seed, index, offered);
  const menu = offered.filter((m) => weights[m.kind]! > 0);
  const total = menu.reduce((s, m) => s + weights[m.kind]!, 0);
  const draw = (): OpKind => {
    let x = rng.next() * total;
    for (const m of menu) if ((x -= weights[m.kind]!) < 0) return m.kind;
    return menu[0].kind;
  };

  const min = o.minOps ?? 20;
  const max = o.maxOps ?? 300;
  // Short schedules are more common (cheaper, and shrink faster); long ones still come.
  const count = min + Math.floor((max - min) * rng.next() ** 2);
  const ops: Op[] = [
    images
      ? {
          kind: 'boot',
          steps: [
            { kind: 'provision', line: 0 },
            { kind: 'boot', line: 0 },
          ],
          meta: [{ op: 'boot' }, { op: 'boot' }],
        }
      : { kind: 'boot', steps: [{ kind: 'boot', line: 0 }], meta: [{ op: 'boot' }] },
  ];
  let clock = clockMs;
  const end1 = claimEndMs(config.emissions[0].closingDate);
  /** A set-clock step (whole seconds: what a scenario writes). */
  const setClock = (ms: number): Step => {
    const text = new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return { kind: 'set-clock', line: 0, ms: Date.parse(text), text };
  };
  // Keyboard wedges and cameras are the slowest to simulate (a report per key press, a QR frame): rarer.
  const viaWeights = vias.map((v) => (v === 'hid-pos' ? 6 : v === 'serial' ? 3 : v === 'hid-keyboard' ? 0.6 : 0.3));
  const viaTotal = viaWeights.reduce((a, b) => a + b, 0);
  const scanStep = (code: { ticket?: TicketSpec; code?: string }, garbage = false): Step => {
    let x = rng.next() * viaTotal;
    let via = vias[0];
    for (let i = 0; i < vias.length; i++)
      if ((x -= viaWeights[i]) < 0) {
        via = vias[i];
        break;
      }
    return { kind: 'scan', line: 0, via, options: scannerOptions(rng, via, garbage), ...code };
  };
  // One damage to the ledger a schedule: what a redundant ledger can promise to survive (two flips may
  // hit both copies of a record).
  let damaged = false;
  while (ops.length < count) {
    const kind = draw();
    if (kind === 'flip-bit' || kind === 'lose-sector') {
      if (damaged) continue;
      damaged = true;
    }
    const op = (steps: Step[], meta: StepMeta[]) => ops.push({ kind, steps, meta });
    switch (kind) {
      case 'scan-ticket':
        op([scanStep({ ticket: pick(rng, tickets) })], [{ op: kind, cls: 'genuine' }]);
        break;
      case 'pay': {
        const t = pick(rng, tickets);
        const steps: Step[] = [scanStep({ ticket: t })];
        const meta: StepMeta[] = [{ op: kind, cls: 'genuine' }];
        if (rng.next() < 0.5) {
          steps.push({ kind: 'delay', line: 0, ms: rng.int(3000) });
          meta.push({ op: kind });
        }
        // One payment in ten of a ticket of emission 1 still claimable: while the win waits for OK, the
        // clock moves to the end of its claim period, a second before, at, or a second after it.
        if (t.emission === 1 && weights['clock-forward'] && clock < end1 - 2000 && rng.next() < 0.1) {
          clock = end1 + (rng.int(3) - 1) * 1000;
          steps.push(setClock(clock));
          meta.push({ op: kind });
        }
        steps.push({ kind: 'press', line: 0, key: 'OK' });
        meta.push({ op: kind });
        op(steps, meta);
        break;
      }
      case 'scan-forged':
        op([scanStep({ ticket: { ...pick(rng, tickets), key: 'other' } })], [{ op: kind, cls: 'forged' }]);
        break;
      case 'scan-mutated': {
        const t = pick(rng, tickets);
        op(
          [scanStep({ code: `@mutate:${t.emission}/${t.block}/${t.number}/${t.prize}/${rng.int(1 << 30)}` })],
          [{ op: kind, cls: 'mutated' }],
        );
        break;
      }
      case 'scan-garbage':
        op([scanStep({ code: garbage(rng) }, true)], [{ op: kind, cls: 'garbage' }]);
        break;
      case 'scan-foreign': {
        // Signed with the trusted test key, but for another game.
        const t = pick(rng, tickets);
        const game = 1 + rng.int(0xfffe);
        op(
          [
            scanStep({
              code: `@foreign:${t.emission}/${t.block}/${t.number}/${t.prize}/${game === 0x0250 ? 1 : game}`,
            }),
          ],
          [{ op: kind, cls: 'foreign' }],
        );
        break;
      }
      case 'scan-untabled': {
        // Signed with the trusted test key, zones whose win is no prize of the table.
        const t = pick(rng, tickets);
        op(
          [scanStep({ code: `@untabled:${t.emission}/${t.block}/${t.number}/${rng.int(1 << 30)}` })],
          [{ op: kind, cls: 'untabled' }],
        );
        break;
      }
      case 'flood': {
        const n = 3 + rng.int(10);
        const steps: Step[] = [];
        const meta: StepMeta[] = [];
        for (let i = 0; i < n; i++) {
          if (rng.next() < 0.5) {
            steps.push(scanStep({ code: garbage(rng) }, true));
            meta.push({ op: kind, cls: 'garbage' });
          } else {
            steps.push(scanStep({ ticket: pick(rng, tickets) }));
            meta.push({ op: kind, cls: 'genuine' });
          }
        }
        op(steps, meta);
        break;
      }
      case 'press-during-scan': {
        const st = scanStep({ ticket: pick(rng, tickets) });
        if (st.kind === 'scan') {
          const r = rng.next();
          // Within the first 20 ms: before the code is complete for every scanner model but the fastest POS.
          st.during = { key: r < 0.5 ? 'OK' : r < 0.8 ? 'C' : (String(rng.int(10)) as '0'), atMs: rng.int(20) };
        }
        op([st], [{ op: kind, cls: 'genuine' }]);
        break;
      }
      case 'press-ok':
        op([{ kind: 'press', line: 0, key: 'OK' }], [{ op: kind }]);
        break;
      case 'press-c':
        op([{ kind: 'press', line: 0, key: 'C' }], [{ op: kind }]);
        break;
      case 'press-digit':
        op([{ kind: 'press', line: 0, key: String(rng.int(10)) as '0' }], [{ op: kind }]);
        break;
      case 'delay': {
        const r = rng.next();
        const ms = r < 0.5 ? 10 + rng.int(2000) : r < 0.9 ? 1000 + rng.int(20_000) : 20_000 + rng.int(70_000);
        op([{ kind: 'delay', line: 0, ms }], [{ op: kind }]);
        break;
      }
      case 'clock-forward':
      case 'clock-back': {
        const r = rng.next();
        const span = r < 0.4 ? rng.int(3_600_000) : r < 0.8 ? rng.int(30 * DAY) : rng.int(400 * DAY);
        clock = Math.max(Date.UTC(2026, 6, 1), clock + (kind === 'clock-forward' ? span : -span));
        // One forward jump in twenty lands at the end of emission 1's claim period (the exact instant,
        // deadline.ts): half of them within a second of it either side, half up to two days after.
        const past1 = end1 + (span % 2 ? span % (2 * DAY) : ((span % 3) - 1) * 1000);
        if (kind === 'clock-forward' && r >= 0.95 && past1 > clock) clock = past1;
        op([setClock(clock)], [{ op: kind }]);
        break;
      }
      case 'reboot':
        op([{ kind: 'reboot', line: 0 }], [{ op: kind }]);
        break;
      case 'power-cut':
        op(
          [
            { kind: 'power-cut', line: 0 },
            { kind: 'boot', line: 0 },
          ],
          [{ op: kind }, { op: kind }],
        );
        break;
      case 'cut-at-flash-op': {
        // Armed, then something that writes: a payment (1–4 operations), a reboot (compaction) or anything.
        const n = 1 + rng.int(rng.next() < 0.7 ? 4 : 12);
        const steps: Step[] = [{ kind: 'power-cut', line: 0, afterFlashOps: n }];
        const meta: StepMeta[] = [{ op: kind }];
        const r = rng.next();
        if (r < 0.6) {
          steps.push(scanStep({ ticket: pick(rng, tickets) }), { kind: 'press', line: 0, key: 'OK' });
          meta.push({ op: kind, cls: 'genuine' }, { op: kind });
        } else if (r < 0.8) {
          steps.push({ kind: 'reboot', line: 0 });
          meta.push({ op: kind });
        }
        op(steps, meta);
        break;
      }
      case 'update': {
        const r = rng.next();
        const image = r < 0.5 ? 'next' : r < 0.7 ? 'older' : r < 0.85 ? 'forged' : 'base';
        const steps: Step[] = [{ kind: 'ensure-on', line: 0 }];
        const reboot = () => steps.push({ kind: 'reboot', line: 0 });
        if (rng.next() < DIRECT_UPDATES) {
          // Installed at once, as FINISH does (the bootloader's installImage: ~680 flash operations).
          const cut = rng.next() < 0.4 ? 1 + rng.int(700) : undefined;
          steps.push({ kind: 'update', line: 0, image, ...(cut ? { afterFlashOps: cut } : {}) });
          if (cut || rng.next() < 0.7) reboot();
        } else {
          // Over the service port: cut half the time, at any of its flash operations (BEGIN's journal
          // head and first erase, each chunk's 16 pages and journal mark, the erases ahead, FINISH's
          // boot-state record and journal erase), a fifth of the cuts among the last ones. A forged
          // image is refused at BEGIN, before any flash operation of its own: never cut, never resumed.
          const at = () => (rng.next() < 0.2 ? SERVICE_OPS_TAIL + rng.int(35) : 1 + rng.int(SERVICE_OPS));
          const cut = image !== 'forged' && rng.next() < 0.5 ? at() : undefined;
          steps.push({ kind: 'update', line: 0, image, via: 'service', ...(cut ? { afterFlashOps: cut } : {}) });
          if (cut) {
            // The device is off (or the cut missed and the upload finished): boot it.
            reboot();
            if (rng.next() < 0.6) {
              // The technician runs the upload again: the device says what it holds, the rest is sent.
              const again = rng.next() < 0.25 ? 1 + rng.int(200) : undefined;
              steps.push({
                kind: 'update',
                line: 0,
                image,
                via: 'service',
                resume: true,
                ...(again ? { afterFlashOps: again } : {}),
              });
              if (again || rng.next() < 0.7) reboot();
            }
          } else if (rng.next() < 0.7) reboot();
        }
        op(
          steps,
          steps.map(() => ({ op: kind })),
        );
        break;
      }
      case 'flip-bit':
      case 'lose-sector':
        op([{ kind, line: 0, index: rng.int(1 << 30) }], [{ op: kind }]);
        break;
    }
  }
  ops.push({
    kind: 'settle',
    steps: [{ kind: 'delay', line: 0, ms: Math.max(config.verdictMs, config.payWaitMs) + 1000 }],
    meta: [{ op: 'settle' }],
  });
  return { seed: String(seed), index, config, clockMs, ops, gates, images, weights };
}

function scannerOptions(rng: Rng, via: ScannerKind, garbage: boolean): ModelOptions {
  switch (via) {
    case 'hid-pos':
      return rng.next() < 0.5 ? {} : { interval: 1 + rng.int(20) };
    case 'hid-keyboard': {
      const o: ModelOptions = { layout: pick(rng, ['us', 'fr', 'alt']) };
      if (rng.next() < 0.3) o.suffix = 'tab';
      if (rng.next() < 0.2) o.delay = 1 + rng.int(8);
      return o;
    }
    case 'serial': {
      const o: ModelOptions = {
        baud: pick(rng, [9600, 19200, 57600, 115200]),
        terminator: pick(rng, ['cr', 'lf', 'crlf', 'stx-etx']),
      };
      if (rng.next() < 0.3) o.aim = true;
      if (garbage && rng.next() < 0.5) o.noise = rng.next() * 0.05;
      return o;
    }
    case 'camera': {
      // Degraded frames most of the time (levels the device reads at the first frame or a later one).
      const o: ModelOptions = {};
      if (rng.next() < 0.7) {
        for (const k of ['blur', 'noise', 'perspective', 'glare'])
          if (rng.next() < 0.5) o[k] = Math.round(rng.next() * 30) / 100;
        o.module = 3 + rng.int(4);
        o.frames = 1 + rng.int(3);
      }
      return o;
    }
  }
}

function garbage(rng: Rng): string {
  const n = 1 + rng.int(rng.next() < 0.3 ? 300 : 60);
  let s = rng.next() < 0.4 ? 'SPH1:' : '';
  // Characters every keyboard layout model can type.
  const set = rng.next() < 0.5 ? BASE45 : TYPABLE;
  for (let i = 0; i < n; i++) s += set[rng.int(set.length)];
  return s;
}

/** The schedule's operations as a scenario (in memory): step `line` is its 1-based position. */
/**
 * The explorer's ledger partition: the time marks and two logs of 8 sectors (800 payments each, far
 * more than a schedule makes). The firmware takes its ledger's size from the HAL, so the code is the
 * same; the full 2 MiB partition would be read at each of a schedule's ~15 boots, most of its time.
 */
export const EXPLORE_LEDGER_SECTORS = 18;

export function toScenario(
  s: Schedule,
  ops: readonly Op[] = s.ops,
  resolveCode: (code: string) => string = (c) => c,
): { scenario: Scenario; meta: StepMeta[] } {
  const steps: Step[] = [];
  const meta: StepMeta[] = [];
  let armed = false;
  for (const op of ops) {
    op.steps.forEach((st, i) => {
      // After a cut that may not have happened yet, the device may be off: boot it if so.
      if (armed && (st.kind === 'scan' || st.kind === 'press')) {
        steps.push({ kind: 'ensure-on', line: steps.length + 1 });
        meta.push({ op: op.meta[i].op });
      }
      const copy = { ...st, line: steps.length + 1 } as Step;
      if (copy.kind === 'scan' && copy.code !== undefined) copy.code = resolveCode(copy.code);
      steps.push(copy);
      meta.push(op.meta[i]);
      if (st.kind === 'power-cut' && st.afterFlashOps) armed = true;
    });
  }
  const { emissions, ...rest } = s.config;
  const scenario: Scenario = {
    file: `explore-${s.seed}-${s.index}.yaml`,
    name: `explore seed ${s.seed} index ${s.index}`,
    seed: `explore:${s.seed}:${s.index}`,
    config: { ...rest, emissions: emissions.map((e) => ({ ...e })) },
    clockMs: s.clockMs,
    device: { ledgerSectors: EXPLORE_LEDGER_SECTORS },
    steps,
  };
  return { scenario, meta };
}
