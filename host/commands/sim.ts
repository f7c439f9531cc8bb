// saphir sim: the hardware simulator.
//   saphir sim --scenario FILE…        plays scenarios (exit 1 if one fails)
//   saphir sim                         interactive: type or paste codes, generate tickets, press keys
//   saphir sim --bridge-hid VID:PID|PATH [--hid-mode keyboard|pos]   a real HID scanner feeds the device
//   saphir sim --bridge-serial PATH [--baud N]                      a real serial scanner feeds the device
//   saphir sim --pty [PATH]            the device's service port on a pseudo-terminal (hw-sim/pty.ts)
import { readFileSync, existsSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Failure, intOf, UsageError, parseCommand, reasonOf } from '../args.ts';
import { KeyFileError } from '../../tools/key-files.ts';
import type { Lang } from '../../src/i18n.ts';
import { formatEur } from '../../src/i18n.ts';
import type { Key } from '../../src/hal.ts';
import {
  parseScenario,
  ScenarioError,
  parseDuration,
  needsRegistry,
  type Scenario,
  MAX_SCENARIO_BYTES,
} from '../../hw-sim/scenario.ts';
import { runScenario, simulatorFor, type ScenarioRegistry } from '../../hw-sim/runner.ts';
import { scenarioRegistry, startEmbeddedRegistry } from '../registry/embedded.ts';
import { Simulator, bootChip, ensureBundle, type SimConfig } from '../../hw-sim/sim.ts';
import { SLOT_SIZE, checkImage, provision, slotSummary, trustedOptions } from '../../rom/bootloader.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { transmit, SCANNER_KINDS, type ScannerKind } from '../../hw-sim/scanners/index.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { drawPng } from '../../hw-sim/png.ts';
import { T, displayFrame, reportText, scenarioErrorText, stepLine } from '../../hw-sim/present.ts';
import { messages } from '../../src/messages/index.ts';
import { isPrizeAmount } from '../../src/game/prize-table.ts';
import { buildNotice } from '../build-notice.ts';
import { writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { deviceSeedArg, publicKeyArg } from '../key-args.ts';
import { impliesProduction, isDevDeviceKey, productionKeyProblem } from '../../rom/provision.ts';
import { CHIP_SIZE } from '../../rom/layout.ts';
import '../../hw-sim/node-host.ts';
import { XS_INSTALL, xsnapWorker } from '../../hw-sim/xs-host.ts';

const HELP = (lang: Lang) => messages(lang).help.sim;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    scenario: { type: 'string', multiple: true },
    quiet: { type: 'boolean' },
    screenshots: { type: 'string' },
    variant: { type: 'string' },
    flash: { type: 'string' },
    provision: { type: 'string' },
    'bridge-hid': { type: 'string' },
    'hid-mode': { type: 'string' },
    'bridge-serial': { type: 'string' },
    baud: { type: 'string' },
    pty: { type: 'boolean' },
    'firmware-key': { type: 'string' },
    'tech-key': { type: 'string' },
    'device-key': { type: 'string' },
    'device-id': { type: 'string' },
    'registry-pub': { type: 'string' },
    registry: { type: 'string' },
    web: { type: 'boolean' },
    port: { type: 'string' },
    host: { type: 'string' },
    open: { type: 'boolean' },
    explore: { type: 'string' },
    'quickjs-every': { type: 'string' },
    ed25519: { type: 'string' },
    seed: { type: 'string' },
    index: { type: 'string' },
    jobs: { type: 'string' },
    json: { type: 'boolean' },
    out: { type: 'string' },
    faults: { type: 'string' },
    fleet: { type: 'boolean' },
    devices: { type: 'string' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  if (values.flash !== undefined) flashFileArg(values.flash);
  const keys = {
    firmwareKey:
      values['firmware-key'] === undefined ? undefined : publicKeyArg('--firmware-key', values['firmware-key']),
    techKey: values['tech-key'] === undefined ? undefined : publicKeyArg('--tech-key', values['tech-key']),
    deviceSeedHex: values['device-key'] === undefined ? undefined : deviceSeedArg(values['device-key']),
    registryKey:
      values['registry-pub'] === undefined ? undefined : publicKeyArg('--registry-pub', values['registry-pub']),
  };
  const modes = (['explore', 'scenario', 'web', 'pty'] as const).filter(
    (k) => values[k] !== undefined && values[k] !== false,
  );
  if (modes.length > 1) throw new UsageError((m) => m.sim.oneMode(modes.map((k) => `--${k}`).join(', ')));
  // Said here in the user's words; provisionTrust refuses it too.
  if (impliesProduction(keys.firmwareKey) && productionKeyProblem(keys.firmwareKey, keys.techKey) === 'tech')
    throw new UsageError((m) => m.sim.productionTechKey);
  // The explorer runs its own devices (and --json must stay JSON).
  if (values.explore !== undefined) {
    const { exploreCommand } = await import('./sim-explore.ts');
    return exploreCommand({ ...values, explore: values.explore, lang });
  }
  const deviceId = deviceIdOption(values['device-id'], values.registry);
  const variant = values.variant ?? 'quickjs';
  if (variant !== 'quickjs' && variant !== 'quickjs-ng' && variant !== 'xs') throw new UsageError((m) => m.sim.variant);
  if (variant === 'xs') needXs();
  // First line: which keys the simulated device trusts (the chip of --flash may already hold some).
  process.stdout.write(
    trustLine(new Simulator({ chip: values.flash ? NorFlash.load(values.flash) : new NorFlash(), ...keys }), lang) +
      '\n',
  );
  if (values.scenario) {
    // Scenario files given after --scenario, as further options or as positionals.
    return scenarios([...values.scenario, ...positionals], {
      lang,
      quiet: !!values.quiet,
      screenshots: values.screenshots,
      // unset: each scenario's own `variant:` (default quickjs)
      variant: values.variant === undefined ? undefined : variant,
      flash: values.flash,
      ...keys,
      registry: registryOption(values.registry),
    });
  }
  if (values.web) {
    const port = values.port === undefined ? 0 : intOf(values.port, '--port', 0, 65535);
    if (deviceId) process.stdout.write(messages(lang).sim.deviceIdIs(deviceId) + '\n');
    return web({
      lang,
      port,
      host: values.host,
      open: !!values.open,
      registry: registryOption(values.registry),
      deviceId,
    });
  }
  if (values.pty) {
    const baud = values.baud === undefined ? undefined : intOf(values.baud, '--baud', 300, 4_000_000);
    return pty(positionals[0], {
      lang,
      flash: values.flash,
      provision: values.provision,
      variant,
      baud,
      deviceId,
      ...keys,
    });
  }
  if (positionals.length > 0) throw new UsageError((m) => m.sim.unexpected(positionals[0]));
  if (deviceId) process.stdout.write(messages(lang).sim.deviceIdIs(deviceId) + '\n');
  return interactive({
    registry: registryOption(values.registry),
    deviceId,
    lang,
    flash: values.flash,
    provision: values.provision,
    variant,
    bridgeHid: values['bridge-hid'],
    hidMode: values['hid-mode'],
    bridgeSerial: values['bridge-serial'],
    baud: values.baud === undefined ? undefined : intOf(values.baud, '--baud', 300, 4_000_000),
    ...keys,
  });
}

/** Stops a run that needs the XS engine where it is not built (exit 1: the reason and the install command). */
export function needXs(): void {
  const w = xsnapWorker();
  if ('missing' in w) throw new Failure((m) => m.sim.xsMissing(w.reason, XS_INSTALL));
}

interface KeyOptions {
  /** The device's id (`--device-id`); default the simulator's. */
  deviceId?: string;
  firmwareKey?: Uint8Array;
  techKey?: Uint8Array;
  /** The device's registry seed, provisioned with the other keys (`--device-key FILE`). */
  deviceSeedHex?: string;
  /** The registry's public key, which signs its answers (`--registry-pub HEX|FILE`). */
  registryKey?: Uint8Array;
}

/** What the simulated device trusts, in one line; provisions `sim`'s chip first when its options ask. */
export function trustLine(sim: Simulator, lang: Lang): string {
  let t;
  try {
    t = sim.trust();
  } catch (e) {
    return messages(lang).sim.deviceKeysProblem((e as Error).message);
  }
  const h = (k: Uint8Array) => createHash('sha256').update(k).digest('hex').slice(0, 16) + '…';
  return trustKeysLine(t, lang, h) + deviceKeyLine(t, lang);
}

/** The device's registry key: the published development one (said loudly), or its own, to enrol. */
function deviceKeyLine(t: ReturnType<Simulator['trust']>, lang: Lang): string {
  const m = messages(lang).sim;
  if (isDevDeviceKey(t.deviceKey.publicKey)) return m.devDeviceKey;
  return m.ownDeviceKey(Buffer.from(t.deviceKey.publicKey).toString('hex'));
}

function trustKeysLine(t: ReturnType<Simulator['trust']>, lang: Lang, h: (k: Uint8Array) => string): string {
  const m = messages(lang).sim;
  if (!t.provisioned) return m.devKeys;
  return m.provisioned(t.production, h(t.firmwareKey), h(t.techKey));
}

// --- the fleet registry ---------------------------------------------------------------------------

/**
 * The simulated device's id: `--device-id`, else with a registry one of this run (`SIM-` and 4 random
 * hex digits), so two simulators on one registry are two devices; else the simulator's default.
 */
function deviceIdOption(v: string | undefined, registry: string | undefined): string | undefined {
  if (v !== undefined) {
    if (!/^[\x21-\x7e]{1,16}$/.test(v)) throw new UsageError((m) => m.sim.deviceId(v));
    return v;
  }
  if (registry === undefined) return undefined;
  return `SIM-${Math.floor(Math.random() * 0x10000)
    .toString(16)
    .toUpperCase()
    .padStart(4, '0')}`;
}

function registryOption(v: string | undefined): string | undefined {
  if (v === undefined || v === 'embedded') return v;
  if (!/^https?:\/\/[\x21-\x7e]+$/.test(v)) throw new UsageError((m) => m.sim.registryUrl);
  return v.replace(/\/$/, '');
}

/**
 * The registry a run uses: the URL given, or an embedded one (started here, closed by `close`; `fresh`
 * empties it and starts it again if a scenario left it down, so that each scenario meets a new one).
 */
async function openRegistry(
  v: string,
  lang: Lang,
): Promise<{ reg: ScenarioRegistry; close(): Promise<void>; fresh(): Promise<void> }> {
  if (v !== 'embedded') {
    const no = messages(lang).sim.registryByUrl;
    return {
      reg: { url: v, state: () => Promise.reject(new Error(no)) },
      close: async () => {},
      fresh: async () => {},
    };
  }
  const e = await startEmbeddedRegistry();
  process.stderr.write(messages(lang).sim.embeddedRegistry(e.url) + '\n');
  return {
    reg: scenarioRegistry(e),
    close: () => e.close(),
    fresh: async () => {
      await e.start();
      await e.reset();
    },
  };
}

// --- scenarios ------------------------------------------------------------------------------------

/** --flash FILE: absent (a fresh chip is made), or a saved chip of the right size. */
function flashFileArg(file: string): void {
  const st = statSync(file, { throwIfNoEntry: false });
  if (st && (!st.isFile() || st.size !== CHIP_SIZE)) throw new UsageError((m) => m.sim.flashFile(file, CHIP_SIZE));
}

async function scenarios(
  files: string[],
  o: {
    lang: Lang;
    quiet: boolean;
    screenshots?: string;
    variant?: 'quickjs' | 'quickjs-ng' | 'xs';
    flash?: string;
    registry?: string;
  } & KeyOptions,
): Promise<number> {
  const t = T[o.lang];
  const out = (s: string) => process.stdout.write(s + '\n');
  // Every file is checked before any runs.
  const parsed: Scenario[] = [];
  let bad = false;
  for (const f of files) {
    if (!existsSync(f) || statSync(f).isDirectory()) {
      process.stderr.write(messages(o.lang).sim.noFile(f) + '\n');
      bad = true;
      continue;
    }
    // Read whole and parsed in memory: a huge file would take gigabytes (a 60 MB one took 3.7 GB).
    if (statSync(f).size > MAX_SCENARIO_BYTES) {
      process.stderr.write(messages(o.lang).sim.scenarioTooLarge(f, MAX_SCENARIO_BYTES) + '\n');
      bad = true;
      continue;
    }
    try {
      parsed.push(parseScenario(readFileSync(f, 'utf8'), f));
    } catch (e) {
      if (!(e instanceof ScenarioError)) throw e;
      process.stderr.write(`${t.invalid}\n${scenarioErrorText(e, o.lang)}\n`);
      bad = true;
    }
  }
  if (bad) return 2;
  if (parsed.some((sc) => (o.variant ?? sc.variant) === 'xs')) needXs();
  const bundle = ensureBundle((why) => process.stderr.write(buildNotice(o.lang, why) + '\n'));
  const want = o.registry ?? (parsed.some(needsRegistry) ? 'embedded' : undefined);
  const registry = want ? await openRegistry(want, o.lang) : undefined;
  try {
    return await playAll();
  } catch (e) {
    // A scenario's key file that cannot serve is the same usage error as the option's.
    throw e instanceof KeyFileError ? new UsageError(e.say) : e;
  } finally {
    await registry?.close();
  }

  async function playAll(): Promise<number> {
    let passed = 0;
    let used = false;
    for (const sc of parsed) {
      out(`${sc.name}  (${sc.file})`);
      // Each scenario on its own: an embedded registry emptied between them, and none for a scenario
      // that needs none (unless --registry named one for all).
      const reg = o.registry || needsRegistry(sc) ? registry : undefined;
      if (reg && used) await reg.fresh();
      used ||= reg !== undefined;
      // With --flash, each scenario starts from the saved chip and leaves its state there.
      const chip = o.flash ? NorFlash.load(o.flash) : undefined;
      const sim = simulatorFor(
        sc,
        {
          bundle,
          chip,
          variant: o.variant,
          firmwareKey: o.firmwareKey,
          techKey: o.techKey,
          deviceSeedHex: o.deviceSeedHex,
          registryKey: o.registryKey,
          registry: reg?.reg,
        },
        sc.devices?.[0] ?? sc.device?.id,
      );
      const r = await runScenario(sc, {
        sim,
        bundle,
        registry: reg?.reg,
        lang: o.lang,
        screenshotDir: o.screenshots,
        onStep: (s) => {
          if (!o.quiet || !s.ok) out(stepLine(s, o.lang));
        },
      });
      sim.dispose();
      if (o.flash && chip) chip.save(o.flash);
      out(reportText(r, o.lang));
      if (r.ok) passed++;
    }
    out(t.total(passed, parsed.length));
    return passed === parsed.length ? 0 : 1;
  }
}

// --- interactive and bridges ----------------------------------------------------------------------

/** The interactive simulator's words; `help` lists the scanner kinds. */
const words = (lang: Lang) => ({ ...messages(lang).sim, help: messages(lang).sim.help(SCANNER_KINDS.join(', ')) });
const I = { fr: words('fr'), en: words('en') };

interface InteractiveOptions extends KeyOptions {
  registry?: string;
  lang: Lang;
  flash?: string;
  provision?: string;
  variant: 'quickjs' | 'quickjs-ng' | 'xs';
  bridgeHid?: string;
  hidMode?: string;
  bridgeSerial?: string;
  baud?: number;
}

/** A simulator on wall-clock pace: virtual time follows real time while a person watches. */
async function liveSimulator(
  o: {
    lang: Lang;
    flash?: string;
    /** A signed image programmed into slot A of a blank chip before the first boot (factory programming). */
    provision?: string;
    variant: 'quickjs' | 'quickjs-ng' | 'xs';
    config?: SimConfig;
    registry?: string;
  } & KeyOptions,
) {
  const chip = o.flash ? NorFlash.load(o.flash) : new NorFlash();
  const registry = o.registry ? await openRegistry(o.registry, o.lang) : undefined;
  let last = '';
  let drawPending = false;
  const sim = new Simulator({
    chip,
    variant: o.variant,
    seed: Date.now(),
    clockMs: Date.now(),
    bundle: ensureBundle((why) => process.stderr.write(buildNotice(o.lang, why) + '\n')),
    firmwareKey: o.firmwareKey,
    techKey: o.techKey,
    deviceSeedHex: o.deviceSeedHex,
    deviceId: o.deviceId,
    registryKey: o.registryKey,
    registry: registry?.reg.url,
    events: {
      // Drawn once the firmware's callback is over, so the frame shows the LED it set after the text.
      display: () => {
        if (drawPending) return;
        drawPending = true;
        queueMicrotask(() => {
          drawPending = false;
          const frame = displayFrame(sim);
          const body = frame.split('\n').slice(1).join('\n');
          if (body !== last) process.stdout.write(frame + '\n');
          last = body;
        });
      },
    },
  });
  if (o.config) sim.configure(o.config);
  else if (!o.flash || registry) sim.configure({});
  if (o.provision) factoryProgram(sim, chip, o.provision, o.lang);
  await sim.boot();
  // One queue: ticks and commands never run at the same time.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <R>(f: () => Promise<R> | R): Promise<R> => {
    const p = queue.then(f);
    queue = p.catch(() => undefined);
    return p;
  };
  let wall = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    const dt = now - wall;
    wall = now;
    void serial(() => sim.run(dt));
  }, 50);
  const save = () => {
    if (o.flash) chip.save(o.flash);
  };
  const close = async () => {
    clearInterval(tick);
    await queue;
    sim.dispose();
    save();
    await registry?.close();
  };
  return { sim, serial, close, save };
}

