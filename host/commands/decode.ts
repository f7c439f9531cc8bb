// saphir decode --source hid-keyboard|hid-pos|serial|image [--layout us|fr|auto] [--lang fr|en] FILE…
// The field technician's view of "what does the validator see from this scanner": every code, in order.
import { readFile } from 'node:fs/promises';
import { PNG } from 'pngjs';
import { intOf, UsageError, parseCommand, reasonOf } from '../args.ts';
import { MAX_REPORT, parseHexReports } from '../../src/input/capture.ts';
import { visible } from '../visible.ts';
import { KeyboardWedgeDecoder } from '../../src/input/keyboard.ts';
import { HidPosDecoder } from '../../src/input/hid-pos.ts';
import { SerialDecoder } from '../../src/input/serial.ts';
import { CameraDecoder, type JsQR } from '../../src/input/camera.ts';
import { hostJsQR } from '../jsqr.ts';
import { stdoutGone, writeOut } from '../stdout.ts';
import type { InputEvent } from '../../src/input/event.ts';
import type { Frame } from '../../src/hal.ts';
import type { Lang } from '../../src/i18n.ts';
import { messages } from '../../src/messages/index.ts';

const HELP = (lang: Lang) => messages(lang).help.decode;

const SOURCES = ['hid-keyboard', 'hid-pos', 'serial', 'image'] as const;
type Source = (typeof SOURCES)[number];

/** Images whose header declares more pixels than this are refused before decoding (16 Mpx: 64 MB RGBA). */
export const MAX_IMAGE_PIXELS = 16 << 20;
/** Serial bytes handed to the decoder at a time: too few codes to fill its event queue between reads. */
const SERIAL_CHUNK = 16;

interface Raw {
  width: number;
  height: number;
  format: 'y8' | 'rgba';
}

/** The codes of one capture file; warnings go to `warn`. */
export function decodeCapture(
  source: Source,
  file: string,
  bytes: Uint8Array,
  o: { layout: 'us' | 'fr' | 'auto'; raw?: Raw; lang: Lang; warn: (s: string) => void; jsQR?: JsQR },
): string[] {
  const m = messages(o.lang).decode;
  const drop = messages(o.lang).drop;
  const out: string[] = [];
  const take = (e: InputEvent) => {
    if (e.type === 'code') out.push(e.text);
    else if (e.reason === 'overflow') o.warn(m.lost(file, drop.overflow, e.lost ?? 0));
    else o.warn(m.dropped(file, drop[e.reason], visible(e.partial, 200)));
  };
  if (source === 'image') {
    const frame = o.raw ? rawFrame(file, bytes, o.raw, o.lang, o.warn) : pngFrame(file, bytes, o.lang, o.warn);
    const text = frame ? new CameraDecoder({ mode: 'still', jsQR: o.jsQR }).decode(frame) : null;
    if (text !== null) out.push(text);
    return out;
  }
  let t = 0;
  if (source === 'serial') {
    const d = new SerialDecoder();
    for (let i = 0; i < bytes.length; i += SERIAL_CHUNK) {
      d.push(bytes.subarray(i, i + SERIAL_CHUNK), t);
      for (let e = d.read(); e; e = d.read()) take(e);
    }
    d.tick(Number.MAX_SAFE_INTEGER);
    for (let e = d.read(); e; e = d.read()) take(e);
    return out;
  }
  const cap = parseHexReports(Buffer.from(bytes).toString('latin1'));
  for (const err of cap.errors)
    o.warn(m.line(file, err.line, err.tooLong ? m.tooLong(MAX_REPORT) : m.notHex(visible(err.word ?? '', 20))));
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

/** The pixel size an image file declares in its header, before anything is decoded. */
export function declaredSize(b: Uint8Array): { kind: 'PNG' | 'JPEG'; width: number; height: number } | null {
  const u32 = (i: number) => ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0;
  const u16 = (i: number) => (b[i] << 8) | b[i + 1];
  if (b.length >= 24 && u32(0) === 0x89504e47 && u32(4) === 0x0d0a1a0a && u32(12) === 0x49484452) {
    return { kind: 'PNG', width: u32(16), height: u32(20) };
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    // Segments up to the first start-of-frame (SOF0…SOF15 but DHT, JPG and DAC).
    for (let i = 2; i + 9 < b.length;) {
      if (b[i] !== 0xff) return { kind: 'JPEG', width: 0, height: 0 };
      const marker = b[i + 1];
      if (marker === 0xff) {
        i++;
        continue;
      }
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { kind: 'JPEG', width: u16(i + 7), height: u16(i + 5) };
      }
      i += 2 + u16(i + 2);
    }
    return { kind: 'JPEG', width: 0, height: 0 };
  }
  return null;
}

function pngFrame(file: string, bytes: Uint8Array, lang: Lang, warn: (s: string) => void): Frame | null {
  const m = messages(lang).decode;
  const size = declaredSize(bytes);
  if (size && size.width * size.height > MAX_IMAGE_PIXELS) {
    warn(m.tooLarge(file, size.kind, size.width, size.height, MAX_IMAGE_PIXELS / (1 << 20)));
    return null;
  }
  if (size?.kind === 'JPEG') {
    warn(m.jpeg(file));
    return null;
  }
  try {
    const png = PNG.sync.read(Buffer.from(bytes));
    return {
      width: png.width,
      height: png.height,
      format: 'rgba',
      data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.length),
    };
  } catch {
    warn(m.png(file));
    return null;
  }
}

function rawFrame(file: string, bytes: Uint8Array, raw: Raw, lang: Lang, warn: (s: string) => void): Frame | null {
  const want = raw.width * raw.height * (raw.format === 'rgba' ? 4 : 1);
  if (bytes.length !== want) {
    warn(messages(lang).decode.raw(file, bytes.length, want));
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
  if (!SOURCES.includes(source)) throw new UsageError((m) => m.decode.source(SOURCES.join(', ')));
  const layout = (values.layout ?? 'auto') as 'us' | 'fr' | 'auto';
  if (!['us', 'fr', 'auto'].includes(layout)) throw new UsageError((m) => m.decode.layout);
  if (values.layout !== undefined && source !== 'hid-keyboard') throw new UsageError((m) => m.decode.layoutKeyboard);
  let raw: Raw | undefined;
  if (values.width !== undefined || values.height !== undefined || values.format !== undefined) {
    if (source !== 'image') throw new UsageError((m) => m.decode.rawImage);
    const format = values.format ?? 'y8';
    if (format !== 'y8' && format !== 'rgba') throw new UsageError((m) => m.decode.format);
    raw = {
      width: intOf(values.width, '--width', 1, 16384),
      height: intOf(values.height, '--height', 1, 16384),
      format,
    };
  }
  if (positionals.length === 0) throw new UsageError((m) => m.decode.noFile);
  const warn = (s: string) => process.stderr.write(s + '\n');
  // An image is read by the firmware's jsQR, as the device reads it (host/jsqr.ts).
  const jsQR = source === 'image' ? await hostJsQR() : undefined;
  let ok = true;
  for (const file of positionals) {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await readFile(file));
    } catch (e) {
      warn(messages(lang).decode.read(file, reasonOf(e, messages(lang))));
      ok = false;
      continue;
    }
    const codes = decodeCapture(source, file, bytes, { layout, raw, lang, warn, jsQR });
    if (codes.length === 0) {
      warn(messages(lang).decode.none(file));
      ok = false;
    }
    if (codes.length > 0) await writeOut(codes.join('\n') + '\n');
    if (stdoutGone()) break;
  }
  return ok ? 0 : 1;
}
