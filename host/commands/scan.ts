// saphir scan (--hid VID:PID|PATH [--mode keyboard|pos] [--layout us|fr|auto] | --serial PATH [--baud N] [--ack])
// The retailer's PC mode: reads a scanner attached to this computer and prints the verdict of every code.
import { checkCode } from '../../src/sph1/check.ts';
import { testKeyRing } from '../../src/sph1/keys.ts';
import { hostVerify } from '../../tools/node-crypto.ts';
import { intOf, UsageError, parseCommand } from '../args.ts';
import { verdictJson, verdictLine } from '../verdict.ts';
import { HidError, isHidSpec, openHidScanner } from '../hid.ts';
import { openSerialScanner, SerialOpenError, type SerialStatus } from '../serial.ts';
import type { InputEvent } from '../../src/input/event.ts';
import type { Lang } from '../../src/i18n.ts';
import { messages } from '../../src/messages/index.ts';
import { untilStopped } from '../stop.ts';

const HELP = (lang: Lang) => messages(lang).help.scan;

const TEXT = { fr: messages('fr').scan, en: messages('en').scan };

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
  if (!values.hid === !values.serial) throw new UsageError((m) => m.scan.one);
  if (values.hid !== undefined && !isHidSpec(values.hid))
    throw new UsageError((m) => m.scan.hidSpec('--hid', values.hid!));
  if (values.hid && (values.baud !== undefined || values.ack)) throw new UsageError((m) => m.scan.serialOnly);
  if (values.serial && (values.mode !== undefined || values.layout !== undefined))
    throw new UsageError((m) => m.scan.hidOnly);
  const mode = (values.mode ?? 'keyboard') as 'keyboard' | 'pos';
  if (mode !== 'keyboard' && mode !== 'pos') throw new UsageError((m) => m.scan.mode);
  const layout = (values.layout ?? 'auto') as 'us' | 'fr' | 'auto';
  if (!['us', 'fr', 'auto'].includes(layout)) throw new UsageError((m) => m.scan.layout);
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
      if (e.partial || e.reason === 'bad-report' || e.reason === 'overflow')
        process.stderr.write(t.drop[e.reason] + '\n');
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
      const s = await openSerialScanner({
        path: values.serial!,
        baud,
        framing: { ack: values.ack === true },
        onEvent,
        onStatus,
      });
      close = () => s.close();
    }
  } catch (e) {
    if (e instanceof HidError || e instanceof SerialOpenError) {
      process.stderr.write(`saphir scan: ${e.text(lang)}\n`);
      return 1;
    }
    throw e;
  }
  const signals = untilStopped(); // (before the ready line)
  void signals.stopped.then(finish);
  process.stderr.write(t.ready(values.hid ? `HID ${values.hid}` : values.serial!) + '\n');
  await done;
  signals.off();
  await close();
  return allGenuine ? 0 : 1;
}
