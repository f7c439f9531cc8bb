// Scanner input figures: the camera path over the jsQR end-to-end corpus (ours and stock jsQR, same run),
// HID keyboard reports and serial bytes decoded per second.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import jsQRModule from 'jsqr';
import { CameraDecoder } from '../src/input/camera.ts';
import { KeyboardWedgeDecoder } from '../src/input/keyboard.ts';
import { SerialDecoder } from '../src/input/serial.ts';
import type { Frame } from '../src/hal.ts';

const jsQR = ((jsQRModule as unknown as { default?: unknown }).default || jsQRModule) as typeof jsQRModule.default;
const CORPUS = join(import.meta.dirname, '..', '..', 'shared', 'corpus', 'jsqr-e2e');

interface Item {
  frame: Frame;
  expected: string | null;
}

function loadCorpus(): Item[] {
  const items: Item[] = [];
  for (const d of readdirSync(CORPUS).sort((a, b) => Number(a) - Number(b))) {
    const png = join(CORPUS, d, 'input.png');
    if (!existsSync(png)) continue;
    const img = PNG.sync.read(readFileSync(png));
    const out = JSON.parse(readFileSync(join(CORPUS, d, 'output.json'), 'utf8')) as { data: string } | null;
    const data = new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.length);
    items.push({ frame: { width: img.width, height: img.height, format: 'rgba', data }, expected: out ? out.data : null });
  }
  return items;
}

export function corpusFigures(items: Item[]) {
  let ours = 0;
  let stock = 0;
  let oursMs = 0;
  let stockMs = 0;
  for (const it of items) {
    const f = it.frame;
    let t = performance.now();
    const r = jsQR(new Uint8ClampedArray(f.data.buffer, f.data.byteOffset, f.data.length), f.width, f.height, {
      inversionAttempts: 'attemptBoth',
    });
    stockMs += performance.now() - t;
    if (it.expected !== null && r && r.data === it.expected) stock++;
    t = performance.now();
    const text = new CameraDecoder({ mode: 'still' }).decode(f);
    oursMs += performance.now() - t;
    if (it.expected !== null && text === it.expected) ours++;
  }
  return {
    qr_corpus_decoded: ours,
    qr_corpus_ms_per_image: oursMs / items.length,
    qr_corpus_decoded_stock_jsqr: stock,
    qr_corpus_ms_per_image_stock_jsqr: stockMs / items.length,
  };
}

function keyboardReports(): Uint8Array[] {
  // "SPH1:" then 159 digits/letters, Enter: press and release reports, US layout.
  const reps: Uint8Array[] = [];
  const press = (mod: number, u: number) => {
    reps.push(new Uint8Array([mod, 0, u, 0, 0, 0, 0, 0]));
    reps.push(new Uint8Array(8));
  };
  for (const [m, u] of [[2, 0x16], [2, 0x13], [2, 0x0b], [0, 0x1e], [2, 0x33]]) press(m, u);
  for (let i = 0; i < 159; i++) press(i % 2 ? 2 : 0, i % 2 ? 0x04 + (i % 26) : 0x1e + (i % 10));
  press(0, 0x28);
  return reps;
}

export default async function (): Promise<Record<string, number>> {
  const figures: Record<string, number> = corpusFigures(loadCorpus());

  const reps = keyboardReports();
  const kb = new KeyboardWedgeDecoder({ layout: 'auto' });
  let n = 0;
  let t = performance.now();
  while (performance.now() - t < 500) {
    for (const r of reps) kb.push(r, 0);
    while (kb.read());
    n += reps.length;
  }
  figures.hid_decode_reports_per_s = Math.round(n / ((performance.now() - t) / 1000));

  const line = 'SPH1:' + 'X5055AW62KS0F00*DGAQMB9D1F6S90B5TYKPUX5UMGSTU5:KP7017EXQLMKDZYB'.repeat(3).slice(0, 159) + '\r\n';
  const chunk = new Uint8Array(Buffer.from(line.repeat(400), 'latin1'));
  const ser = new SerialDecoder();
  let bytes = 0;
  t = performance.now();
  while (performance.now() - t < 500) {
    ser.push(chunk, 0);
    while (ser.read());
    bytes += chunk.length;
  }
  figures.serial_decode_mb_per_s = bytes / 1e6 / ((performance.now() - t) / 1000);
  return figures;
}
