// Plays a checked scenario on a Simulator: each step is reported as it passes; the first failing step
// stops the run with the display and what was expected.
import { Simulator, type SimEvents, type SimVariant } from './sim.ts';
import { NorFlash } from './nor-flash.ts';
import { drawText, type Panel } from './render.ts';
import { simHost } from './host.ts';
import { transmit, ScannerOptionError } from './scanners/index.ts';
import { ticketCode } from './tickets.ts';
import type { Scenario, Step } from './scenario.ts';
import { attacker } from './attacker.ts';
import { formatEur, type Lang } from '../src/i18n.ts';
import { fromHex } from '../src/hex.ts';
import { messages } from '../src/messages/index.ts';
import { systemErrorText } from '../src/system-error.ts';
import { loadNotice } from '../src/notice.ts';
import { partitionFlash } from './device.ts';
import type { CampaignOp } from '../src/registry/protocol.ts';

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
  /** The run ended early at `stopWhen`'s request: the steps after the last reported were not played. */
  stopped?: boolean;
}

export interface RunOptions {
  /** Asked before each step: true ends the run there, `stopped` and still ok (the demo's reader went away). */
  stopWhen?: () => boolean | Promise<boolean>;
  /** Called for each step as it passes or fails. */
  onStep?: (r: StepReport) => void;
  events?: SimEvents;
  /** Where screenshots go when a scenario names a relative file (default: beside the scenario). */
  screenshotDir?: string;
  /** An existing simulator (the demo shares one); default a new one from the scenario. */
  sim?: Simulator;
  /** Firmware bundle text (developer mode). */
  bundle?: string;
  /** The engine: quickjs (default), quickjs-ng, or v8 (the simulator's own). */
  variant?: SimVariant;
  /** The chip to start from (overrides the scenario's `device.flash`). */
  chip?: NorFlash;
  /** Language of the problems reported (default fr, like all technician-facing text). */
  lang?: Lang;
  /** Keys to provision the device with when the scenario names none (`saphir sim --firmware-key`…). */
  firmwareKey?: Uint8Array;
  techKey?: Uint8Array;
  /** The first device's registry seed, provisioned with its keys (`saphir sim --device-key FILE`). */
  deviceSeedHex?: string;
  /** The registry's public key to provision the devices with (`saphir sim --registry-pub`). */
  registryKey?: Uint8Array;
  /** The operator's public key to provision the devices with (`saphir sim --operator-key`). */
  operatorKey?: Uint8Array;
  /** The fleet registry the devices talk to, and what it holds (for expect-registry). */
  registry?: ScenarioRegistry;
  /** Handed the scenario's devices (by id; one, under '', without `devices:`) before the first step. */
  onDevices?: (devices: ReadonlyMap<string, Simulator>) => void;
  /** Awaited before each step (the web page's step-by-step mode). */
  beforeStep?: (step: Step) => Promise<void> | void;
  /** Takes a `screenshot:` step instead of writing a PNG file (the web page offers it as a download). */
  screenshot?: (file: string, panel: Panel) => Promise<void> | void;
}

/** What a scenario sees of its registry. */
export interface ScenarioRegistry {
  url: string;
  state(): Promise<{
    holders: { emission: number; block: number; number: number; device_id: string }[];
    conflicts: number;
  }>;
  /** Publishes a signed operator notice (`notice: {via: registry}` steps). */
  publishNotice?(text: string): Promise<void>;
  /** Stop and start the registry's server (same database): `registry: down | up` steps. */
  stop?(): Promise<void>;
  start?(): Promise<void>;
  /**
   * An update campaign's operation (`campaign:` steps), answering its status; throws the registry's refusal,
   * whose `code` is 'state' when the campaign's state does not allow the verb (a pause once it stopped).
   */
  campaign?(op: CampaignOp): Promise<CampaignView>;
}

/** What a scenario reads of a campaign's status. */
export interface CampaignView {
  state: string;
  phase: number;
  max_failures?: number;
  devices: { device_id: string; phase: number; state: string; detail: string | null }[];
}

