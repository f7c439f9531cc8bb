// Scenario files (hw-sim/scenarios/*.yaml): parsed with `yaml`'s Document API so that every problem
// names its line, and checked whole before anything runs. Format: docs/simulator.md.
import { LineCounter, parseDocument, isMap, isScalar, isSeq, type Node, type Pair, type YAMLMap } from 'yaml';
import {
  CONFIG_INPUTS,
  CONFIG_INT_LIMITS,
  CONFIG_LANGS,
  CONFIG_YAML_NAMES,
  DEVICE_ID_MAX,
  EMISSION_LIMITS,
  isDate,
  isDeviceId,
  isShop,
  isDepartment,
  SHOP_MAX,
  type ConfigInput,
  type ConfigIntField,
} from '../src/config-schema.ts';
import { MODEL_OPTIONS, SCANNER_KINDS, type ModelOptions, type ScannerKind } from './scanners/index.ts';
import { ticketProblem, type TicketSpec } from './tickets.ts';
import type { SimConfig } from './sim.ts';
import { LAYOUT, SECTOR_SIZE } from '../rom/layout.ts';
import { LEDGER_MIN_BLOCKS } from '../src/ledger/mirror.ts';
import type { Key, LedColor } from '../src/hal.ts';

export interface Where {
  line: number;
}

/** `row`: the display line (1-based) the text must be on; the YAML field is `line`. */
export type DisplayExpect = { contains?: string; matches?: RegExp; row?: number; withinMs: number };

/** `on`: the device of a multi-device scenario the step is for (default: the first one). */
export type Step = Where & { on?: string } & (
    | { kind: 'boot' }
    | { kind: 'reboot' }
    | { kind: 'power-cut'; afterFlashOps?: number }
    | { kind: 'delay'; ms: number }
    | { kind: 'set-clock'; ms: number; text: string }
    | {
        kind: 'scan';
        code?: string;
        ticket?: TicketSpec;
        via: ScannerKind;
        options: ModelOptions;
        during?: { key: Key; atMs: number };
      }
    | { kind: 'press'; key: Key }
    | ({ kind: 'expect-display' } & DisplayExpect)
    | { kind: 'expect-beep'; beep: string; withinMs: number }
    | { kind: 'expect-led'; color: LedColor; withinMs: number }
    | {
        kind: 'expect-ledger';
        count?: number;
        contains?: { emission: number; block: number; number: number };
        withinMs: number;
      }
    | { kind: 'screenshot'; file: string }
    /** The receipt printer's state from now on (it outlives power cuts). */
    | { kind: 'printer'; state: 'ok' | 'paper-out' | 'fault' }
    /** A receipt printed since the last scan or key press contains the text; `none`: none was printed. */
    | { kind: 'expect-receipt'; contains?: string; none?: boolean; withinMs: number }
    /** `tamper: chunks`: a proxy on this device's line flips a digit of every image chunk (`none`: no more). */
    | { kind: 'network'; up: boolean; latencyMs?: number; loss?: number; tamper?: 'chunks' | 'none' }
    /** An update campaign of the registry: created with `image` (a simulator image kind), or paused, resumed, aborted. */
    | {
        kind: 'campaign';
        name: string;
        verb: 'create' | 'pause' | 'resume' | 'abort';
        /** pause/resume/abort: skipped, not failed, when the campaign's state does not allow it (the explorer's). */
        lenient?: boolean;
        image?: 'base' | 'next' | 'older' | 'forged';
        phases?: number[];
        maxFailures?: number;
        group?: string;
      }
    /** The campaign's state, phase and device counts, waited for while every device runs. */
    | {
        kind: 'expect-campaign';
        name: string;
        state?: 'running' | 'paused' | 'stopped' | 'aborted' | 'done';
        phase?: number;
        confirmed?: number;
        failed?: number;
        withinMs: number;
      }
    /** The fleet registry's server stopped (down) or started again on the same database (up): a restart. */
    | { kind: 'registry'; up: boolean }
    | {
        kind: 'expect-registry';
        claims?: number;
        conflicts?: number;
        contains?: { emission: number; block: number; number: number; device?: string };
        withinMs: number;
      }
    /** Boots only when the device is off (after a cut that may or may not have happened). */
    | { kind: 'ensure-on' }
    /** Flips bit `index % 8` of the `index`-th programmed (not 0xFF) byte of the ledger partition, counted modulo. */
    | { kind: 'flip-bit'; index: number }
    /** Erases the `index`-th (modulo) sector of the ledger partition that holds data: a lost sector. */
    | { kind: 'lose-sector'; index: number }
    /** Factory programming: the bundle as a signed image in slot A (boots through the bootloader). */
    | { kind: 'provision' }
    /**
     * A firmware update written to the inactive slot (power cut at its N-th flash operation, if given):
     * installed at once as FINISH does (`direct`, the default), or uploaded over the service port
     * (`service`: AUTH, BEGIN, WRITE of every chunk through the update journal, FINISH); `resume` BEGINs
     * again and sends only the chunks the device says it is missing (without it: ABORT, then all).
     */
    | {
        kind: 'update';
        image: 'base' | 'next' | 'older' | 'forged';
        afterFlashOps?: number;
        via?: 'service';
        resume?: boolean;
      }
    /** The running image: from this slot, and/or confirmed. */
    | { kind: 'expect-image'; slot?: 'A' | 'B'; confirmed?: boolean }
    /** A man in the middle of the device's network from now on (hw-sim/attacker.ts), or none (`off`). */
    | { kind: 'attack'; attack: FleetAttack | 'off' }
    /** The device's flash image copied aside (for a later `rollback`). */
    | { kind: 'snapshot' }
    /** The device's flash restored to its last `snapshot` (power cut, image written back, boot). */
    | { kind: 'rollback' }
    /**
     * The device becomes a clone of device `of`: power cut, `of`'s flash (id, keys, ledger, outbox) copied,
     * its clock 1.5 s ahead of `of`'s (another board's), boot.
     */
    | { kind: 'clone'; of: string }
    /**
     * An operator notice arriving (a signed notice file, relative to the scenario): pushed over the
     * service port (`service`, the default: stored, then the device restarts) or published on the
     * registry (`registry`: the devices fetch it at their next sync). `refused`: the device must refuse it.
     * `text`: the signed notice itself instead of a file (the fleet explorer's). `lenient` (service): the
     * device's answer is not checked, and a power cut during the push is no failure (the explorer's model judges).
     */
    | {
        kind: 'notice';
        file?: string;
        text?: string;
        via: 'service' | 'registry';
        refused?: boolean;
        lenient?: boolean;
      }
    /** The version of the newest notice record on the device's notice partition, signed by anyone (0: none). */
    | { kind: 'expect-notice'; version: number }
  );