/**
 * `--provision IMAGE`: the factory writes a signed image into slot A of a blank chip (after the keys of
 * --firmware-key/--tech-key), checked as the bootloader will check it. A chip of --flash already holding
 * this very image is left as it is; one holding any other image is refused (nothing written).
 */
function factoryProgram(sim: Simulator, chip: NorFlash, file: string, lang: Lang): void {
  const m = messages(lang).sim;
  let bytes: Uint8Array;
  try {
    if ((statSync(file).size ?? 0) > SLOT_SIZE) throw new Error(m.provisionTooLarge(SLOT_SIZE));
    bytes = new Uint8Array(readFileSync(file));
  } catch (e) {
    throw new Error(m.provisionRefused(file, reasonOf(e, messages(lang))));
  }
  sim.trust(); // the keys first: the image is judged by them
  const boot = bootChip(chip);
  const o = trustedOptions(boot);
  if ('error' in o) throw new Error(m.provisionRefused(file, o.error));
  const c = checkImage(bytes, 0, o);
  if (!c.ok) throw new Error(m.provisionRefused(file, c.detail));
  const slots = [slotSummary(boot, 0, o), slotSummary(boot, 1, o)];
  if (slots[0].hash === c.hashHex) return; // programmed by an earlier run on this --flash chip
  if (slots.some((s) => s.status !== 'empty')) throw new Error(m.provisionRefused(file, m.provisionNotBlank));
  provision(boot, bytes, c.image.header.securityCounter);
}

