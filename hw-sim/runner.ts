// Plays a checked scenario on a Simulator: each step is reported as it passes; the first failing step
// stops the run with the display and what was expected.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { Simulator, type SimEvents } from './sim.ts';
import { NorFlash } from './nor-flash.ts';
import { drawPng, drawText } from './render.ts';
import { transmit, ScannerOptionError } from './scanners/index.ts';
import { ticketCode } from './tickets.ts';
import type { Scenario, Step } from './scenario.ts';
import { formatEur } from '../src/i18n.ts';

export interface StepReport {
  line: number;
  text: string;
  ok: boolean;
  /** Virtual time when the step ended, ms. */
  t: number;
  problem?: string;
}

export interface RunReport {
  scenario: string;
  file: string;
  ok: boolean;
  steps: StepReport[];
  /** The display (framed) when the run failed. */
  display?: string;
  virtualMs: number;
  wallMs: number;
  scans: number;
  payments: number;
}

export interface RunOptions {
  /** Called for each step as it passes or fails. */
  onStep?: (r: StepReport) => void;
  events?: SimEvents;
  /** Where screenshots go when a scenario names a relative file (default: beside the scenario). */
  screenshotDir?: string;
  /** An existing simulator (the demo shares one); default a new one from the scenario. */
  sim?: Simulator;
  /** Firmware bundle text (developer mode). */
  bundle?: string;
  /** The engine: quickjs (default) or quickjs-ng. */
  variant?: 'quickjs' | 'quickjs-ng';
  /** The chip to start from (overrides the scenario's `device.flash`). */
  chip?: NorFlash;
  /** Language of the problems reported (default fr, like all technician-facing text). */
  lang?: 'fr' | 'en';
}

export function describe(s: Step): string {
  switch (s.kind) {
    case 'boot':
    case 'reboot':
      return s.kind;
    case 'power-cut':
      return s.afterFlashOps ? `power-cut after-flash-ops ${s.afterFlashOps}` : 'power-cut now';
    case 'delay':
      return `delay ${s.ms} ms`;
    case 'set-clock':
      return `set-clock ${s.text}`;
    case 'scan': {
      const what = s.ticket
        ? `ticket ${s.ticket.emission}/${s.ticket.block}/${s.ticket.number} (${s.ticket.prize ? formatEur(s.ticket.prize) : 'perdant'}${s.ticket.key === 'other' ? ', forged' : ''})`
        : `code ${s.code!.length > 24 ? s.code!.slice(0, 21) + '…' : s.code}`;
      const opts = Object.entries(s.options).map(([k, v]) => `${k}=${v}`).join(' ');
      return `scan ${what} via ${s.via}${opts ? ' ' + opts : ''}${s.during ? ` (press ${s.during.key} at ${s.during.atMs} ms)` : ''}`;
    }
    case 'press':
      return `press ${s.key}`;
    case 'expect-display':
      return `expect-display ${s.contains !== undefined ? `contains "${s.contains}"` : `matches /${s.matches!.source}/`}${s.row ? ` on line ${s.row}` : ''}`;
    case 'expect-beep':
      return `expect-beep ${s.beep}`;
    case 'expect-led':
      return `expect-led ${s.color}`;
    case 'expect-ledger': {
      const parts: string[] = [];
      if (s.count !== undefined) parts.push(`count ${s.count}`);
      if (s.contains) parts.push(`contains ${s.contains.emission}/${s.contains.block}/${s.contains.number}`);
      return `expect-ledger ${parts.join(', ')}`;
    }
    case 'screenshot':
      return `screenshot ${s.file}`;
    case 'ensure-on':
    case 'provision':
      return s.kind;
    case 'expect-image':
      return `expect-image${s.slot ? ` slot ${s.slot}` : ''}${s.confirmed !== undefined ? ` confirmed ${s.confirmed}` : ''}`;
    case 'update':
      return `update ${s.image}${s.afterFlashOps ? ` (power cut at flash operation ${s.afterFlashOps})` : ''}`;
    case 'flip-bit':
    case 'lose-sector':
      return `${s.kind} ${s.index}`;
  }
}