/** The attacks a scenario can put on a device's network (an attacker's own key where it signs). */
export const FLEET_ATTACKS = ['rewrite', 'unsigned', 'resign', 'fake', 'replay'] as const;
export type FleetAttack = (typeof FLEET_ATTACKS)[number];

/** Whether a scenario needs a fleet registry to run (several devices, network steps). */
export function needsRegistry(sc: Scenario): boolean {
  return (
    !!sc.devices ||
    sc.steps.some(
      (s) =>
        s.kind === 'network' ||
        s.kind === 'expect-registry' ||
        s.kind === 'registry' ||
        s.kind === 'attack' ||
        (s.kind === 'notice' && s.via === 'registry'),
    )
  );
}

export interface Scenario {
  file: string;
  name: string;
  description?: string;
  seed: string | number;
  /** `variant`: the engine the firmware runs on (quickjs, quickjs-ng, xs); a command line's --variant wins. */
  variant?: 'quickjs' | 'quickjs-ng' | 'xs';
  config?: SimConfig;
  clockMs?: number;
  /** `firmware-key` / `tech-key` / `registry-key` / `operator-key`: HEX or a file (relative to the scenario) to provision the device with. */
  /** `ledger-sectors`: the ledger partition cut to its first N sectors (the explorer's smaller, quicker ledger). */
  device?: {
    flash?: string;
    id?: string;
    firmwareKey?: string;
    techKey?: string;
    registryKey?: string;
    operatorKey?: string;
    ledgerSectors?: number;
  };
  /** Several devices of one fleet (ids); they share the scenario's registry (docs/registry.md). */
  devices?: string[];
  steps: Step[];
}

export class ScenarioError extends Error {
  constructor(
    readonly file: string,
    readonly problems: { line: number; message: string }[],
  ) {
    super(problems.map((p) => `${file}:${p.line}: ${p.message}`).join('\n'));
    this.name = 'ScenarioError';
  }
}

export const STEP_KINDS = [
  'boot',
  'reboot',
  'power-cut',
  'delay',
  'set-clock',
  'scan',
  'press',
  'expect-display',
  'expect-beep',
  'expect-led',
  'expect-ledger',
  'screenshot',
  'printer',
  'expect-receipt',
  'network',
  'expect-registry',
  'ensure-on',
  'flip-bit',
  'lose-sector',
  'provision',
  'update',
  'expect-image',
  'registry',
  'campaign',
  'expect-campaign',
  'attack',
  'snapshot',
  'rollback',
  'clone',
  'notice',
  'expect-notice',
] as const;
export const BEEP_KINDS = ['win', 'bigwin', 'lose', 'refused', 'paid', 'boot', 'key', 'error'] as const;
const KEYS = ['OK', 'C', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];
/** How long an expectation waits for the device by default (virtual time). */
export const DEFAULT_WITHIN_MS = 1000;

/** `250ms`, `2s`, `1.5m`, `1h`, or a bare number of ms. */
export function parseDuration(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v : null;
  if (typeof v !== 'string') return null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h|d)\s*$/.exec(v);
  if (!m) return null;
  const unit = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000 }[m[2]]!;
  return Number(m[1]) * unit;
}

/** An ISO date-time with a zone (`Z` or `±hh:mm`), or a date alone (midnight UTC). */
export function parseInstant(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(v)) return null;
  const t = Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v);
  return Number.isFinite(t) ? t : null;
}

/** A scenario file is read whole: larger ones are refused before reading (a 60 MB one took 3.7 GB). */
export const MAX_SCENARIO_BYTES = 1024 * 1024;

/** One problem of a scenario file, at its line. */
type Problem = { line: number; message: string };

/**
 * Reads values out of a parsed scenario document; every misfit is a problem at its line (collected, not
 * thrown, so that one run names them all).
 */
class Reader {
  readonly problems: Problem[] = [];
  constructor(private readonly lc: LineCounter) {}

  lineOf(n: Node | Pair | null | undefined): number {
    const r =
      (n as { range?: [number, number, number] } | null)?.range ?? ((n as Pair | null)?.key as Node | undefined)?.range;
    return r ? this.lc.linePos(r[0]).line : 1;
  }

  fail(n: Node | Pair | null | undefined, message: string): void {
    this.problems.push({ line: this.lineOf(n), message });
  }

  /** The scalar value of a node, or undefined (with a problem) when it is not a scalar. */
  scalar(n: unknown, what: string): unknown {
    if (!isScalar(n)) {
      this.fail(n as Node, `${what} must be a single value`);
      return undefined;
    }
    return n.value;
  }

