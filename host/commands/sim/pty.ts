// saphir sim --pty [PATH]: the device's service port on a pseudo-terminal (hw-sim/pty.ts), with a
// command line on stdin.
import type { SimConfig } from '../../../hw-sim/sim.ts';
import { createInterface } from 'node:readline';
import type { Lang } from '../../../src/i18n.ts';
import { messages } from '../../../src/messages/index.ts';
import { untilStopped } from '../../stop.ts';
import { LEDGER_WORDS, ledgerLine, type KeyOptions } from './common.ts';
import { I, liveSimulator } from './live.ts';
import { onPath } from '../../../tools/on-path.ts';
import type { PtyError } from '../../../hw-sim/pty.ts';

/** Why --pty cannot start, said before anything is drawn (sim.ts asks first), or null: a bad or taken PATH, no socat. */
export async function ptyProblem(link: string | undefined, lang: Lang): Promise<string | null> {
  const { freeForLink, pathTaken, badPath, unsafeLinkChar } = await import('../../../hw-sim/pty.ts');
  // A path socat could misread is refused, one that is not ours never replaced.
  if (link !== undefined && unsafeLinkChar(link) !== null) return ptyText(badPath(link), lang, unsafeLinkChar);
  if (link !== undefined && !freeForLink(link)) return ptyText(pathTaken(link), lang, unsafeLinkChar);
  if (!onPath('socat')) return messages(lang).sim.noSocat;
  return null;
}

function ptyText(e: PtyError, lang: Lang, unsafeLinkChar: (path: string) => string | null): string {
  const m = messages(lang).sim;
  return e.code === 'path-taken'
    ? m.noPort(m.pathTaken(e.detail))
    : e.code === 'bad-path'
      ? m.noPort(m.badPath(e.detail, unsafeLinkChar(e.detail) ?? ''))
      : e.code === 'no-socat'
        ? m.noSocat
        : m.noPort(m.socatFailed(e.detail));
}

export async function pty(
  link: string | undefined,
  o: {
    lang: Lang;
    flash?: string;
    provision?: string;
    variant: 'quickjs' | 'quickjs-ng' | 'xs';
    baud?: number;
    config?: SimConfig;
  } & KeyOptions,
): Promise<number> {
  const { exposeServicePort, unsafeLinkChar, PtyError } = await import('../../../hw-sim/pty.ts');
  const fail = (why: string) => {
    process.stderr.write(`saphir sim: ${why}\n`);
    return 1;
  };
  // (PATH and socat were checked by ptyProblem, before the trust line; a race still ends in PtyError below.)
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
    if (e instanceof PtyError) return fail(ptyText(e, o.lang, unsafeLinkChar));
    throw e;
  }
  const { stopped, stop } = untilStopped(['SIGINT', 'SIGTERM', 'SIGHUP']); // (before the line that names the port)
  wake = stop;
  process.stdout.write(messages(o.lang).sim.servicePort(port.path) + '\n');
  const stopCommands = ptyCommands(live, port.port, o.lang, stop);
  await stopped;
  // Ctrl-C, a signal or socat's end: stdin is read no more, so that the process ends.
  stopCommands();
  await port.close();
  await live.close();
  const m = messages(o.lang).sim;
  return down === null ? 0 : fail(m.noPort(m.socatEnded(down)));
}

/**
 * `saphir sim --pty`'s command line on stdin (a technician, a test or a script): `coupure`/`cut` cuts
 * the power (mid-transfer too: the update journal keeps what was programmed), `boot` powers on again,
 * `reboot`, `journal`/`ledger`, `quitter`/`quit` (calls `done`). The end of stdin leaves the port up
 * until a signal, as before.
 */
function ptyCommands(
  live: Awaited<ReturnType<typeof liveSimulator>>,
  port: import('../../../rom/service.ts').ServicePort,
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
        if (LEDGER_WORDS.includes(w)) {
          const entries = sim.ledger();
          say(m.payments(entries.length));
          for (const p of entries) say(ledgerLine(p, lang));
          return;
        }
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
            say(m.poweredOn(messages(lang).demo.mode(sim.bootMode)));
            return;
          case 'reboot':
            port.powerOff();
            await sim.reboot();
            port.powerOn();
            say(m.restarted(messages(lang).demo.mode(sim.bootMode)));
            return;
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
