// saphir sim (interactive): type or paste codes, generate tickets, press keys; --bridge-hid and
// --bridge-serial feed a real scanner's reports or bytes to the simulated device.
import type { SimConfig } from '../../../hw-sim/sim.ts';
import { createInterface } from 'node:readline';
import { UsageError, reasonOf } from '../../args.ts';
import type { Lang } from '../../../src/i18n.ts';
import { formatEur } from '../../../src/i18n.ts';
import type { Key } from '../../../src/hal.ts';
import { parseDuration } from '../../../hw-sim/scenario.ts';
import type { Simulator } from '../../../hw-sim/sim.ts';
import { transmit, SCANNER_KINDS, type ScannerKind } from '../../../hw-sim/scanners/index.ts';
import { ticketCode } from '../../../hw-sim/tickets.ts';
import { drawPng } from '../../../hw-sim/png.ts';
import { messages } from '../../../src/messages/index.ts';
import { untilStopped } from '../../stop.ts';
import { isPrizeAmount } from '../../../src/game/prize-table.ts';
import { writeFileSync } from 'node:fs';
import { LEDGER_WORDS, ledgerLine, type KeyOptions } from './common.ts';
import { I, MAX_WAIT_MS, durationText, liveSimulator } from './live.ts';

/** Waits longer than this run in tenths, each said (a simulated hour takes about a second). */
const WAIT_PROGRESS_MS = 30 * 60_000;

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
  config?: SimConfig;
}

export async function interactive(o: InteractiveOptions): Promise<number> {
  const m = I[o.lang];
  const live = await liveSimulator(o);
  const { sim, serial } = live;
  let via: ScannerKind = 'hid-pos';
  /** The last code scanned (`rescan`). */
  let last: string | undefined;
  let stop = false;
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

  const rl = createInterface({ input: process.stdin, terminal: false });
  // Ctrl-C: end like 'quit' (the flash file is saved on the way out); heard from before the ready line.
  const ctrlC = untilStopped(['SIGINT']);
  void ctrlC.stopped.then(() => {
    stop = true;
    rl.close();
  });
  say(m.ready(via));
  const scan = (code: string) => {
    last = code;
    if (!sim.on) return say(m.off);
    sim.transmit(transmit(via, code, {}, sim.rng));
  };
  const dur = (ms: number) => durationText(ms, o.lang);
  const handle = async (raw: string): Promise<boolean> => {
    const line = raw.trim();
    if (!line) return true;
    const [word, ...rest] = line.split(/\s+/);
    const w = word.toLowerCase();
    const arg = rest.join(' ');
    // A code is scanned as it is; a command word reaches its handler below whatever the length of its
    // argument (a path), and any other line over 8 characters is scanned at the end.
    if (/^SPH\d?:/.test(line)) {
      scan(line);
      return true;
    }
    if (LEDGER_WORDS.includes(w)) {
      const entries = sim.ledger();
      say(m.ledger(entries.length));
      for (const p of entries) say(ledgerLine(p, o.lang));
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
        // A new ticket each time (block and number drawn), so a session on a kept --flash chip never
        // meets a ticket an earlier one paid.
        const t = {
          emission: 1,
          block: 1 + Math.floor(Math.random() * 9999),
          number: Math.floor(Math.random() * 3_000_000),
          prize,
          key: w === 'ticket' ? ('test' as const) : ('other' as const),
        };
        const code = ticketCode(t);
        say(
          m.ticketSent(`${t.emission}/${t.block}/${t.number}`, prize ? formatEur(prize, o.lang) : m.losing, via, code),
        );
        scan(code);
        return true;
      }
      case 'rescan':
      case 'rescanner':
        if (last === undefined) say(m.nothingToRescan);
        else {
          say(m.rescan(via, last));
          scan(last);
        }
        return true;
      case 'via':
        if (!arg) say(m.via(`${via} (${SCANNER_KINDS.join(', ')})`));
        else if ((SCANNER_KINDS as readonly string[]).includes(arg)) {
          via = arg as ScannerKind;
          say(m.via(via));
        } else say(m.viaUnknown(arg, SCANNER_KINDS.join(', ')));
        return true;
      case 'ok':
      case 'c':
        if (!sim.on) say(m.off);
        else await sim.press(w === 'ok' ? 'OK' : 'C');
        return true;
      case 'attendre':
      case 'wait': {
        const max = dur(MAX_WAIT_MS);
        if (!arg) {
          say(m.waitNeeds(max));
          return true;
        }
        const ms = parseDuration(arg);
        if (ms === null) say(m.waitBad(arg, max));
        else if (ms > MAX_WAIT_MS) say(m.waitTooLong(arg, max));
        else await wait(ms);
        return true;
      }
      case 'reboot':
        await sim.reboot();
        say(m.restarted(messages(o.lang).demo.mode(sim.bootMode)));
        return true;
      case 'coupure':
      case 'cut':
        sim.powerCut();
        live.save();
        say(m.powerCut);
        return true;
      case 'boot':
        if (sim.on) say(m.alreadyOn);
        else {
          await sim.boot();
          say(m.poweredOn(messages(o.lang).demo.mode(sim.bootMode)));
        }
        return true;
      case 'réseau':
      case 'reseau':
      case 'network': {
        if (!sim.network) {
          say(m.noNetwork);
          return true;
        }
        const up = /^(up|rétabli|retabli|on)$/i.test(arg);
        if (!up && !/^(down|coupé|coupe|off)$/i.test(arg)) {
          say(m.networkWord(arg));
          return true;
        }
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
    if (/^[0-9]$/.test(w) && line.length <= 40) {
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

  /** A long wait runs in tenths, each said; Ctrl-C stops it between two. */
  const wait = async (ms: number) => {
    if (ms <= WAIT_PROGRESS_MS) {
      await sim.run(ms);
      say(m.waited(dur(ms), false));
      return;
    }
    let done = 0;
    for (let i = 1; i <= 10 && !stop; i++) {
      const to = Math.round((ms * i) / 10);
      await sim.run(to - done);
      done = to;
      if (i < 10) say(m.waitProgress(dur(done), dur(ms)));
      await new Promise((r) => setImmediate(r)); // Ctrl-C is heard here
    }
    say(m.waited(dur(done), done < ms));
  };

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
    if (!stop && bridges.length > 0) await ctrlC.stopped;
    if (!process.stdin.isTTY) await serial(() => sim.run(1000));
  } finally {
    // Whatever ends the loop, the device's clock and the bridges stop, and the flash file is saved.
    ctrlC.off();
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
  const { openHidDevice, HidError } = await import('../../hid.ts');
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
  dev.on('error', (err: Error) => say(I[lang].bridgeError('HID', reasonOf(err, messages(lang)))));
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
  const { openPort, closePort } = await import('../../serial-link.ts');
  const { SerialOpenError } = await import('../../serial.ts');
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
  port.on('error', (err: Error) => say(I[lang].bridgeError(I[lang].serialWord, reasonOf(err, messages(lang)))));
  return () => closePort(port);
}