/** A step as its report shows it: its syntax, with the words around it in `lang`. */
export function describe(s: Step, lang: Lang = 'en'): string {
  const w = messages(lang).step.words;
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
        ? `ticket ${s.ticket.emission}/${s.ticket.block}/${s.ticket.number} (${s.ticket.prize ? formatEur(s.ticket.prize, lang) : w.losing}${s.ticket.key === 'other' ? `, ${w.forged}` : ''})`
        : `code ${s.code!.length > 24 ? s.code!.slice(0, 21) + '…' : s.code}`;
      const opts = Object.entries(s.options)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      return `scan ${what} via ${s.via}${opts ? ' ' + opts : ''}${s.during ? ` (${w.pressAt(s.during.key, s.during.atMs)})` : ''}`;
    }
    case 'press':
      return `press ${s.key}`;
    case 'expect-display':
      return `expect-display ${s.contains !== undefined ? `contains "${s.contains}"` : `matches /${s.matches!.source}/`}${s.row ? ` ${w.onLine(s.row)}` : ''}`;
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
    case 'printer':
      return `printer ${s.state}`;
    case 'expect-receipt':
      return s.none ? 'expect-receipt none' : `expect-receipt contains "${s.contains}"`;
    case 'network':
      return s.up
        ? `network up${s.latencyMs !== undefined ? ` latency ${s.latencyMs} ms` : ''}${s.loss !== undefined ? ` loss ${s.loss}` : ''}${s.tamper ? ` tamper ${s.tamper}` : ''}`
        : 'network down';
    case 'campaign':
      return s.verb === 'create'
        ? `campaign ${s.name}: image ${s.image}, phases ${(s.phases ?? [1, 10, 100]).join(',')}, ${w.maxFailures(s.maxFailures ?? 1)}${s.group ? `, group ${s.group}` : ''}`
        : `campaign ${s.name}: ${s.verb}`;
    case 'expect-campaign': {
      const parts: string[] = [];
      if (s.state) parts.push(s.state);
      if (s.phase !== undefined) parts.push(`phase ${s.phase}`);
      if (s.confirmed !== undefined) parts.push(w.confirmed(s.confirmed));
      if (s.failed !== undefined) parts.push(w.failed(s.failed));
      return `expect-campaign ${s.name}: ${parts.join(', ')}`;
    }
    case 'registry':
      return `registry ${s.up ? 'up' : 'down'}`;
    case 'expect-registry': {
      const parts: string[] = [];
      if (s.claims !== undefined) parts.push(`claims ${s.claims}`);
      if (s.conflicts !== undefined) parts.push(`conflicts ${s.conflicts}`);
      if (s.contains)
        parts.push(
          `contains ${s.contains.emission}/${s.contains.block}/${s.contains.number}${s.contains.device ? ` ${w.by(s.contains.device)}` : ''}`,
        );
      return `expect-registry ${parts.join(', ')}`;
    }
    case 'ensure-on':
    case 'provision':
      return s.kind;
    case 'notice':
      return `notice ${s.file ?? w.inline}${s.via === 'registry' ? ` ${w.viaRegistry}` : ''}${s.refused ? `, ${w.refused}` : ''}`;
    case 'expect-notice':
      return `expect-notice ${s.version}`;
    case 'expect-image':
      return `expect-image${s.slot ? ` slot ${s.slot}` : ''}${s.confirmed !== undefined ? ` confirmed ${s.confirmed}` : ''}`;
    case 'update':
      return `update ${s.image}${s.via ? ` via ${s.via}${s.resume ? `, ${w.resumed}` : ''}` : ''}${s.afterFlashOps ? ` (${w.cutAt(s.afterFlashOps)})` : ''}`;
    case 'flip-bit':
    case 'lose-sector':
      return `${s.kind} ${s.index}`;
    case 'attack':
      return `attack ${s.attack}`;
    case 'snapshot':
    case 'rollback':
      return s.kind;
    case 'clone':
      return w.cloneOf(s.of);
  }
}

function describeOn(s: Step, lang: Lang): string {
  return s.on ? `[${s.on}] ${describe(s, lang)}` : describe(s, lang);
}