async function interactive(o: InteractiveOptions): Promise<number> {
  const m = I[o.lang];
  const live = await liveSimulator(o);
  const { sim, serial } = live;
  let via: ScannerKind = 'hid-pos';
  let nextNumber = 1;
  const say = (s: string) => process.stdout.write(s + '\n');

  const bridges: (() => Promise<void> | void)[] = [];
  try {
    if (o.bridgeHid) bridges.push(await bridgeHid(sim, serial, o.bridgeHid, o.hidMode, o.lang, say));
    if (o.bridgeSerial) bridges.push(await bridgeSerial(sim, serial, o.bridgeSerial, o.baud, o.lang, say));
  } catch (e) {
    for (const b of bridges) await b();
    await live.close();
    throw e;
  }

  say(m.ready(via));
  const scan = (code: string) => {
    if (!sim.on) return say(m.off);
    sim.transmit(transmit(via, code, {}, sim.rng));
  };
  const handle = async (raw: string): Promise<boolean> => {
    const line = raw.trim();
    if (!line) return true;
    const [word, ...rest] = line.split(/\s+/);
    const w = word.toLowerCase();
    const arg = rest.join(' ');
    if (/^SPH\d?:/.test(line) || line.length > 40) {
      scan(line);
      return true;
    }
    switch (w) {
      case 'aide':
      case 'help':
      case '?':
        say(m.help);
        return true;
      case 'quitter':
      case 'quit':
      case 'exit':
        return false;
      case 'ticket':
      case 'faux':
      case 'forged': {
        const prize = Number(arg || '0');
        if (!(prize === 0 || isPrizeAmount(prize))) {
          say(m.badPrize);
          return true;
        }
        const t = {
          emission: 1,
          block: 1,
          number: nextNumber++,
          prize,
          key: w === 'ticket' ? ('test' as const) : ('other' as const),
        };
        say(`→ ${t.emission}/${t.block}/${t.number} ${prize ? formatEur(prize, o.lang) : '0'} via ${via}`);
        scan(ticketCode(t));
        return true;
      }
      case 'via':
        if ((SCANNER_KINDS as readonly string[]).includes(arg)) via = arg as ScannerKind;
        say(m.via(`${via} (${SCANNER_KINDS.join(', ')})`));
        return true;
      case 'ok':
      case 'c':
        if (!sim.on) say(m.off);
        else await sim.press(w === 'ok' ? 'OK' : 'C');
        return true;
      case 'attendre':
      case 'wait': {
        const ms = parseDuration(arg || '1s');
        if (ms !== null) await sim.run(ms);
        return true;
      }
      case 'reboot':
        await sim.reboot();
        return true;
      case 'coupure':
      case 'cut':
        sim.powerCut();
        live.save();
        return true;
      case 'boot':
        if (!sim.on) await sim.boot();
        return true;
      case 'registre':
      case 'ledger': {
        const entries = sim.ledger();
        say(m.ledger(entries.length));
        for (const p of entries)
          say(
            `  ${p.emission}/${p.block}/${p.number}  ${formatEur(p.prizeEur, o.lang)}  ${new Date(p.paidAtMs).toISOString()}  ${p.deviceId}`,
          );
        return true;
      }
      case 'réseau':
      case 'reseau':
      case 'network': {
        if (!sim.network) {
          say(m.noNetwork);
          return true;
        }
        const up = /^(up|rétabli|retabli|on)$/i.test(arg);
        sim.network.state = { ...sim.network.state, up };
        say(m.network(up));
        return true;
      }
      case 'capture':
      case 'shot': {
        const file = arg || 'saphir-display.png';
        writeFileSync(file, drawPng({ lines: sim.screen, rows: 4, columns: 20, led: sim.led }));
        say(m.saved(file));
        return true;
      }
    }
    if (/^[0-9]$/.test(w)) {
      if (!sim.on) say(m.off);
      else await sim.press(w as Key);
      return true;
    }
    // Anything else is scanned as it is: a garbage scan is a test too.
    if (line.length > 8) {
      scan(line);
      return true;
    }
    say(m.unknown(line));
    return true;
  };

  const rl = createInterface({ input: process.stdin, terminal: false });
  let stop = false;
  // Ctrl-C: end like 'quit' (the flash file is saved on the way out).
  process.once('SIGINT', () => {
    stop = true;
    rl.close();
  });
  try {
    for await (const line of rl) {
      // Non-interactive input (a pipe) runs at once: let virtual time catch up before each command.
      const go = await serial(async () => {
        if (!process.stdin.isTTY) await sim.run(1000);
        try {
          return await handle(line);
        } catch (e) {
          // A command that fails (capture to a folder…) is said; the session and the device go on.
          say(m.commandFailed(line.trim().split(/\s+/)[0], reasonOf(e, messages(o.lang))));
          return true;
        }
      });
      live.save();
      if (!go) {
        stop = true;
        break;
      }
    }
    if (!stop && bridges.length > 0) await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    if (!process.stdin.isTTY) await serial(() => sim.run(1000));
  } finally {
    // Whatever ends the loop, the device's clock and the bridges stop, and the flash file is saved.
    process.removeAllListeners('SIGINT');
    rl.close();
    for (const b of bridges) await b();
    await live.close();
  }
  say(m.bye);
  return 0;
}