  int(n: unknown, what: string, min: number, max: number): number | undefined {
    const v = this.scalar(n, what);
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      this.fail(n as Node, `${what} must be an integer from ${min} to ${max}`);
      return undefined;
    }
    return v;
  }

  str(n: unknown, what: string): string | undefined {
    const v = this.scalar(n, what);
    if (v === undefined) return undefined;
    if (typeof v !== 'string' && typeof v !== 'number') {
      this.fail(n as Node, `${what} must be text`);
      return undefined;
    }
    return String(v);
  }

  oneOf<T extends string>(n: unknown, what: string, allowed: readonly T[]): T | undefined {
    const v = this.str(n, what);
    if (v === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(v)) {
      this.fail(n as Node, `${what} must be one of ${allowed.join(', ')}, not '${v}'`);
      return undefined;
    }
    return v as T;
  }

  duration(n: unknown, what: string): number | undefined {
    const v = this.scalar(n, what);
    const ms = parseDuration(v);
    if (ms === null) {
      if (v !== undefined) this.fail(n as Node, `${what} must be a duration such as 250ms, 2s, 5m, 1h`);
      return undefined;
    }
    return ms;
  }

  /** true or false, else a problem. */
  bool(n: unknown, what: string): boolean | undefined {
    const v = this.scalar(n, what);
    if (typeof v !== 'boolean') {
      this.fail(n as Node, `${what} must be true or false`);
      return undefined;
    }
    return v;
  }

  /** The pairs of a map node, each key checked against `allowed`. */
  fields(n: unknown, what: string, allowed: readonly string[]): Fields {
    const out: Fields = new Map();
    if (!isMap(n)) {
      this.fail(n as Node, `${what} must be a map (${allowed.join(', ')})`);
      return out;
    }
    for (const pair of (n as YAMLMap).items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      if (!allowed.includes(key)) {
        this.fail(pair.key as Node, `unknown field '${key}' in ${what} (known: ${allowed.join(', ')})`);
        continue;
      }
      out.set(key, { node: pair.value, pair });
    }
    return out;
  }

  /** emission, block and number of a ticket (ledger or registry `contains`), with `extra` fields. */
  ticketRef(f: Fields, extra: string[] = []) {
    const c = this.fields(f.get('contains')!.node, 'contains', ['emission', 'block', 'number', ...extra]);
    const emission = c.has('emission') ? this.int(c.get('emission')!.node, 'emission', 0, 0xffff) : undefined;
    const block = c.has('block') ? this.int(c.get('block')!.node, 'block', 0, 0xffff) : undefined;
    const number = c.has('number') ? this.int(c.get('number')!.node, 'number', 0, 2_999_999) : undefined;
    return { c, emission, block, number };
  }
}

type Fields = Map<string, { node: unknown; pair: Pair }>;
type StepKind = (typeof STEP_KINDS)[number];

/** What a step's parser is given: the step's node, its argument (null when none), its line. */
interface StepInput<K extends StepKind = StepKind> {
  r: Reader;
  kind: K;
  item: Node;
  arg: unknown;
  line: number;
  /** No argument (or an empty one). */
  empty: boolean;
  /** True when there is an argument; else a problem saying the step needs `what`. */
  need(what: string): boolean;
}

type StepParser<K extends StepKind> = (i: StepInput<K>) => Step | undefined;

/** A step that takes no argument. */
const bare: StepParser<'boot' | 'reboot' | 'ensure-on' | 'provision' | 'snapshot' | 'rollback'> = ({
  r,
  kind,
  arg,
  line,
  empty,
}) => {
  if (!empty) r.fail(arg as Node, `${kind} takes no arguments`);
  return { kind, line };
};

/** expect-beep and expect-led: a value, or { is, within }. */
const expectSignal: StepParser<'expect-beep' | 'expect-led'> = ({ r, kind, arg, line, need }) => {
  if (!need(kind === 'expect-beep' ? BEEP_KINDS.join('|') : 'green|red|off')) return undefined;
  let valueNode: unknown = arg;
  let withinMs = DEFAULT_WITHIN_MS;
  if (isMap(arg)) {
    const f = r.fields(arg, kind, ['is', 'within']);
    valueNode = f.get('is')?.node;
    if (!valueNode) {
      r.fail(arg as Node, `${kind} needs 'is'`);
      return undefined;
    }
    if (f.has('within')) withinMs = r.duration(f.get('within')!.node, 'within') ?? DEFAULT_WITHIN_MS;
  }
  if (kind === 'expect-beep') {
    const beep = r.oneOf(valueNode, kind, BEEP_KINDS);
    return beep === undefined ? undefined : { kind, line, beep, withinMs };
  }
  const color = r.oneOf(valueNode, kind, ['green', 'red', 'off'] as const);
  return color === undefined ? undefined : { kind, line, color, withinMs };
};

/** flip-bit and lose-sector: an index. */
const indexed: StepParser<'flip-bit' | 'lose-sector'> = ({ r, kind, arg, line, need }) => {
  if (!need('an index')) return undefined;
  const index = r.int(arg, kind, 0, 0x7fffffff);
  return index === undefined ? undefined : { kind, line, index };
};