/** Builds the simulator a scenario asks for (its flash file, clock, seed, device id). */
export function simulatorFor(sc: Scenario, o: RunOptions = {}, deviceId = sc.device?.id): Simulator {
  const chip = o.chip ?? (sc.device?.flash ? NorFlash.load(resolveFrom(sc.file, sc.device.flash)) : new NorFlash());
  const key = (v: string | undefined, option: string) =>
    v === undefined
      ? undefined
      : /^[0-9a-fA-F]{64}$/.test(v)
        ? fromHex(v)
        : simHost().publicKeyFile(option, resolveFrom(sc.file, v));
  return new Simulator({
    chip,
    seed: sc.seed,
    clockMs: sc.clockMs,
    deviceId,
    events: o.events,
    bundle: o.bundle,
    variant: o.variant ?? sc.variant,
    firmwareKey: key(sc.device?.firmwareKey, 'firmware-key') ?? o.firmwareKey,
    techKey: key(sc.device?.techKey, 'tech-key') ?? o.techKey,
    deviceSeedHex: o.deviceSeedHex,
    registryKey: key(sc.device?.registryKey, 'registry-key') ?? o.registryKey,
    operatorKey: key(sc.device?.operatorKey, 'operator-key') ?? o.operatorKey,
    registry: o.registry?.url,
    ledgerSectors: sc.device?.ledgerSectors,
  });
}

function resolveFrom(file: string, p: string): string {
  return simHost().files.resolve(file, p);
}