type Serial = <R>(f: () => Promise<R> | R) => Promise<R>;

/** Raw reports of a real HID scanner go to the simulated device's HID input, decoded by the firmware. */
async function bridgeHid(
  sim: Simulator,
  serial: Serial,
  spec: string,
  modeOpt: string | undefined,
  lang: Lang,
  say: (s: string) => void,
) {
  const mode = modeOpt ?? 'pos';
  if (mode !== 'pos' && mode !== 'keyboard') throw new UsageError((m) => m.sim.hidMode);
  const { openHidDevice, HidError } = await import('../hid.ts');
  let dev;
  try {
    const opened = await openHidDevice(spec, mode);
    dev = opened.dev;
    say(I[lang].bridged(`${opened.info.product ?? spec} (${mode})`));
  } catch (e) {
    if (e instanceof HidError) throw new Error(e.text(lang));
    throw e;
  }
  const input = mode === 'pos' ? 'hid-pos' : 'hid-keyboard';
  dev.on('data', (b: Buffer) => void serial(() => sim.inject(input, new Uint8Array(b))));
  dev.on('error', (err: Error) => say(`HID: ${err.message}`));
  return () => dev.close();
}

/** Raw bytes of a real serial scanner go to the simulated device's UART; its ACK/NAK go back. */
async function bridgeSerial(
  sim: Simulator,
  serial: Serial,
  path: string,
  baud: number | undefined,
  lang: Lang,
  say: (s: string) => void,
) {
  const { openPort, closePort } = await import('../serial-link.ts');
  const { SerialOpenError } = await import('../serial.ts');
  const port = await openPort(path, baud ?? 9600).catch((err: Error) => {
    throw new Error(new SerialOpenError(path, err).text(lang));
  });
  say(I[lang].bridged(`${path} @ ${baud ?? 9600}`));
  let sent = 0;
  port.on(
    'data',
    (b: Buffer) =>
      void serial(() => {
        sim.inject('serial', new Uint8Array(b));
        // What the firmware answered (ACK/NAK) goes back on the line.
        const out = sim.periph?.serialOut ?? [];
        for (; sent < out.length; sent++) port.write(Buffer.from(out[sent]));
      }),
  );
  port.on('error', (err: Error) => say(`serial: ${err.message}`));
  return () => closePort(port);
}