/** Every step kind's parser: the table `parseScenario` reads a step with. */
const STEP_PARSERS: { [K in StepKind]: StepParser<K> } = {
  boot: bare,
  reboot: bare,
  'ensure-on': bare,
  provision: bare,
  update: ({ r, kind, arg, line, need }) => {
    if (!need('an image: base, next, older or forged')) return undefined;
    const f = r.fields(arg, 'update', ['image', 'after-flash-ops', 'via', 'resume']);
    const image = f.has('image')
      ? r.oneOf(f.get('image')!.node, 'image', ['base', 'next', 'older', 'forged'] as const)
      : undefined;
    if (!f.has('image')) r.fail(arg as Node, 'update needs image (base, next, older or forged)');
    const n = f.has('after-flash-ops')
      ? r.int(f.get('after-flash-ops')!.node, 'after-flash-ops', 1, 1_000_000)
      : undefined;
    const via = f.has('via') ? r.oneOf(f.get('via')!.node, 'via', ['direct', 'service'] as const) : 'direct';
    let resume: boolean | undefined;
    if (f.has('resume')) {
      const n = f.get('resume')!.node;
      const v = r.bool(n, 'resume');
      if (v !== undefined && via !== 'service') r.fail(n as Node, 'resume needs via: service');
      else resume = v;
    }
    return image === undefined
      ? undefined
      : {
          kind,
          line,
          image,
          ...(n !== undefined ? { afterFlashOps: n } : {}),
          ...(via === 'service' ? { via } : {}),
          ...(resume ? { resume } : {}),
        };
  },
  'expect-image': ({ r, kind, arg, line, need }) => {
    if (!need('slot or confirmed')) return undefined;
    const f = r.fields(arg, 'expect-image', ['slot', 'confirmed']);
    const st: Step & { kind: 'expect-image' } = { kind, line };
    if (f.has('slot')) st.slot = r.oneOf(f.get('slot')!.node, 'slot', ['A', 'B'] as const);
    if (f.has('confirmed')) {
      const v = r.bool(f.get('confirmed')!.node, 'confirmed');
      if (v !== undefined) st.confirmed = v;
    }
    if (!f.has('slot') && !f.has('confirmed')) r.fail(arg as Node, 'expect-image needs slot or confirmed');
    return st;
  },
  'flip-bit': indexed,
  'lose-sector': indexed,
  'power-cut': ({ r, kind, arg, line, empty }) => {
    if (empty || (isScalar(arg) && arg.value === 'now')) return { kind, line };
    const f = r.fields(arg, 'power-cut', ['after-flash-ops']);
    const n = f.has('after-flash-ops')
      ? r.int(f.get('after-flash-ops')!.node, 'after-flash-ops', 1, 1_000_000)
      : undefined;
    return n === undefined ? undefined : { kind, line, afterFlashOps: n };
  },
  delay: ({ r, kind, arg, line, need }) => {
    if (!need('a duration (250ms, 2s)')) return undefined;
    const ms = r.duration(arg, 'delay');
    return ms === undefined ? undefined : { kind, line, ms };
  },
  'set-clock': ({ r, kind, arg, line, need }) => {
    if (!need('an ISO date-time')) return undefined;
    const text = r.str(arg, 'set-clock');
    const ms = parseInstant(text);
    if (ms === null) {
      r.fail(arg as Node, 'set-clock must be an ISO date-time such as 2027-08-02T09:00:00+02:00');
      return undefined;
    }
    return { kind, line, ms, text: text! };
  },
  press: ({ r, kind, arg, line, need }) => {
    if (!need('a key: OK, C or 0-9')) return undefined;
    const key = r.oneOf(arg, 'press', KEYS);
    return key === undefined ? undefined : { kind, line, key: key as Key };
  },
  scan: ({ r, arg, line, need }) => (need('code or ticket') ? parseScan(r, arg, line) : undefined),
  'expect-display': ({ r, kind, arg, line, need }) => {
    if (!need('contains or matches')) return undefined;
    if (isScalar(arg)) {
      const text = r.str(arg, 'expect-display');
      return text === undefined ? undefined : { kind, line, contains: text, withinMs: DEFAULT_WITHIN_MS };
    }
    const f = r.fields(arg, 'expect-display', ['contains', 'matches', 'line', 'within']);
    const s: Step & { kind: 'expect-display' } = { kind, line, withinMs: DEFAULT_WITHIN_MS };
    if (f.has('contains')) s.contains = r.str(f.get('contains')!.node, 'contains');
    if (f.has('matches')) {
      const n = f.get('matches')!.node;
      const src = r.str(n, 'matches');
      try {
        if (src !== undefined) s.matches = new RegExp(src);
      } catch (e) {
        r.fail(n as Node, `matches: ${(e as Error).message}`);
      }
    }
    if (f.has('contains') === f.has('matches'))
      r.fail(arg as Node, 'expect-display needs exactly one of contains or matches');
    if (f.has('line')) s.row = r.int(f.get('line')!.node, 'line', 1, 16);
    if (f.has('within')) s.withinMs = r.duration(f.get('within')!.node, 'within') ?? DEFAULT_WITHIN_MS;
    return s;
  },
  'expect-beep': expectSignal,
  'expect-led': expectSignal,
  'expect-ledger': ({ r, kind, arg, line, need }) => {
    if (!need('count or contains')) return undefined;
    const f = r.fields(arg, 'expect-ledger', ['count', 'contains', 'within']);
    const s: Step & { kind: 'expect-ledger' } = { kind, line, withinMs: 0 };
    if (f.has('count')) s.count = r.int(f.get('count')!.node, 'count', 0, 1_000_000);
    if (f.has('contains')) {
      const { emission, block, number } = r.ticketRef(f);
      if (emission === undefined || block === undefined || number === undefined)
        r.fail(f.get('contains')!.node as Node, 'contains needs emission, block and number');
      else s.contains = { emission, block, number };
    }
    if (!f.has('count') && !f.has('contains')) r.fail(arg as Node, 'expect-ledger needs count or contains');
    if (f.has('within')) s.withinMs = r.duration(f.get('within')!.node, 'within') ?? 0;
    return s;
  },
  network: ({ r, kind, arg, line, need }) => {
    if (!need('down, up, or {latency, loss}')) return undefined;
    if (isScalar(arg)) {
      const v = r.oneOf(arg, 'network', ['down', 'up'] as const);
      return v === undefined ? undefined : { kind, line, up: v === 'up' };
    }
    const f = r.fields(arg, 'network', ['latency', 'loss', 'tamper']);
    const s: Step & { kind: 'network' } = { kind, line, up: true };
    if (f.has('tamper')) s.tamper = r.oneOf(f.get('tamper')!.node, 'tamper', ['chunks', 'none'] as const);
    if (f.has('latency')) s.latencyMs = r.duration(f.get('latency')!.node, 'latency');
    if (f.has('loss')) {
      const n = f.get('loss')!.node;
      const v = r.scalar(n, 'loss');
      if (typeof v !== 'number' || !(v >= 0 && v <= 1)) r.fail(n as Node, 'loss must be a number from 0 to 1');
      else s.loss = v;
    }
    return s;
  },
  snapshot: bare,
  rollback: bare,
  attack: ({ r, kind, arg, line, need }) => {
    if (!need(`${FLEET_ATTACKS.join(', ')} or off`)) return undefined;
    const v = r.oneOf(arg, 'attack', [...FLEET_ATTACKS, 'off'] as const);
    return v === undefined ? undefined : { kind, line, attack: v };
  },
  clone: ({ r, kind, arg, line, need }) => {
    if (!need('the device it copies')) return undefined;
    const of = r.str(arg, 'clone');
    return of === undefined ? undefined : { kind, line, of };
  },
  registry: ({ r, kind, arg, line, need }) => {
    if (!need('down or up')) return undefined;
    const v = r.oneOf(arg, 'registry', ['down', 'up'] as const);
    return v === undefined ? undefined : { kind, line, up: v === 'up' };
  },
  'expect-registry': ({ r, kind, arg, line, need }) => {
    if (!need('claims, conflicts or contains')) return undefined;
    const f = r.fields(arg, 'expect-registry', ['claims', 'conflicts', 'contains', 'within']);
    const s: Step & { kind: 'expect-registry' } = { kind, line, withinMs: 0 };
    if (f.has('claims')) s.claims = r.int(f.get('claims')!.node, 'claims', 0, 1_000_000);
    if (f.has('conflicts')) s.conflicts = r.int(f.get('conflicts')!.node, 'conflicts', 0, 1_000_000);
    if (f.has('contains')) {
      const { c, emission, block, number } = r.ticketRef(f, ['device']);
      const device = c.has('device') ? r.str(c.get('device')!.node, 'device') : undefined;
      if (emission === undefined || block === undefined || number === undefined)
        r.fail(f.get('contains')!.node as Node, 'contains needs emission, block and number');
      else s.contains = { emission, block, number, device };
    }
    if (!f.has('claims') && !f.has('conflicts') && !f.has('contains'))
      r.fail(arg as Node, 'expect-registry needs claims, conflicts or contains');
    if (f.has('within')) s.withinMs = r.duration(f.get('within')!.node, 'within') ?? 0;
    return s;
  },
  notice: ({ r, kind, arg, line, need }) => {
    if (!need('a signed notice file, or {file | text, via, refused, lenient}')) return undefined;
    if (isScalar(arg)) {
      const file = r.str(arg, 'notice');
      return file === undefined ? undefined : { kind, line, file, via: 'service' };
    }
    const f = r.fields(arg, 'notice', ['file', 'text', 'via', 'refused', 'lenient']);
    const file = f.has('file') ? r.str(f.get('file')!.node, 'file') : undefined;
    const text = f.has('text') ? r.str(f.get('text')!.node, 'text') : undefined;
    if (f.has('file') === f.has('text')) r.fail(arg as Node, 'notice needs file or text (a signed notice), not both');
    const via = f.has('via') ? r.oneOf(f.get('via')!.node, 'via', ['service', 'registry'] as const) : 'service';
    let refused: boolean | undefined;
    let lenient: boolean | undefined;
    for (const [k, set] of [
      ['refused', (v: boolean) => (refused = v)],
      ['lenient', (v: boolean) => (lenient = v)],
    ] as const) {
      if (!f.has(k)) continue;
      const n = f.get(k)!.node;
      const v = r.bool(n, k);
      if (v !== undefined && via !== 'service') r.fail(n as Node, `${k} needs via: service`);
      else if (v !== undefined) set(v);
    }
    if (refused && lenient) r.fail(arg as Node, 'notice: refused or lenient, not both');
    return (file === undefined && text === undefined) || via === undefined
      ? undefined
      : {
          kind,
          line,
          ...(file !== undefined ? { file } : { text }),
          via,
          ...(refused ? { refused } : {}),
          ...(lenient ? { lenient } : {}),
        };
  },
  'expect-notice': ({ r, kind, arg, line, need }) => {
    if (!need('a notice version (0: none)')) return undefined;
    const version = r.int(arg, 'expect-notice', 0, 0x7fffffff);
    return version === undefined ? undefined : { kind, line, version };
  },
  campaign: ({ r, kind, arg, line, need }) => {
    if (!need('{name, image, phases, max-failures, group} or {name, do: pause|resume|abort}')) return undefined;
    const f = r.fields(arg, 'campaign', ['name', 'image', 'phases', 'max-failures', 'group', 'do', 'lenient']);
    const name = f.has('name') ? r.str(f.get('name')!.node, 'name') : undefined;
    if (name === undefined) return void r.fail(arg as Node, 'campaign needs name');
    if (f.has('do')) {
      const verb = r.oneOf(f.get('do')!.node, 'do', ['pause', 'resume', 'abort'] as const);
      const lenient = f.has('lenient') && r.scalar(f.get('lenient')!.node, 'lenient') === true;
      return verb === undefined ? undefined : { kind, line, name, verb, ...(lenient ? { lenient } : {}) };
    }
    const image = f.has('image')
      ? r.oneOf(f.get('image')!.node, 'image', ['base', 'next', 'older', 'forged'] as const)
      : undefined;
    if (!image) return void r.fail(arg as Node, 'campaign needs image (base, next, older or forged) or do');
    const s: Step & { kind: 'campaign' } = { kind, line, name, verb: 'create', image };
    if (f.has('phases')) {
      const n = f.get('phases')!.node;
      const v = r.scalar(n, 'phases');
      const ps = String(v)
        .split(',')
        .map((x) => Number(x.trim()));
      if (ps.some((p, i) => !Number.isInteger(p) || p < 1 || p > 100 || (i > 0 && p <= ps[i - 1])) || ps.at(-1) !== 100)
        r.fail(n as Node, 'phases: increasing percentages ending at 100, as "1,10,100"');
      else s.phases = ps;
    }
    if (f.has('max-failures')) s.maxFailures = r.int(f.get('max-failures')!.node, 'max-failures', 1, 100_000);
    if (f.has('group')) s.group = r.str(f.get('group')!.node, 'group');
    return s;
  },
  'expect-campaign': ({ r, kind, arg, line, need }) => {
    if (!need('{name, state, phase, confirmed, failed, within}')) return undefined;
    const f = r.fields(arg, 'expect-campaign', ['name', 'state', 'phase', 'confirmed', 'failed', 'within']);
    const name = f.has('name') ? r.str(f.get('name')!.node, 'name') : undefined;
    if (name === undefined) return void r.fail(arg as Node, 'expect-campaign needs name');
    const s: Step & { kind: 'expect-campaign' } = { kind, line, name, withinMs: 0 };
    if (f.has('state'))
      s.state = r.oneOf(f.get('state')!.node, 'state', ['running', 'paused', 'stopped', 'aborted', 'done'] as const);
    if (f.has('phase')) s.phase = r.int(f.get('phase')!.node, 'phase', 1, 10);
    if (f.has('confirmed')) s.confirmed = r.int(f.get('confirmed')!.node, 'confirmed', 0, 1_000_000);
    if (f.has('failed')) s.failed = r.int(f.get('failed')!.node, 'failed', 0, 1_000_000);
    if (f.has('within')) s.withinMs = r.duration(f.get('within')!.node, 'within') ?? 0;
    return s;
  },
  printer: ({ r, kind, arg, line, need }) => {
    if (!need('ok, paper-out or fault')) return undefined;
    const v = r.oneOf(arg, 'printer', ['ok', 'paper-out', 'fault'] as const);
    return v === undefined ? undefined : { kind, line, state: v };
  },
  'expect-receipt': ({ r, kind, arg, line, need }) => {
    if (!need('none, a text, or {contains, within}')) return undefined;
    if (isScalar(arg)) {
      const text = r.str(arg, 'expect-receipt');
      if (text === undefined) return undefined;
      return text === 'none'
        ? { kind, line, none: true, withinMs: 0 }
        : { kind, line, contains: text, withinMs: DEFAULT_WITHIN_MS };
    }
    const f = r.fields(arg, 'expect-receipt', ['contains', 'within']);
    const s: Step & { kind: 'expect-receipt' } = { kind, line, withinMs: DEFAULT_WITHIN_MS };
    if (f.has('contains')) s.contains = r.str(f.get('contains')!.node, 'contains');
    else r.fail(arg as Node, 'expect-receipt needs contains');
    if (f.has('within')) s.withinMs = r.duration(f.get('within')!.node, 'within') ?? DEFAULT_WITHIN_MS;
    return s;
  },
  screenshot: ({ r, kind, arg, line, need }) => {
    if (!need('a file name ending in .png')) return undefined;
    const file = r.str(arg, 'screenshot');
    if (file !== undefined && !/\.png$/i.test(file)) r.fail(arg as Node, 'screenshot must name a .png file');
    // It stays in the scenario's folder (or --screenshots DIR): a scenario file cannot write elsewhere.
    if (file !== undefined && (/^([\\/]|[A-Za-z]:)/.test(file) || file.split(/[\\/]/).includes('..')))
      r.fail(arg as Node, "screenshot must stay in the scenario's folder (no absolute path, no ..)");
    return file === undefined ? undefined : { kind, line, file };
  },
};