export async function runScenario(sc: Scenario, o: RunOptions = {}): Promise<RunReport> {
  const wall = performance.now();
  const first = o.sim ?? simulatorFor(sc, o, sc.devices?.[0] ?? sc.device?.id);
  if (o.sim && o.events) first.events = o.events;
  if (o.sim && sc.clockMs !== undefined) first.setClock(sc.clockMs);
  // A fleet scenario: one simulator a device, each with its own chip, all on the scenario's registry.
  const fleet = new Map<string, Simulator>();
  if (sc.devices) {
    fleet.set(sc.devices[0], first);
    for (const id of sc.devices.slice(1))
      fleet.set(
        id,
        simulatorFor(
          { ...sc, device: { ...sc.device, flash: undefined } },
          { ...o, chip: undefined, deviceSeedHex: undefined },
          id,
        ),
      );
  }
  const all = sc.devices ? [...fleet.values()] : [first];
  o.onDevices?.(sc.devices ? fleet : new Map([['', first]]));
  for (const [id, d] of sc.devices ? fleet : new Map([['', first]])) {
    if (sc.config || o.registry) d.configure({ ...sc.config, ...(id ? { deviceId: id } : {}) });
  }
  let sim = first;
  /** Flash images kept by `snapshot` steps, for `rollback`. */
  const snapshots = new Map<Simulator, Uint8Array>();
  const report: RunReport = {
    scenario: sc.name,
    file: sc.file,
    ok: true,
    steps: [],
    virtualMs: 0,
    wallMs: 0,
    scans: 0,
    payments: 0,
  };
  const start = sim.now;
  const lm = messages(o.lang ?? 'fr');
  const say = lm.step;
  /** Beeps count from the last action (scan, press, boot). */
  let mark = sim.beepLog.length;
  /** Receipts printed from this virtual time on answer expect-receipt: since the last scan or key. */
  let receiptsFrom = 0;
  for (const step of sc.steps) {
    if (await o.stopWhen?.()) {
      report.stopped = true;
      break;
    }
    let problem: string | undefined;
    sim = step.on ? fleet.get(step.on)! : first;
    await o.beforeStep?.(step);
    try {
      problem = await play(step);
    } catch (e) {
      problem = e instanceof Error ? e.message : String(e);
    }
    const r: StepReport = {
      line: step.line,
      text: describeOn(step, o.lang ?? 'fr'),
      ok: !problem,
      t: sim.now - start,
      problem,
    };
    report.steps.push(r);
    o.onStep?.(r);
    if (problem) {
      report.ok = false;
      report.display = drawText({ lines: sim.screen, rows: 4, columns: 20, led: sim.led }, sim.on ? '' : say.powerOff);
      break;
    }
  }
  report.virtualMs = first.now - start;
  report.wallMs = performance.now() - wall;
  for (const d of all) if (d !== o.sim) d.dispose();
  return report;

  async function play(s: Step): Promise<string | undefined> {
    const needOn = () => {
      if (!sim.on) throw new Error(say.deviceOff);
    };
    switch (s.kind) {
      case 'boot':
        // Without `on`, the whole fleet powers on.
        for (const d of s.on ? [sim] : all) await d.boot();
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
        if (sim.on) throw new Error(say.provisionOn);
        sim.provisionImage();
        return;
      case 'expect-image': {
        const b = sim.booted;
        if (!b) return say.noImage(sim.bootMode && lm.demo.mode(sim.bootMode));
        const slot = 'AB'[b.slot];
        if (s.slot && s.slot !== slot) return say.imageSlot(s.slot, slot);
        if (s.confirmed !== undefined && s.confirmed === sim.pendingConfirm) return say.imageConfirmed(s.confirmed);
        return;
      }
      case 'notice': {
        const text = s.text ?? new TextDecoder().decode(simHost().files.read(resolveFrom(sc.file, s.file!)));
        if (s.via === 'registry') {
          if (!o.registry) return say.needsRegistry;
          if (!o.registry.publishNotice) return say.registryControl;
          await o.registry.publishNotice(text);
          return;
        }
        needOn();
        if (s.lenient) {
          // The explorer's: its model judges what the device took; a cut armed earlier may strike the push.
          try {
            await sim.pushNotice(text);
          } catch (e) {
            if (sim.on) throw e;
          }
          return;
        }
        const r = await sim.pushNotice(text);
        if ((r.ok === true) === !!s.refused)
          return say.notice(
            !!s.refused,
            lm.notice.reasons[String(r.reason)] ?? String(r.reason ?? ''),
            String(r.detail ?? ''),
          );
        return;
      }
      case 'expect-notice': {
        const held = heldNoticeVersion(sim);
        return held === s.version ? undefined : say.noticeHeld(s.version, held);
      }
      case 'update':
        needOn();
        if (s.via === 'service')
          sim.updateOverService(s.image, { cutAfterFlashOps: s.afterFlashOps, resume: s.resume });
        else sim.update(s.image, s.afterFlashOps);
        return;
      case 'lose-sector':
        sim.damageLedger('lose-sector', s.index);
        return;
      case 'delay':
        // Without `on`, time passes for the whole fleet.
        for (const d of s.on ? [sim] : all) await d.run(s.ms);
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
          if (e instanceof ScannerOptionError) return say.scanner(lm.sim.detail(e.message));
          throw e;
        }
        const missed = sim.undelivered;
        const boots = sim.boots;
        mark = sim.beepLog.length;
        receiptsFrom = sim.now;
        let end = sim.transmit(tx);
        if (s.during) {
          // The step lasts until the key too, so the press belongs to this step whatever the scanner's speed.
          sim.pressAt(s.during.key, s.during.atMs);
          end = Math.max(end, sim.now + s.during.atMs);
        }
        await sim.run(end - sim.now);
        report.scans++;
        // A device that went off or restarted during the scan (a key paid, a cut armed) lost the rest of it.
        if (sim.undelivered > missed && sim.on && sim.boots === boots) return say.nowhere(s.via);
        return;
      }
      case 'press':
        needOn();
        mark = sim.beepLog.length;
        receiptsFrom = sim.now;
        await sim.press(s.key);
        return;
      case 'expect-display': {
        const test = () => {
          const lines = sim.screen;
          // Without a line: the screen as lines, and as one text (a wrapped phrase still matches).
          const cands = s.row
            ? [lines[s.row - 1] ?? '']
            : [
                lines.join('\n'),
                lines
                  .map((l) => l.trim())
                  .filter(Boolean)
                  .join(' '),
              ];
          return cands.some((l) => (s.contains !== undefined ? l.includes(s.contains) : s.matches!.test(l)));
        };
        if (await sim.runUntil(test, s.withinMs)) return;
        const what = s.contains !== undefined ? `"${s.contains}"` : `/${s.matches!.source}/`;
        return say.display(what, s.row ?? 0, s.withinMs);
      }
      case 'expect-beep': {
        const heard = () => sim.beepLog.slice(mark).map((b) => b.kind);
        if (await sim.runUntil(() => heard().includes(s.beep as never), s.withinMs)) return;
        return say.beep(s.beep, s.withinMs, heard().join(', '));
      }
      case 'expect-led':
        if (await sim.runUntil(() => sim.led === s.color, s.withinMs)) return;
        return say.led(say.ledColor(s.color), say.ledColor(sim.led));
      case 'expect-ledger': {
        let entries = sim.ledger();
        const test = () => {
          entries = sim.ledger();
          const countOk = s.count === undefined || entries.length === s.count;
          const c = s.contains;
          const hasOk =
            !c || entries.some((p) => p.emission === c.emission && p.block === c.block && p.number === c.number);
          return countOk && hasOk;
        };
        if (await sim.runUntil(test, s.withinMs)) {
          report.payments = entries.length;
          return;
        }
        const list = entries.map((p) => `${p.emission}/${p.block}/${p.number} ${p.prizeEur} €`).join('; ');
        const want = describe(s, o.lang ?? 'fr').slice('expect-ledger '.length);
        return say.ledger(want, entries.length, list);
      }
      case 'printer':
        if (!sim.printer) return say.noPrinter;
        sim.printer.state = s.state;
        return;
      case 'expect-receipt': {
        const p = sim.printer;
        if (!p) return say.noPrinter;
        const since = () => p.receipts.filter((r) => r.t >= receiptsFrom);
        const has = () => since().some((r) => r.text.some((l) => l.includes(s.contains!)));
        if (s.none) {
          if (since().length === 0) return;
          return say.receiptNone(since().length, since()[0].text.join(' / '));
        }
        if (await sim.runUntil(has, s.withinMs)) return;
        return say.receipt(
          s.contains!,
          s.withinMs,
          since()
            .map((r) => r.text.join(' / '))
            .join(' | '),
        );
      }
      case 'network': {
        if (!sim.network) return say.needsRegistry;
        const n = sim.network.state;
        sim.network.state = { up: s.up, latencyMs: s.latencyMs ?? n.latencyMs, loss: s.loss ?? n.loss };
        if (s.tamper === 'none') sim.network.mitm = null;
        if (s.tamper === 'chunks') sim.network.mitm = tamperChunks;
        return;
      }
      case 'campaign': {
        const f = o.registry?.campaign;
        if (!f) return say.needsRegistry;
        try {
          await f.call(
            o.registry,
            s.verb === 'create'
              ? {
                  verb: 'create',
                  name: s.name,
                  image: sim.updateImage(s.image!),
                  group: s.group,
                  // A fleet scenario's campaign is for its own devices (a shared registry knows others).
                  devices: s.group ? undefined : sc.devices,
                  phases: s.phases ?? [1, 10, 100],
                  maxFailures: s.maxFailures ?? 1,
                }
              : { verb: s.verb, name: s.name },
          );
        } catch (e) {
          // Lenient: a verb the campaign's state refuses is skipped (the registry's rule, not a copy of it).
          if (s.lenient && (e as { code?: unknown }).code === 'state') return;
          return say.campaign((e as Error).message);
        }
        return;
      }
      case 'expect-campaign': {
        const f = o.registry?.campaign;
        if (!f) return say.needsRegistry;
        const get = () => f.call(o.registry, { verb: 'status', name: s.name });
        let c = await get();
        const count = (st: string) => c.devices.filter((d) => d.state === st).length;
        const test = () =>
          (!s.state || c.state === s.state) &&
          (s.phase === undefined || c.phase === s.phase) &&
          (s.confirmed === undefined || count('confirmed') === s.confirmed) &&
          (s.failed === undefined || count('failed') === s.failed);
        // Devices download and report on their own time: run them all, asking every virtual second.
        for (let waited = 0; !test() && waited < s.withinMs; waited += 1000) {
          for (const d of all) if (d.on) await d.run(1000);
          c = await get();
        }
        if (test()) return;
        return say.campaign(
          say.campaignWant(
            describe(s, o.lang ?? 'fr').replace(/^expect-campaign [^:]*: /, ''),
            c.state,
            c.phase,
            count('confirmed'),
            count('failed'),
          ),
        );
      }
      case 'attack':
        if (!sim.network) return say.needsRegistry;
        sim.network.mitm = s.attack === 'off' ? null : attacker(s.attack);
        return;
      case 'snapshot':
        snapshots.set(sim, sim.chip.bytes.slice());
        return;
      case 'rollback':
      case 'clone': {
        const image = s.kind === 'rollback' ? snapshots.get(sim) : fleet.get(s.of)?.chip.bytes.slice();
        if (!image) return say.noSnapshot;
        if (sim.on) sim.powerCut();
        sim.chip.bytes.set(image);
        sim.chip.touched(0, image.length);
        // A clone's own images are of the device it was; its clock is another board's (1.5 s off).
        if (s.kind === 'clone') {
          snapshots.delete(sim);
          sim.setClock(fleet.get(s.of)!.clock + 1500);
        }
        await sim.boot();
        mark = sim.beepLog.length;
        return;
      }
      case 'registry': {
        const reg = o.registry;
        const f = s.up ? reg?.start : reg?.stop;
        if (!reg) return say.needsRegistry;
        if (!f) return say.registryControl;
        await f.call(reg);
        return;
      }
      case 'expect-registry': {
        const reg = o.registry;
        if (!reg) return say.needsRegistry;
        let st = await reg.state();
        const test = () => {
          const c = s.contains;
          return (
            (s.claims === undefined || st.holders.length === s.claims) &&
            (s.conflicts === undefined || st.conflicts === s.conflicts) &&
            (!c ||
              st.holders.some(
                (h) =>
                  h.emission === c.emission &&
                  h.block === c.block &&
                  h.number === c.number &&
                  (!c.device || h.device_id === c.device),
              ))
          );
        };
        // Devices push on their own time: run them, asking the registry every virtual second.
        for (let waited = 0; !test() && waited < s.withinMs; waited += 1000) {
          for (const d of all) await d.run(1000);
          st = await reg.state();
        }
        if (test()) return;
        const held = st.holders.map((h) => `${h.emission}/${h.block}/${h.number} ${h.device_id}`).join('; ');
        const want = describe(s, o.lang ?? 'fr').slice('expect-registry '.length);
        return say.registry(want, st.holders.length, held, st.conflicts);
      }
      case 'screenshot': {
        if (o.screenshot)
          return void (await o.screenshot(s.file, { lines: sim.screen, rows: 4, columns: 20, led: sim.led }));
        const files = simHost().files;
        // Inside the scenario's folder (or --screenshots DIR), through no symbolic link.
        const dir = o.screenshotDir ?? resolveFrom(sc.file, '.');
        const file = files.under(dir, s.file);
        try {
          files.writeInside(dir, s.file, simHost().png({ lines: sim.screen, rows: 4, columns: 20, led: sim.led }));
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          // Our own refusals say what they refused; a system error in the user's words.
          if (code === 'outside' || code === 'symlink')
            return say.screenshot(file, lm.sim.detail((e as Error).message));
          return say.screenshot(file, systemErrorText(e, messages(o.lang ?? 'fr')));
        }
        return;
      }
    }
  }
}

/** A broken proxy on the device's line: one hex digit of every image chunk flipped (the ROM's checks catch it). */
const tamperChunks = {
  rewrite(path: string, _request: string, a: { status: number; body: string }) {
    if (path !== '/v1/chunk' || a.status !== 200 || a.body.length < 401) return a;
    return { ...a, body: a.body.slice(0, 400) + (a.body[400] === '0' ? '1' : '0') + a.body.slice(401) };
  },
};

/** `expect-notice`: the highest version among the notice records on the device's flash whose form holds, whoever signed them. */
function heldNoticeVersion(sim: Simulator): number {
  const n = loadNotice(partitionFlash(sim.chip, 'notice', undefined, true), new Uint8Array(32), () => true);
  return n ? n.signed.notice.version : 0;
}