/** Builds the simulator a scenario asks for (its flash file, clock, seed, device id). */
export function simulatorFor(sc: Scenario, o: RunOptions = {}): Simulator {
  const chip = o.chip ?? (sc.device?.flash ? NorFlash.load(resolveFrom(sc.file, sc.device.flash)) : new NorFlash());
  return new Simulator({ chip, seed: sc.seed, clockMs: sc.clockMs, deviceId: sc.device?.id, events: o.events, bundle: o.bundle, variant: o.variant });
}

function resolveFrom(file: string, p: string): string {
  return isAbsolute(p) ? p : resolve(dirname(file), p);
}

export async function runScenario(sc: Scenario, o: RunOptions = {}): Promise<RunReport> {
  const wall = performance.now();
  const sim = o.sim ?? simulatorFor(sc, o);
  if (o.sim && o.events) sim.events = o.events;
  if (o.sim && sc.clockMs !== undefined) sim.setClock(sc.clockMs);
  if (sc.config) sim.configure(sc.config);
  const report: RunReport = { scenario: sc.name, file: sc.file, ok: true, steps: [], virtualMs: 0, wallMs: 0, scans: 0, payments: 0 };
  const start = sim.now;
  const en = o.lang === 'en';
  const tr = (fr: string, english: string) => (en ? english : fr);
  /** Beeps count from the last action (scan, press, boot). */
  let mark = sim.beepLog.length;
  for (const step of sc.steps) {
    let problem: string | undefined;
    try {
      problem = await play(step);
    } catch (e) {
      problem = e instanceof Error ? e.message : String(e);
    }
    const r: StepReport = { line: step.line, text: describe(step), ok: !problem, t: sim.now - start, problem };
    report.steps.push(r);
    o.onStep?.(r);
    if (problem) {
      report.ok = false;
      report.display = drawText({ lines: sim.screen, rows: 4, columns: 20, led: sim.led }, sim.on ? '' : tr('(hors tension)', '(power off)'));
      break;
    }
  }
  report.virtualMs = sim.now - start;
  report.wallMs = performance.now() - wall;
  if (!o.sim) sim.dispose();
  return report;

  async function play(s: Step): Promise<string | undefined> {
    const needOn = () => {
      if (!sim.on) throw new Error(tr("l'appareil est éteint (ajoutez une étape boot)", 'the device is off (add a boot step)'));
    };
    switch (s.kind) {
      case 'boot':
        await sim.boot();
        mark = sim.beepLog.length;
        return;
      case 'reboot':
        await sim.reboot();
        mark = sim.beepLog.length;
        return;
      case 'power-cut':
        if (s.afterFlashOps) sim.cutAfterFlashOps(s.afterFlashOps);
        else sim.powerCut();
        return;
      case 'ensure-on':
        // A cut still armed may strike this boot too; it strikes once, so a second boot comes up.
        for (let i = 0; i < 3 && !sim.on; i++) {
          await sim.boot();
          mark = sim.beepLog.length;
        }
        return;
      case 'flip-bit':
        sim.damageLedger('flip-bit', s.index);
        return;
      case 'provision':
        if (sim.on) throw new Error(tr("provision : l'appareil doit être éteint", 'provision: the device must be off'));
        sim.provisionImage();
        return;
      case 'expect-image': {
        const b = sim.booted;
        if (!b) return tr(`attendu une image signée en marche ; mode ${sim.bootMode || 'éteint'}`, `expected a signed image running; mode ${sim.bootMode || 'off'}`);
        const slot = 'AB'[b.slot];
        if (s.slot && s.slot !== slot) return tr(`attendu l'image du slot ${s.slot}, c'est celle du slot ${slot}`, `expected the image of slot ${s.slot}, running slot ${slot}`);
        if (s.confirmed !== undefined && s.confirmed === sim.pendingConfirm) return tr(`attendu une image ${s.confirmed ? 'confirmée' : 'à l’essai'}`, `expected a ${s.confirmed ? 'confirmed' : 'trial'} image`);
        return;
      }
      case 'update':
        needOn();
        sim.update(s.image, s.afterFlashOps);
        return;
      case 'lose-sector':
        sim.damageLedger('lose-sector', s.index);
        return;
      case 'delay':
        await sim.run(s.ms);
        return;
      case 'set-clock':
        sim.setClock(s.ms);
        return;
      case 'scan': {
        needOn();
        const code = s.code ?? ticketCode(s.ticket!);
        let tx;
        try {
          tx = transmit(s.via, code, s.options, sim.rng);
        } catch (e) {
          if (e instanceof ScannerOptionError) return `${tr('lecteur', 'scanner')}: ${e.message}`;
          throw e;
        }
        const missed = sim.undelivered;
        const boots = sim.boots;
        mark = sim.beepLog.length;
        let end = sim.transmit(tx);
        if (s.during) {
          // The step lasts until the key too, so the press belongs to this step whatever the scanner's speed.
          sim.pressAt(s.during.key, s.during.atMs);
          end = Math.max(end, sim.now + s.during.atMs);
        }
        await sim.run(end - sim.now);
        report.scans++;
        // A device that went off or restarted during the scan (a key paid, a cut armed) lost the rest of it.
        if (sim.undelivered > missed && sim.on && sim.boots === boots) return tr(`le firmware n'a ouvert aucune entrée ${s.via} : le scan n'est arrivé nulle part`, `the firmware opened no ${s.via} input: the scan went nowhere`);
        return;
      }
      case 'press':
        needOn();
        mark = sim.beepLog.length;
        await sim.press(s.key);
        return;
      case 'expect-display': {
        const test = () => {
          const lines = sim.screen;
          // Without a line: the screen as lines, and as one text (a wrapped phrase still matches).
          const cands = s.row ? [lines[s.row - 1] ?? ''] : [lines.join('\n'), lines.map((l) => l.trim()).filter(Boolean).join(' ')];
          return cands.some((l) => (s.contains !== undefined ? l.includes(s.contains) : s.matches!.test(l)));
        };
        if (await sim.runUntil(test, s.withinMs)) return;
        const what = s.contains !== undefined ? `"${s.contains}"` : `/${s.matches!.source}/`;
        return tr(`attendu ${what}${s.row ? ` à la ligne ${s.row}` : ''} en ${s.withinMs} ms`, `expected ${what}${s.row ? ` on line ${s.row}` : ''} within ${s.withinMs} ms`);
      }
      case 'expect-beep': {
        const heard = () => sim.beepLog.slice(mark).map((b) => b.kind);
        if (await sim.runUntil(() => heard().includes(s.beep as never), s.withinMs)) return;
        return tr(`attendu le bip ${s.beep} en ${s.withinMs} ms ; entendu : ${heard().join(', ') || 'rien'}`, `expected a ${s.beep} beep within ${s.withinMs} ms; heard: ${heard().join(', ') || 'nothing'}`);
      }
      case 'expect-led':
        if (await sim.runUntil(() => sim.led === s.color, s.withinMs)) return;
        return tr(`attendu la LED ${s.color}, elle est ${sim.led}`, `expected the LED ${s.color}, it is ${sim.led}`);
      case 'expect-ledger': {
        let entries = sim.ledger();
        const test = () => {
          entries = sim.ledger();
          const countOk = s.count === undefined || entries.length === s.count;
          const c = s.contains;
          const hasOk = !c || entries.some((p) => p.emission === c.emission && p.block === c.block && p.number === c.number);
          return countOk && hasOk;
        };
        if (await sim.runUntil(test, s.withinMs)) {
          report.payments = entries.length;
          return;
        }
        const list = entries.map((p) => `${p.emission}/${p.block}/${p.number} ${p.prizeEur} €`).join('; ');
        const want = describe(s).slice('expect-ledger '.length);
        return tr(`attendu le registre ${want} ; il contient ${entries.length}${list ? ' : ' + list : ''}`, `expected the ledger ${want}; it holds ${entries.length}${list ? ': ' + list : ''}`);
      }
      case 'screenshot': {
        const file = o.screenshotDir && !isAbsolute(s.file) ? resolve(o.screenshotDir, s.file) : resolveFrom(sc.file, s.file);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, drawPng({ lines: sim.screen, rows: 4, columns: 20, led: sim.led }));
        return;
      }
    }
  }
}