/** A scan: a code or a ticket, the scanner model (`via`) and its options, a key pressed meanwhile. */
function parseScan(r: Reader, arg: unknown, line: number): Step | undefined {
  const allOptions = new Set<string>();
  for (const k of SCANNER_KINDS) for (const o of Object.keys(MODEL_OPTIONS[k])) allOptions.add(o);
  const f = r.fields(arg, 'scan', ['code', 'ticket', 'key', 'via', 'press', ...allOptions]);
  if (!isMap(arg)) return undefined;
  const via = f.has('via') ? r.oneOf(f.get('via')!.node, 'via', SCANNER_KINDS) : 'hid-pos';
  if (via === undefined) return undefined;
  const s: Step & { kind: 'scan' } = { kind: 'scan', line, via, options: {} };
  if (f.has('code') === f.has('ticket')) r.fail(arg as Node, 'scan needs exactly one of code or ticket');
  if (f.has('code')) {
    const n = f.get('code')!.node;
    const v = r.scalar(n, 'code');
    if (typeof v !== 'string') r.fail(n as Node, 'code must be text (quote it)');
    else s.code = v;
  }
  let key: 'test' | 'other' | undefined;
  if (f.has('key')) {
    key = r.oneOf(f.get('key')!.node, 'key', ['test', 'other'] as const);
    if (f.has('code')) r.fail(f.get('key')!.node as Node, 'key applies to ticket, not to code');
  }
  if (f.has('ticket')) {
    const n = f.get('ticket')!.node;
    const t = r.fields(n, 'ticket', ['emission', 'block', 'number', 'prize', 'key']);
    const emission = t.has('emission') ? r.int(t.get('emission')!.node, 'emission', 0, 0xffff) : undefined;
    const block = t.has('block') ? r.int(t.get('block')!.node, 'block', 0, 0xffff) : 1;
    const number = t.has('number') ? r.int(t.get('number')!.node, 'number', 0, 2_999_999) : undefined;
    const prize = t.has('prize') ? r.int(t.get('prize')!.node, 'prize', 0, 250_000) : undefined;
    if (t.has('key')) key = r.oneOf(t.get('key')!.node, 'key', ['test', 'other'] as const);
    if (emission === undefined || number === undefined || prize === undefined || block === undefined) {
      if (isMap(n) && (!t.has('emission') || !t.has('number') || !t.has('prize')))
        r.fail(n as Node, 'ticket needs emission, number and prize (block defaults to 1)');
    } else {
      const spec: TicketSpec = { emission, block, number, prize, key };
      const problem = ticketProblem(spec);
      if (problem) r.fail(n as Node, problem);
      else s.ticket = spec;
    }
  }
  if (f.has('press')) {
    // A key pressed while the code is still arriving: { key: OK, at: 40ms } from the scan's start.
    const p = r.fields(f.get('press')!.node, 'press', ['key', 'at']);
    const k = p.has('key') ? r.oneOf(p.get('key')!.node, 'key', KEYS) : undefined;
    const at = p.has('at') ? r.duration(p.get('at')!.node, 'at') : 0;
    if (!p.has('key')) r.fail(f.get('press')!.node as Node, 'press needs key (OK, C or 0-9) and at (a duration)');
    else if (k !== undefined && at !== undefined) s.during = { key: k as Key, atMs: at };
  }
  const known = MODEL_OPTIONS[via];
  for (const [k, { node }] of f) {
    if (k === 'code' || k === 'ticket' || k === 'key' || k === 'via' || k === 'press') continue;
    if (!(k in known)) {
      r.fail(node as Node, `scanner ${via} has no option '${k}' (its options: ${Object.keys(known).join(', ')})`);
      continue;
    }
    const v = r.scalar(node, k);
    if (v === undefined) continue;
    if (typeof v !== known[k]) r.fail(node as Node, `${k} must be a ${known[k]}`);
    else s.options[k] = v as number | string | boolean;
  }
  return s;
}

