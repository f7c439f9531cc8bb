// saphir sim: the hardware simulator.
//   saphir sim --scenario FILE…        plays scenarios (exit 1 if one fails)
//   saphir sim                         interactive: type or paste codes, generate tickets, press keys
//   saphir sim --bridge-hid VID:PID|PATH [--hid-mode keyboard|pos]   a real HID scanner feeds the device
//   saphir sim --bridge-serial PATH [--baud N]                      a real serial scanner feeds the device
//   saphir sim --pty [PATH]            the device's service port on a pseudo-terminal (hw-sim/pty.ts)
import { readFileSync, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { intOf, UsageError, parseCommand } from '../args.ts';
import type { Lang } from '../../i18n.ts';
import { formatEur } from '../../i18n.ts';
import type { Key } from '../../hal.ts';
import { parseScenario, ScenarioError, parseDuration } from '../../../hw-sim/scenario.ts';
import { runScenario, simulatorFor } from '../../../hw-sim/runner.ts';
import { Simulator, ensureBundle, bootChip, type SimConfig } from '../../../hw-sim/sim.ts';
import { NorFlash } from '../../../hw-sim/nor-flash.ts';
import { transmit, SCANNER_KINDS, type ScannerKind } from '../../../hw-sim/scanners/index.ts';
import { ticketCode } from '../../../hw-sim/tickets.ts';
import { drawPng } from '../../../hw-sim/render.ts';
import { T, displayFrame, reportText, stepLine } from '../../../hw-sim/present.ts';
import { isPrizeAmount } from '../../game/prize-table.ts';
import { writeFileSync } from 'node:fs';

const HELP = `usage: saphir sim [options]
  --scenario FILE…        play scenario files (hw-sim/scenarios/*.yaml); exit 1 if any fails
  --quiet                 with --scenario: print failures and the summary only
  --screenshots DIR       where scenario screenshots go (default: beside each scenario)
  --variant quickjs|quickjs-ng   the engine (default quickjs)
  --flash FILE            keep the simulated NOR flash in FILE between runs (scenarios too)
  --bridge-hid VID:PID|PATH [--hid-mode keyboard|pos]   a real HID scanner feeds the simulated device
  --bridge-serial PATH [--baud N]                      a real serial scanner feeds the simulated device
  --pty [PATH] [--baud N] expose the device's service port as a pseudo-terminal (for saphir flash)
  --explore N [--seed S] [--index I] [--jobs J] [--json] [--out DIR] [--faults ledger-damage,clock-back|all]
                          the fault explorer: N random schedules checked by a model (docs/explorer.md); exit 1 on a violation
  --lang fr|en            language of this tool's messages (default fr)
Without --scenario: interactive. Type 'aide' / 'help' for the commands.`;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    scenario: { type: 'string', multiple: true },
    quiet: { type: 'boolean' },
    screenshots: { type: 'string' },
    variant: { type: 'string' },
    flash: { type: 'string' },
    'bridge-hid': { type: 'string' },
    'hid-mode': { type: 'string' },
    'bridge-serial': { type: 'string' },
    baud: { type: 'string' },
    pty: { type: 'boolean' },
    explore: { type: 'string' },
    seed: { type: 'string' },
    index: { type: 'string' },
    jobs: { type: 'string' },
    json: { type: 'boolean' },
    out: { type: 'string' },
    faults: { type: 'string' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  const variant = values.variant ?? 'quickjs';
  if (variant !== 'quickjs' && variant !== 'quickjs-ng') throw new UsageError('--variant must be quickjs or quickjs-ng');
  if (values.explore !== undefined) {
    const { exploreCommand } = await import('./sim-explore.ts');
    return exploreCommand({ ...values, explore: values.explore, lang });
  }
  if (values.scenario) {
    // Scenario files given after --scenario, as further options or as positionals.
    return scenarios([...values.scenario, ...positionals], { lang, quiet: !!values.quiet, screenshots: values.screenshots, variant, flash: values.flash });
  }
  if (values.pty) {
    const baud = values.baud === undefined ? undefined : intOf(values.baud, '--baud', 300, 4_000_000);
    return pty(positionals[0], { lang, flash: values.flash, variant, baud });
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}' (scenarios go after --scenario)`);
  return interactive({
    lang,
    flash: values.flash,
    variant,
    bridgeHid: values['bridge-hid'],
    hidMode: values['hid-mode'],
    bridgeSerial: values['bridge-serial'],
    baud: values.baud === undefined ? undefined : intOf(values.baud, '--baud', 300, 4_000_000),
  });
}

// --- scenarios ------------------------------------------------------------------------------------

async function scenarios(
  files: string[],
  o: { lang: Lang; quiet: boolean; screenshots?: string; variant: 'quickjs' | 'quickjs-ng'; flash?: string },
): Promise<number> {
  const t = T[o.lang];
  const out = (s: string) => process.stdout.write(s + '\n');
  // Every file is checked before any runs.
  const parsed = [];
  let bad = false;
  for (const f of files) {
    if (!existsSync(f)) {
      process.stderr.write(`${f}: ${o.lang === 'fr' ? 'fichier introuvable' : 'no such file'}\n`);
      bad = true;
      continue;
    }
    try {
      parsed.push(parseScenario(readFileSync(f, 'utf8'), f));
    } catch (e) {
      if (!(e instanceof ScenarioError)) throw e;
      process.stderr.write(`${t.invalid}\n${e.message}\n`);
      bad = true;
    }
  }
  if (bad) return 2;
  const bundle = ensureBundle((s) => process.stderr.write(s + '\n'));
  let passed = 0;
  for (const sc of parsed) {
    out(`${sc.name}  (${sc.file})`);
    // With --flash, each scenario starts from the saved chip and leaves its state there.
    const chip = o.flash ? NorFlash.load(o.flash) : undefined;
    const sim = simulatorFor(sc, { bundle, chip, variant: o.variant });
    const r = await runScenario(sc, {
      sim,
      bundle,
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

// --- interactive and bridges ----------------------------------------------------------------------

const I = {
  fr: {
    help: `Commandes :
  SPH1:…            scanner ce code (collé ou tapé)
  ticket PRIX       générer et scanner un ticket de ce gain (0 = perdant), ex. « ticket 150 »
  faux PRIX         un ticket de ce gain signé avec une autre clé (contrefaçon)
  via LECTEUR       choisir le lecteur : ${SCANNER_KINDS.join(', ')}
  ok | c | 0…9      appuyer sur une touche
  attendre DURÉE    avancer le temps simulé, ex. « attendre 10s »
  reboot | coupure | boot     redémarrer, couper le courant, rallumer
  registre          les paiements enregistrés
  capture FICHIER.png         l’écran en PNG
  quitter`,
    ready: (via: string) => `Simulateur prêt (lecteur : ${via}). « aide » pour les commandes.`,
    unknown: (s: string) => `commande inconnue : ${s} (« aide »)`,
    ledger: (n: number) => `${n} paiement(s) au registre`,
    via: (v: string) => `lecteur : ${v}`,
    badPrize: 'gain inconnu du barème (0, 5, 10, 15, 30, 150, 500, 2500, 25000, 250000)',
    off: 'appareil éteint (« boot » pour rallumer)',
    bridged: (what: string) => `lecteur réel branché : ${what}`,
    bye: 'au revoir',
    saved: (f: string) => `écrit : ${f}`,
  },
  en: {
    help: `Commands:
  SPH1:…            scan this code (pasted or typed)
  ticket PRIZE      generate and scan a ticket of this prize (0 = losing), e.g. "ticket 150"
  forged PRIZE      a ticket of this prize signed with another key
  via SCANNER       pick the scanner: ${SCANNER_KINDS.join(', ')}
  ok | c | 0…9      press a key
  wait DURATION     advance simulated time, e.g. "wait 10s"
  reboot | cut | boot         reboot, cut the power, power on
  ledger            the recorded payments
  shot FILE.png     the display as a PNG
  quit`,
    ready: (via: string) => `Simulator ready (scanner: ${via}). "help" for the commands.`,
    unknown: (s: string) => `unknown command: ${s} ("help")`,
    ledger: (n: number) => `${n} payment(s) in the ledger`,
    via: (v: string) => `scanner: ${v}`,
    badPrize: 'not a prize of the table (0, 5, 10, 15, 30, 150, 500, 2500, 25000, 250000)',
    off: 'device off ("boot" to power on)',
    bridged: (what: string) => `real scanner attached: ${what}`,
    bye: 'bye',
    saved: (f: string) => `written: ${f}`,
  },
} as const;

interface InteractiveOptions {
  lang: Lang;
  flash?: string;
  variant: 'quickjs' | 'quickjs-ng';
  bridgeHid?: string;
  hidMode?: string;
  bridgeSerial?: string;
  baud?: number;
}

/** A simulator on wall-clock pace: virtual time follows real time while a person watches. */
async function liveSimulator(o: { lang: Lang; flash?: string; variant: 'quickjs' | 'quickjs-ng'; config?: SimConfig }) {
  const chip = o.flash ? NorFlash.load(o.flash) : new NorFlash();
  let last = '';
  let drawPending = false;
  const sim = new Simulator({
    chip,
    variant: o.variant,
    seed: Date.now(),
    clockMs: Date.now(),
    bundle: ensureBundle((s) => process.stderr.write(s + '\n')),
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
  else if (!o.flash) sim.configure({});
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
  };
  return { sim, serial, close, save };
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
        const t = { emission: 1, block: 1, number: nextNumber++, prize, key: w === 'ticket' ? ('test' as const) : ('other' as const) };
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
        for (const p of entries) say(`  ${p.emission}/${p.block}/${p.number}  ${formatEur(p.prizeEur, o.lang)}  ${new Date(p.paidAtMs).toISOString()}  ${p.deviceId}`);
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
  for await (const line of rl) {
    // Non-interactive input (a pipe) runs at once: let virtual time catch up before each command.
    const go = await serial(async () => {
      if (!process.stdin.isTTY) await sim.run(1000);
      return handle(line);
    });
    live.save();
    if (!go) {
      stop = true;
      break;
    }
  }
  if (!stop && bridges.length > 0) await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  process.removeAllListeners('SIGINT');
  if (!process.stdin.isTTY) await serial(() => sim.run(1000));
  rl.close();
  for (const b of bridges) await b();
  await live.close();
  say(m.bye);
  return 0;
}

type Serial = <R>(f: () => Promise<R> | R) => Promise<R>;

/** Raw reports of a real HID scanner go to the simulated device's HID input, decoded by the firmware. */
async function bridgeHid(sim: Simulator, serial: Serial, spec: string, modeOpt: string | undefined, lang: Lang, say: (s: string) => void) {
  const mode = modeOpt ?? 'pos';
  if (mode !== 'pos' && mode !== 'keyboard') throw new UsageError('--hid-mode must be keyboard or pos');
  const { defaultHidLoader, loadError, parseHidSpec, pickDevice, openError, HidError } = await import('../hid.ts');
  let dev;
  try {
    let hid;
    try {
      hid = await defaultHidLoader();
    } catch (e) {
      throw loadError(e);
    }
    const info = pickDevice(hid.devices(), parseHidSpec(spec), mode);
    if (!info.path) throw new HidError('open', 'no device path', spec);
    try {
      dev = new hid.HID(info.path);
    } catch (e) {
      throw openError(e, info, mode, process.platform);
    }
    say(I[lang].bridged(`${info.product ?? spec} (${mode})`));
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
async function bridgeSerial(sim: Simulator, serial: Serial, path: string, baud: number | undefined, lang: Lang, say: (s: string) => void) {
  const { SerialPortStream } = await import('@serialport/stream');
  const { autoDetect } = await import('@serialport/bindings-cpp');
  const { SerialOpenError } = await import('../serial.ts');
  const port = new SerialPortStream({ binding: autoDetect(), path, baudRate: baud ?? 9600, autoOpen: false });
  await new Promise<void>((resolve, reject) =>
    port.open((err) => (err ? reject(new Error(new SerialOpenError(path, err.message).text(lang))) : resolve())),
  );
  say(I[lang].bridged(`${path} @ ${baud ?? 9600}`));
  let sent = 0;
  port.on('data', (b: Buffer) =>
    void serial(() => {
      sim.inject('serial', new Uint8Array(b));
      // What the firmware answered (ACK/NAK) goes back on the line.
      const out = sim.periph?.serialOut ?? [];
      for (; sent < out.length; sent++) port.write(Buffer.from(out[sent]));
    }),
  );
  port.on('error', (err: Error) => say(`serial: ${err.message}`));
  return () => new Promise<void>((resolve) => (port.isOpen ? port.close(() => resolve()) : resolve()));
}

// --- service port on a pty ------------------------------------------------------------------------

async function pty(link: string | undefined, o: { lang: Lang; flash?: string; variant: 'quickjs' | 'quickjs-ng'; baud?: number }): Promise<number> {
  const live = await liveSimulator(o);
  const { sim, serial } = live;
  const { exposeServicePort } = await import('../../../hw-sim/pty.ts');
  const port = await exposeServicePort(
    {
      chip: bootChip(sim.chip),
      deviceId: sim.deviceId,
      running: () => sim.booted,
      reboot: () => void serial(() => sim.reboot()),
      ledgerEntries: () => sim.ledger(),
      // A power cut the service port simulates (during FINISH) restarts the device as a real one would.
      powerLost: () => {
        sim.powerOff('power cut');
        void serial(() => sim.boot());
      },
    },
    { link, baud: o.baud },
  );
  process.stdout.write(`${o.lang === 'fr' ? 'port de service' : 'service port'}: ${port.path}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await port.close();
  await live.close();
  return 0;
}
