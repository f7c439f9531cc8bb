// saphir scan (--hid VID:PID|PATH [--mode keyboard|pos] [--layout us|fr|auto] | --serial PATH [--baud N] [--ack])
// The retailer's PC mode: reads a scanner attached to this computer and prints the verdict of every code.
import { checkCode } from '../../sph1/check.ts';
import { testKeyRing } from '../../sph1/keys.ts';
import { hostVerify } from '../node-crypto.ts';
import { intOf, UsageError, parseCommand } from '../args.ts';
import { verdictJson, verdictLine } from '../verdict.ts';
import { HidError, openHidScanner } from '../hid.ts';
import { openSerialScanner, SerialOpenError, type SerialStatus } from '../serial.ts';
import type { InputEvent, DropReason } from '../../input/event.ts';
import type { Lang } from '../../i18n.ts';

const HELP = `usage: saphir scan (--hid VID:PID|PATH [--mode keyboard|pos] [--layout us|fr|auto]
                   | --serial PATH [--baud N] [--ack]) [--json] [--lang fr|en] [--count N]
Reads the scanner attached to this computer and prints the verdict of every ticket scanned, until
Ctrl+C (or N codes with --count).
  --hid VID:PID|PATH  a USB HID scanner (hex ids, e.g. 0c2e:0b61, or a /dev/hidraw path)
  --mode keyboard|pos its keyboard-wedge interface (default) or its HID POS one
  --layout us|fr|auto keyboard layout the scanner types with (default auto)
  --serial PATH       a serial or USB virtual COM scanner; --baud N (default 9600); --ack answers ACK/NAK`;

const TEXT = {
  fr: {
    ready: (what: string) => `prêt : scannez un ticket (${what}) — Ctrl+C pour arrêter`,
    drop: { timeout: 'code incomplet, rescanner', 'too-long': 'code trop long, rescanner', noise: 'code brouillé, rescanner', 'bad-report': 'lecture HID perturbée, rescanner' } as Record<DropReason, string>,
    unplugged: (d: string) => `scanner débranché (${d}) : en attente de son retour…`,
    reopened: (d: string) => `scanner rebranché (${d})`,
    error: (d: string) => `erreur du scanner : ${d}`,
  },
  en: {
    ready: (what: string) => `ready: scan a ticket (${what}) — Ctrl+C to stop`,
    drop: { timeout: 'incomplete code, scan again', 'too-long': 'code too long, scan again', noise: 'garbled code, scan again', 'bad-report': 'HID read disturbed, scan again' } as Record<DropReason, string>,
    unplugged: (d: string) => `scanner unplugged (${d}): waiting for it to come back…`,
    reopened: (d: string) => `scanner plugged back (${d})`,
    error: (d: string) => `scanner error: ${d}`,
  },
};

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    hid: { type: 'string' },
    mode: { type: 'string' },
    layout: { type: 'string' },
    serial: { type: 'string' },
    baud: { type: 'string' },
    ack: { type: 'boolean' },
    json: { type: 'boolean' },
    count: { type: 'string' },
  });
  if (!parsed) return 0;
  const { values, lang } = parsed;
  const t = TEXT[lang];
  if (!values.hid === !values.serial) throw new UsageError('give exactly one of --hid VID:PID|PATH or --serial PATH');
  if (values.hid && (values.baud !== undefined || values.ack)) throw new UsageError('--baud and --ack apply to --serial only');
  if (values.serial && (values.mode !== undefined || values.layout !== undefined)) throw new UsageError('--mode and --layout apply to --hid only');
  const mode = (values.mode ?? 'keyboard') as 'keyboard' | 'pos';
  if (mode !== 'keyboard' && mode !== 'pos') throw new UsageError('--mode must be keyboard or pos');
  const layout = (values.layout ?? 'auto') as 'us' | 'fr' | 'auto';
  if (!['us', 'fr', 'auto'].includes(layout)) throw new UsageError('--layout must be us, fr or auto');
  const baud = values.baud === undefined ? 9600 : intOf(values.baud, '--baud', 50, 4000000);
  const count = values.count === undefined ? Infinity : intOf(values.count, '--count', 1);

  const opts = { keys: testKeyRing(), verify: hostVerify };
  let seen = 0;
  let allGenuine = true;
  let finish: () => void = () => {};
  const done = new Promise<void>((r) => (finish = r));
  const onEvent = (e: InputEvent) => {
    if (seen >= count) return;
    if (e.type === 'dropped') {
      if (e.partial || e.reason === 'bad-report') process.stderr.write(t.drop[e.reason] + '\n');
      return;
    }
    const r = checkCode(e.text, opts);
    if (r.status === 'invalid') allGenuine = false;
    process.stdout.write((values.json ? JSON.stringify(verdictJson(e.text, r)) : verdictLine(r, lang)) + '\n');
    if (++seen >= count) finish();
  };
  const onStatus = (s: SerialStatus | 'error', d: string) => {
    if (s === 'unplugged') process.stderr.write(t.unplugged(d) + '\n');
    else if (s === 'reopened') process.stderr.write(t.reopened(d) + '\n');
    else if (s === 'error') process.stderr.write(t.error(d) + '\n');
  };

  let close: () => Promise<void> | void;
  try {
    if (values.hid) {
      const s = await openHidScanner({ device: values.hid, mode, layout, onEvent, onStatus });
      close = () => s.close();
    } else {
      const s = await openSerialScanner({ path: values.serial!, baud, framing: { ack: values.ack === true }, onEvent, onStatus });
      close = () => s.close();
    }
  } catch (e) {
    if (e instanceof HidError || e instanceof SerialOpenError) {
      process.stderr.write(`saphir scan: ${e.text(lang)}\n`);
      return 1;
    }
    throw e;
  }
  process.stderr.write(t.ready(values.hid ? `HID ${values.hid}` : values.serial!) + '\n');
  const stop = () => finish();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await done;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  await close();
  return allGenuine ? 0 : 1;
}