/** One step: a name (`boot`), or a map of one step name to its argument, with `on: DEVICE` beside it. */
function parseStep(r: Reader, item: Node): Step | undefined {
  // `on: DEVICE` may sit beside the step's own key.
  if (isMap(item) && item.items.length === 2) {
    const i = item.items.findIndex((p) => isScalar(p.key) && p.key.value === 'on');
    if (i >= 0) {
      const on = r.str(item.items[i].value, 'on');
      const s = parseStepOf(r, item, item.items[1 - i]);
      return s && on !== undefined ? { ...s, on } : s;
    }
  }
  return parseStepOf(r, item, null);
}

function parseStepOf(r: Reader, item: Node, only: Pair | null): Step | undefined {
  const line = r.lineOf(item);
  let kind: string;
  let arg: unknown = null;
  if (only) {
    kind = isScalar(only.key) ? String(only.key.value) : '';
    arg = only.value;
  } else if (isScalar(item)) {
    kind = String(item.value);
  } else if (isMap(item) && item.items.length === 1) {
    const pair = item.items[0];
    kind = isScalar(pair.key) ? String(pair.key.value) : '';
    arg = pair.value;
  } else {
    r.fail(item, 'a step is a name (boot) or a map of one step name to its arguments (delay: 250ms)');
    return undefined;
  }
  if (!(STEP_KINDS as readonly string[]).includes(kind)) {
    r.fail(item, `unknown step '${kind}' (known: ${STEP_KINDS.join(', ')})`);
    return undefined;
  }
  const empty = arg === null || (isScalar(arg) && arg.value === null);
  const need = (what: string) => {
    if (empty) r.fail(item, `${kind} needs ${what}`);
    return !empty;
  };
  const parse = STEP_PARSERS[kind as StepKind] as StepParser<StepKind>;
  return parse({ r, kind: kind as StepKind, item, arg, line, empty, need });
}