// --- service port on a pty ------------------------------------------------------------------------

async function pty(
  link: string | undefined,
  o: {
    lang: Lang;
    flash?: string;
    provision?: string;
    variant: 'quickjs' | 'quickjs-ng' | 'xs';
    baud?: number;
  } & KeyOptions,
): Promise<number> {
  const { exposeServicePort, freeForLink, pathTaken, badPath, unsafeLinkChar, PtyError } =
    await import('../../hw-sim/pty.ts');
  const m = messages(o.lang).sim;
  const fail = (why: string) => {
    process.stderr.write(`saphir sim: ${why}\n`);
    return 1;
  };
  const ptyText = (e: InstanceType<typeof PtyError>) =>
    e.code === 'path-taken'
      ? m.noPort(m.pathTaken(e.detail))
      : e.code === 'bad-path'
        ? m.noPort(m.badPath(e.detail, unsafeLinkChar(e.detail) ?? ''))
        : e.code === 'no-socat'
          ? m.noSocat
          : m.noPort(m.socatFailed(e.detail));
  // Checked before the device starts: a path socat could misread is refused, one that is not ours never replaced.
  if (link !== undefined && unsafeLinkChar(link) !== null) return fail(ptyText(badPath(link)));
  if (link !== undefined && !freeForLink(link)) return fail(ptyText(pathTaken(link)));
  const live = await liveSimulator(o);
  const { sim, serial } = live;
  let down: string | null = null;
  let wake = () => {};
  let port;
  try {
    port = await exposeServicePort(
      sim.serviceHost({
        reboot: () => void serial(() => sim.reboot()),
        // A power cut the service port simulates (during FINISH) restarts the device as a real one would.
        powerLost: () => {
          sim.powerOff('power cut');
          void serial(() => sim.boot());
        },
      }),
      {
        link,
        baud: o.baud,
        onDown: (why) => {
          down = why;
          wake();
        },
      },
    );
  } catch (e) {
    await live.close();
    if (e instanceof PtyError) return fail(ptyText(e));
    throw e;
  }
  process.stdout.write(messages(o.lang).sim.servicePort(port.path) + '\n');
  let stopCommands = () => {};
  await new Promise<void>((resolve) => {
    wake = resolve;
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
    process.once('SIGHUP', () => resolve());
    stopCommands = ptyCommands(live, port.port, o.lang, resolve);
  });
  // Ctrl-C, a signal or socat's end: stdin is read no more, so that the process ends.
  stopCommands();
  await port.close();
  await live.close();
  return down === null ? 0 : fail(m.noPort(m.socatEnded(down)));
}

