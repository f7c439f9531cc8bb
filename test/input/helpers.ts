// Shared helpers of the input tests: fixtures and running a decoder over a list of reports.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.ts';
import { parseHexReports } from '../../src/input/capture.ts';
import type { InputEvent } from '../../src/input/event.ts';
import type { Frame } from '../../src/hal.ts';
import QRCode from 'qrcode';
import toSJISFunc from 'qrcode/helper/to-sjis.js';
import { saphirIn as runInProcess } from '../cli/run-cli.ts';

export const FIXTURES = join(ROOT, 'test', 'fixtures', 'input');
export const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';

export function fixture(name: string): Buffer {
  return readFileSync(join(FIXTURES, name));
}

export function reportsOf(name: string): Uint8Array[] {
  const c = parseHexReports(fixture(name).toString('utf8'));
  if (c.errors.length) throw new Error(`${name}: ${JSON.stringify(c.errors)}`);
  return c.reports;
}

interface Decoder {
  push(x: Uint8Array, nowMs: number): void;
  read(): InputEvent | undefined;
}

/** Pushes every item 10 ms apart and returns all the events. */
export function run(d: Decoder, items: Uint8Array[], stepMs = 10): InputEvent[] {
  const out: InputEvent[] = [];
  let t = 0;
  for (const it of items) {
    d.push(it, (t += stepMs));
    for (let e = d.read(); e; e = d.read()) out.push(e);
  }
  return out;
}

export const codes = (events: InputEvent[]) =>
  events.filter((e) => e.type === 'code').map((e) => (e as { text: string }).text);

/** A grey frame with the QR code of `text` (or of those segments) drawn at (x, y), `px` pixels a module, 4-module quiet zone. */
export function qrFrame(
  text: string | QRCode.QRCodeSegment[],
  opts: { width?: number; height?: number; x?: number; y?: number; px?: number; invert?: boolean } = {},
): Frame {
  const { width = 640, height = 480, x = 40, y = 40, px = 4, invert = false } = opts;
  // toSJISFunc: a Kanji-mode segment's characters as Shift_JIS (qrcode refuses Kanji mode without it).
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M', toSJISFunc });
  const n = qr.modules.size;
  const light = invert ? 20 : 230;
  const dark = invert ? 230 : 20;
  const data = new Uint8Array(width * height).fill(light - 40);
  const side = (n + 8) * px;
  for (let j = 0; j < side; j++) {
    for (let i = 0; i < side; i++) {
      const mx = Math.floor(i / px) - 4;
      const my = Math.floor(j / px) - 4;
      const on = mx >= 0 && my >= 0 && mx < n && my < n && qr.modules.get(my, mx);
      const X = x + i;
      const Y = y + j;
      if (X < width && Y < height) data[Y * width + X] = on ? dark : light;
    }
  }
  return { width, height, format: 'y8', data };
}

/** Runs `saphir ARGS…` in this process, capturing what it writes (test/cli/run-cli.ts). */
export async function saphirIn(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const r = await runInProcess(args);
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}