/** `config:` — the names and limits are the firmware's (src/config-schema.ts), so a scenario that passes here configures the device without a surprise. */
function parseConfig(r: Reader, node: unknown, scenario: Scenario): SimConfig {
  const Y = CONFIG_YAML_NAMES;
  const f = r.fields(node, 'config', [...Object.values(Y), 'clock']);
  const c: SimConfig = {};
  for (const k of Object.keys(CONFIG_INT_LIMITS) as ConfigIntField[]) {
    if (!(k in Y)) continue;
    const [min, max] = CONFIG_INT_LIMITS[k];
    const name = Y[k as keyof typeof Y];
    if (f.has(name)) c[k] = r.int(f.get(name)!.node, name, min, max);
  }
  if (f.has(Y.lang)) c.lang = r.oneOf(f.get(Y.lang)!.node, Y.lang, CONFIG_LANGS);
  // Printable ASCII text fields, each with its length limit.
  for (const [k, ok, max] of [
    ['deviceId', isDeviceId, DEVICE_ID_MAX],
    ['shop', isShop, SHOP_MAX],
  ] as const) {
    if (!f.has(Y[k])) continue;
    const n = f.get(Y[k])!.node;
    const v = r.str(n, Y[k]);
    if (v !== undefined && !ok(v)) r.fail(n as Node, `${Y[k]} must be printable ASCII of at most ${max} characters`);
    else c[k] = v;
  }
  if (f.has(Y.department)) {
    const n = f.get(Y.department)!.node;
    const v = r.str(n, Y.department);
    if (v !== undefined && !isDepartment(v))
      r.fail(n as Node, `${Y.department} must be a department: 01…95, 2A, 2B, 971…976 (quoted: '01')`);
    else c.department = v;
  }
  if (f.has(Y.inputs)) {
    const n = f.get(Y.inputs)!.node;
    if (!isSeq(n)) r.fail(n as Node, `inputs must be a list of ${CONFIG_INPUTS.join(', ')}`);
    else
      c.inputs = n.items
        .map((x) => r.oneOf(x, 'inputs', CONFIG_INPUTS))
        .filter((x): x is ConfigInput => x !== undefined);
  }
  if (f.has('clock')) {
    const n = f.get('clock')!.node;
    const ms = parseInstant(r.str(n, 'clock'));
    if (ms === null) r.fail(n as Node, 'clock must be an ISO date-time such as 2026-11-30T10:00:00Z');
    else scenario.clockMs = ms;
  }
  if (f.has('emissions')) {
    const n = f.get('emissions')!.node;
    if (!isSeq(n)) r.fail(n as Node, 'emissions must be a list of {emission, closes}');
    else {
      c.emissions = [];
      for (const item of n.items) {
        const e = r.fields(item, 'an emission', ['emission', 'closes']);
        const emission = e.has('emission') ? r.int(e.get('emission')!.node, 'emission', ...EMISSION_LIMITS) : undefined;
        const closes = e.has('closes') ? r.str(e.get('closes')!.node, 'closes') : undefined;
        // Without closes: on sale, no claim deadline until a closing notice.
        if (!e.has('emission'))
          r.fail(item as Node, 'an emission needs emission (and closes, YYYY-MM-DD, once closed)');
        else if (closes !== undefined && !isDate(closes))
          r.fail(e.get('closes')!.node as Node, 'closes must be a date YYYY-MM-DD');
        else if (emission !== undefined)
          c.emissions.push(closes === undefined ? { emission } : { emission, closingDate: closes });
      }
    }
  }
  return c;
}

