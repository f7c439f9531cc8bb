// saphir decode --source hid-keyboard|hid-pos|serial|image [--layout us|fr|auto] [--lang fr|en] FILE…
// The field technician's view of "what does the validator see from this scanner": every code, in order.
import { readFile } from 'node:fs/promises';
import { PNG } from 'pngjs';
import { intOf, UsageError, parseCommand } from '../args.ts';
import { parseHexReports } from '../../input/capture.ts';
import { KeyboardWedgeDecoder } from '../../input/keyboard.ts';
import { HidPosDecoder } from '../../input/hid-pos.ts';
import { SerialDecoder } from '../../input/serial.ts';
import { CameraDecoder } from '../../input/camera.ts';
import type { InputEvent, DropReason } from '../../input/event.ts';
import type { Frame } from '../../hal.ts';
import type { Lang } from '../../i18n.ts';

const HELP = `usage: saphir decode --source hid-keyboard|hid-pos|serial|image [options] FILE…
Prints each code a scanner capture holds, one a line, in order.
  --source S        hid-keyboard, hid-pos: one report a line as hex bytes ("02 00 16 00 00 00 00 00"),
                    blank lines and # comments ignored; serial: the raw bytes; image: a PNG, or raw
                    pixels with --width/--height/--format
  --layout L        keyboard layout of hid-keyboard captures: us, fr or auto (default auto)
  --width N --height N --format y8|rgba   raw image frames
  --lang fr|en      language of the messages (default fr)
Exit 0 when every file gave at least one code, 1 otherwise, 2 on a usage error.`;

const SOURCES = ['hid-keyboard', 'hid-pos', 'serial', 'image'] as const;
type Source = (typeof SOURCES)[number];

const DROP: Record<Lang, Record<DropReason, string>> = {
  fr: { timeout: 'code incomplet (délai dépassé)', 'too-long': 'code trop long', noise: 'code coupé par du bruit', 'bad-report': 'rapport HID invalide' },
  en: { timeout: 'incomplete code (timeout)', 'too-long': 'code too long', noise: 'code cut by line noise', 'bad-report': 'bad HID report' },
};
const MSG = {
  fr: {
    read: (f: string, m: string) => `${f} : lecture impossible : ${m}`,
    line: (f: string, n: number, m: string) => `${f}:${n} : ligne ignorée : ${m}`,
    none: (f: string) => `${f} : aucun code`,
    dropped: (f: string, why: string, partial: string) => `${f} : ${why}${partial ? ` « ${partial} »` : ''}`,
    png: (f: string, m: string) => `${f} : PNG illisible : ${m}`,
    raw: (f: string, n: number, want: number) => `${f} : ${n} octets, ${want} attendus pour ce format d'image`,
  },
  en: {
    read: (f: string, m: string) => `${f}: cannot read: ${m}`,
    line: (f: string, n: number, m: string) => `${f}:${n}: line skipped: ${m}`,
    none: (f: string) => `${f}: no code`,
    dropped: (f: string, why: string, partial: string) => `${f}: ${why}${partial ? ` "${partial}"` : ''}`,
    png: (f: string, m: string) => `${f}: unreadable PNG: ${m}`,
    raw: (f: string, n: number, want: number) => `${f}: ${n} bytes, ${want} expected for this image format`,
  },
};

interface Raw {
  width: number;
  height: number;
  format: 'y8' | 'rgba';
}

/** The codes of one capture file; warnings go to `warn`. */
export function decodeCapture(source: Source, file: string, bytes: Uint8Array, o: { layout: 'us' | 'fr' | 'auto'; raw?: Raw; lang: Lang; warn: (s: string) => void }): string[] {
  const m = MSG[o.lang];
  const out: string[] = [];
  const take = (e: InputEvent) => {
    if (e.type === 'code') out.push(e.text);
    else o.warn(m.dropped(file, DROP[o.lang][e.reason], e.partial));
  };
  if (source === 'image') {
    const frame = o.raw ? rawFrame(file, bytes, o.raw, o.lang, o.warn) : pngFrame(file, bytes, o.lang, o.warn);
    const text = frame ? new CameraDecoder({ mode: 'still' }).decode(frame) : null;
    if (text !== null) out.push(text);
    return out;
  }
  let t = 0;
  if (source === 'serial') {
    const d = new SerialDecoder();
    d.push(bytes, t);
    d.tick(Number.MAX_SAFE_INTEGER);
    for (let e = d.read(); e; e = d.read()) take(e);
    return out;
  }
  const cap = parseHexReports(Buffer.from(bytes).toString('latin1'));
  for (const err of cap.errors) o.warn(m.line(file, err.line, err.message));
  const d = source === 'hid-pos' ? new HidPosDecoder() : new KeyboardWedgeDecoder({ layout: o.layout });
  // A capture has no timing: reports are 1 ms apart, and whatever is left at the end is incomplete.
  for (const r of cap.reports) {
    d.push(r, ++t);
    for (let e = d.read(); e; e = d.read()) take(e);
  }
  d.tick(Number.MAX_SAFE_INTEGER);
  for (let e = d.read(); e; e = d.read()) take(e);
  return out;
}

function pngFrame(file: string, bytes: Uint8Array, lang: Lang, warn: (s: string) => void): Frame | null {
  try {
    const png = PNG.sync.read(Buffer.from(bytes));
    return { width: png.width, height: png.height, format: 'rgba', data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.length) };
  } catch (e) {
    warn(MSG[lang].png(file, (e as Error).message));
    return null;
  }
}

function rawFrame(file: string, bytes: Uint8Array, raw: Raw, lang: Lang, warn: (s: string) => void): Frame | null {
  const want = raw.width * raw.height * (raw.format === 'rgba' ? 4 : 1);
  if (bytes.length !== want) {
    warn(MSG[lang].raw(file, bytes.length, want));
    return null;
  }
  return { ...raw, data: bytes };
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    source: { type: 'string' },
    layout: { type: 'string' },
    width: { type: 'string' },
    height: { type: 'string' },
    format: { type: 'string' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  const source = values.source as Source;
  if (!SOURCES.includes(source)) throw new UsageError(`--source must be one of ${SOURCES.join(', ')}`);
  const layout = (values.layout ?? 'auto') as 'us' | 'fr' | 'auto';
  if (!['us', 'fr', 'auto'].includes(layout)) throw new UsageError('--layout must be us, fr or auto');
  if (values.layout !== undefined && source !== 'hid-keyboard') throw new UsageError('--layout applies to --source hid-keyboard only');
  let raw: Raw | undefined;
  if (values.width !== undefined || values.height !== undefined || values.format !== undefined) {
    if (source !== 'image') throw new UsageError('--width/--height/--format apply to --source image only');
    const format = values.format ?? 'y8';
    if (format !== 'y8' && format !== 'rgba') throw new UsageError('--format must be y8 or rgba');
    raw = { width: intOf(values.width, '--width', 1, 16384), height: intOf(values.height, '--height', 1, 16384), format };
  }
  if (positionals.length === 0) throw new UsageError('no capture FILE given');
  const warn = (s: string) => process.stderr.write(s + '\n');
  let ok = true;
  for (const file of positionals) {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await readFile(file));
    } catch (e) {
      warn(MSG[lang].read(file, (e as NodeJS.ErrnoException).code ?? (e as Error).message));
      ok = false;
      continue;
    }
    const codes = decodeCapture(source, file, bytes, { layout, raw, lang, warn });
    if (codes.length === 0) {
      warn(MSG[lang].none(file));
      ok = false;
    }
    for (const c of codes) process.stdout.write(c + '\n');
  }
  return ok ? 0 : 1;
}