/**
 * `saphir sim --pty`'s command line on stdin (a technician, a test or a script): `coupure`/`cut` cuts
 * the power (mid-transfer too: the update journal keeps what was programmed), `boot` powers on again,
 * `reboot`, `registre`/`ledger`, `quitter`/`quit` (calls `done`). The end of stdin leaves the port up
 * until a signal, as before.
 */
function ptyCommands(
  live: Awaited<ReturnType<typeof liveSimulator>>,
  port: import('../../rom/service.ts').ServicePort,
  lang: Lang,
  done: () => void,
): () => void {
  const { sim, serial } = live;
  const m = messages(lang).sim;
  const say = (s: string) => process.stdout.write(s + '\n');
  const rl = createInterface({ input: process.stdin, terminal: false });
  rl.on(
    'line',
    (raw) =>
      void serial(async () => {
        const w = raw.trim().toLowerCase();
        if (!w) return;
        switch (w) {
          case 'coupure':
          case 'cut':
            port.powerOff();
            sim.powerCut();
            live.save();
            say(m.powerCut);
            return;
          case 'boot':
            if (!sim.on) await sim.boot();
            port.powerOn();
            say(m.poweredOn(sim.bootMode));
            return;
          case 'reboot':
            port.powerOff();
            await sim.reboot();
            port.powerOn();
            say(m.restarted(sim.bootMode));
            return;
          case 'registre':
          case 'ledger': {
            const entries = sim.ledger();
            say(m.payments(entries.length));
            for (const p of entries)
              say(
                `  ${p.emission}/${p.block}/${p.number}  ${formatEur(p.prizeEur, lang)}  ${new Date(p.paidAtMs).toISOString()}  ${p.deviceId}`,
              );
            return;
          }
          case 'quitter':
          case 'quit':
            rl.close();
            done();
            return;
          default:
            say(m.ptyUnknown(w));
        }
      }).catch((e: Error) => say(I[lang].commandFailed(raw.trim(), e.message))),
  );
  return () => rl.close();
}

// --- web ------------------------------------------------------------------------------------------

async function web(o: {
  lang: Lang;
  port: number;
  host?: string;
  open: boolean;
  registry?: string;
  deviceId?: string;
}): Promise<number> {
  const { startWebServer } = await import('../../hw-sim/web/server.ts');
  const registry = o.registry ? await openRegistry(o.registry, o.lang) : undefined;
  const w = await startWebServer({ port: o.port, host: o.host, registry: registry?.reg.url, deviceId: o.deviceId });
  const m = messages(o.lang).sim;
  process.stdout.write(m.web(w.url) + '\n');
  if (o.open) {
    const { spawn } = await import('node:child_process');
    const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
    const child = spawn(cmd, [w.url], { stdio: 'ignore', detached: true });
    child.on('error', () => process.stderr.write(m.noBrowser(cmd, w.url) + '\n'));
    child.unref();
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await w.close();
  await registry?.close();
  return 0;
}