/** `device:` — the simulated device's flash file, id, keys and ledger size. */
function parseDevice(r: Reader, node: unknown): NonNullable<Scenario['device']> {
  const f = r.fields(node, 'device', [
    'flash',
    'id',
    'firmware-key',
    'tech-key',
    'registry-key',
    'operator-key',
    'ledger-sectors',
  ]);
  const device: NonNullable<Scenario['device']> = {};
  const text = {
    flash: 'flash',
    id: 'id',
    firmwareKey: 'firmware-key',
    techKey: 'tech-key',
    registryKey: 'registry-key',
    operatorKey: 'operator-key',
  };
  for (const [k, name] of Object.entries(text) as [keyof typeof text, string][])
    if (f.has(name)) device[k] = r.str(f.get(name)!.node, name);
  if (f.has('ledger-sectors'))
    device.ledgerSectors = r.int(
      f.get('ledger-sectors')!.node,
      'ledger-sectors',
      LEDGER_MIN_BLOCKS,
      LAYOUT.ledger.size / SECTOR_SIZE,
    );
  return device;
}

/** `devices:` — the ids of a fleet's devices. */
function parseDevices(r: Reader, n: unknown): string[] | undefined {
  if (!isSeq(n) || n.items.length === 0) {
    r.fail(n as Node, 'devices must be a list of device ids');
    return undefined;
  }
  const devices: string[] = [];
  for (const item of n.items) {
    const id = r.str(item, 'a device id');
    if (id === undefined) continue;
    if (!/^[\x21-\x7e]{1,16}$/.test(id)) r.fail(item as Node, 'a device id is 1 to 16 printable ASCII characters');
    else if (devices.includes(id)) r.fail(item as Node, `device ${id} is listed twice`);
    else devices.push(id);
  }
  return devices;
}

export function parseScenario(text: string, file = 'scenario.yaml'): Scenario {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const r = new Reader(lc);
  for (const e of doc.errors) r.problems.push({ line: lc.linePos(e.pos[0]).line, message: e.message.split('\n')[0] });
  if (r.problems.length) throw new ScenarioError(file, r.problems);

  const root = doc.contents;
  if (!isMap(root))
    throw new ScenarioError(file, [
      { line: 1, message: 'a scenario is a map with name, steps, and optionally config, device, seed' },
    ]);

  const top = r.fields(root, 'the scenario', [
    'name',
    'description',
    'seed',
    'variant',
    'config',
    'device',
    'devices',
    'steps',
  ]);
  const scenario: Scenario = { file, name: '', seed: file, steps: [] };
  const name = top.get('name');
  if (!name) r.fail(root, "missing 'name'");
  else scenario.name = r.str(name.node, 'name') ?? '';
  const desc = top.get('description');
  if (desc) scenario.description = r.str(desc.node, 'description');
  const variant = top.get('variant');
  if (variant) scenario.variant = r.oneOf(variant.node, 'variant', ['quickjs', 'quickjs-ng', 'xs'] as const);
  const seed = top.get('seed');
  if (seed) scenario.seed = r.str(seed.node, 'seed') ?? file;
  else scenario.seed = scenario.name || file;

  const cfg = top.get('config');
  if (cfg) scenario.config = parseConfig(r, cfg.node, scenario);
  const dev = top.get('device');
  if (dev) scenario.device = parseDevice(r, dev.node);
  const devs = top.get('devices');
  if (devs) {
    const list = parseDevices(r, devs.node);
    if (list) scenario.devices = list;
  }

  const steps = top.get('steps');
  if (!steps) r.fail(root, "missing 'steps'");
  else if (!isSeq(steps.node)) r.fail(steps.node as Node, 'steps must be a list');
  else {
    for (const item of steps.node.items) {
      const s = parseStep(r, item as Node);
      if (s && s.on !== undefined && !(scenario.devices ?? []).includes(s.on)) {
        r.fail(
          item as Node,
          `on: ${s.on} is not one of the scenario's devices (${(scenario.devices ?? []).join(', ') || 'none declared'})`,
        );
      } else if (s && s.kind === 'clone' && (!(scenario.devices ?? []).includes(s.of) || s.of === s.on)) {
        r.fail(item as Node, `clone: ${s.of} must be another of the scenario's devices`);
      } else if (s) scenario.steps.push(s);
    }
    if (steps.node.items.length === 0) r.fail(steps.node as Node, 'steps is empty');
  }
  if (r.problems.length)
    throw new ScenarioError(
      file,
      r.problems.sort((a, b) => a.line - b.line),
    );
  return scenario;
}
