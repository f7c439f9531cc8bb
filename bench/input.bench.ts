// Scanner input figures: the camera path over the jsQR end-to-end corpus (ours and stock jsQR, same run),
// HID keyboard reports and serial bytes decoded per second.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';
import { build, type Plugin } from 'esbuild';
import { createRequire } from 'node:module';
import { getQuickJS, newQuickJSWASMModuleFromVariant } from 'quickjs-emscripten';
import jsQRModule from 'jsqr';
import { CameraDecoder, type JsQR } from '../src/input/camera.ts';
import { hostJsQR } from '../host/jsqr.ts';
import { KeyboardWedgeDecoder } from '../src/input/keyboard.ts';
import { SerialDecoder } from '../src/input/serial.ts';
import type { Frame } from '../src/hal.ts';
import { evaluator } from './qjs-eval.ts';
import { slim, ROOT, FIRMWARE_ESBUILD } from '../tools/build.ts';
import { degradedFrames } from '../test/input/degraded.ts';
import { loadVectors } from '../test/helpers.ts';

const jsQR = ((jsQRModule as unknown as { default?: unknown }).default || jsQRModule) as typeof jsQRModule.default;
const CORPUS = join(import.meta.dirname, '..', '..', 'shared', 'corpus', 'jsqr-e2e');

interface Item {
  /** The photo's folder name. */
  name: string;
  frame: Frame;
  /** output.json (stock jsQR's text), else the ZXing-C++ label, else null (nobody reads it). */
  expected: string | null;
  /**
   * A binary payload (../shared/corpus/README.md): judged by these bytes, not by a text (output.json's
   * `binaryData` where its `data` is empty, or a label's `bytes` where it says `binary: true`).
   */
  bytes?: Uint8Array;
  /** Labelled by ZXing-C++ only (stock jsQR reads nothing). */
  zxingOnly?: boolean;
}

/** What a decoder read: its text and payload bytes (null: nothing). */
interface Read {
  text: string | null;
  bytes: Uint8Array | null;
}

const sameBytes = (a: Uint8Array | null, b: ArrayLike<number>) =>
  a !== null && a.length === b.length && a.every((x, i) => x === b[i]);

/** Whether `r` is the item's label: its bytes for a binary payload, else its text. */
export function readsLabel(it: Item, r: Read): boolean {
  if (it.expected === null) return false;
  return it.bytes ? sameBytes(r.bytes, it.bytes) : r.text === it.expected;
}

const CONTROL = [
  'NUL',
  'SOH',
  'STX',
  'ETX',
  'EOT',
  'ENQ',
  'ACK',
  'BEL',
  'BS',
  'HT',
  'LF',
  'VT',
  'FF',
  'CR',
  'SO',
  'SI',
  'DLE',
  'DC1',
  'DC2',
  'DC3',
  'DC4',
  'NAK',
  'SYN',
  'ETB',
  'CAN',
  'EM',
  'SUB',
  'ESC',
  'FS',
  'GS',
  'RS',
  'US',
];

/** A ZXing label as text: `<SOH>`-style control names, `<DEL>` and `<U+8E>` stand for those characters. */
export function labelText(label: string): string {
  return label.replace(/<([A-Z][A-Z0-9]{1,2}|U\+[0-9A-F]{2,6})>/g, (m, name: string) => {
    if (name.startsWith('U+')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name === 'DEL') return '\u007f';
    const i = CONTROL.indexOf(name);
    return i < 0 ? m : String.fromCharCode(i);
  });
}

export function loadCorpus(): Item[] {
  const labelsPath = join(CORPUS, '..', 'zxing-extra-labels.json');
  const labels = existsSync(labelsPath)
    ? (
        JSON.parse(readFileSync(labelsPath, 'utf8')) as {
          labels: Record<string, { data: string; binary?: boolean; bytes?: number[] }>;
        }
      ).labels
    : {};
  const items: Item[] = [];
  for (const d of readdirSync(CORPUS).sort((a, b) => Number(a) - Number(b))) {
    const png = join(CORPUS, d, 'input.png');
    if (!existsSync(png)) continue;
    const img = PNG.sync.read(readFileSync(png));
    const out = JSON.parse(readFileSync(join(CORPUS, d, 'output.json'), 'utf8')) as {
      data: string;
      binaryData?: number[];
    } | null;
    const data = new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.length);
    const label = labels[d] ? labelText(labels[d].data) : null;
    const bytes =
      out && out.data === '' && out.binaryData
        ? out.binaryData
        : !out && labels[d]?.binary && labels[d].bytes
          ? labels[d].bytes
          : undefined;
    items.push({
      name: d,
      frame: { width: img.width, height: img.height, format: 'rgba', data },
      expected: out ? out.data : label,
      ...(bytes ? { bytes: Uint8Array.from(bytes) } : {}),
      zxingOnly: !out && label !== null,
    });
  }
  return items;
}

/** Still mode over the corpus; `reads`: what it read of each item, in order. */
export function corpusFigures(items: Item[], Decoder: typeof CameraDecoder = CameraDecoder, ourJsQR?: JsQR) {
  const reads: Read[] = [];
  let ours = 0;
  let oursZxing = 0;
  let wrong = 0;
  let unlabelled = 0;
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
    if (r && readsLabel(it, { text: r.data, bytes: Uint8Array.from(r.binaryData) })) stock++;
    t = performance.now();
    const dec = new Decoder({ mode: 'still', jsQR: ourJsQR });
    const text = dec.decode(f);
    oursMs += performance.now() - t;
    reads.push({ text, bytes: dec.bytes });
    if (readsLabel(it, { text, bytes: dec.bytes })) {
      ours++;
      if (it.zxingOnly) oursZxing++;
    } else if (text !== null) {
      if (it.expected !== null) wrong++;
      else unlabelled++;
    }
  }
  const figures = {
    qr_corpus_labelled: items.filter((it) => it.expected !== null).length,
    qr_corpus_decoded: ours,
    qr_corpus_decoded_zxing_only: oursZxing,
    qr_corpus_wrong_text: wrong,
    qr_corpus_unlabelled_reads: unlabelled,
    qr_corpus_ms_per_image: oursMs / items.length,
    qr_corpus_decoded_stock_jsqr: stock,
    qr_corpus_ms_per_image_stock_jsqr: stockMs / items.length,
  };
  return { figures, reads };
}

/**
 * The device's reads beside the host's, labelled photo by photo: the same payload bytes, or not; and of
 * those with the same bytes, the texts that differ (Kanji and Hanzi segments: the device has no Shift_JIS
 * or GB 2312 table and gives U+FFFD a character). Each photo read differently is named on stderr.
 */
export function deviceVersusHost(items: Item[], host: Read[], device: Read[]): Record<string, number> {
  let sameBytesDiffText = 0;
  let differ = 0;
  items.forEach((it, i) => {
    if (it.expected === null) return;
    const h = host[i];
    const d = device[i];
    const same = h.bytes === null ? d.bytes === null : sameBytes(d.bytes, h.bytes);
    if (!same) {
      differ++;
      process.stderr.write(`input bench: ${it.name}: the device's bytes are not the host's\n`);
    } else if (h.text !== d.text) sameBytesDiffText++;
  });
  return {
    qr_corpus_firmware_bytes_differ_from_host: differ,
    qr_corpus_firmware_text_without_table: sameBytesDiffText,
  };
}

function keyboardReports(): Uint8Array[] {
  // "SPH1:" then 159 digits/letters, Enter: press and release reports, US layout.
  const reps: Uint8Array[] = [];
  const press = (mod: number, u: number) => {
    reps.push(new Uint8Array([mod, 0, u, 0, 0, 0, 0, 0]));
    reps.push(new Uint8Array(8));
  };
  for (const [m, u] of [
    [2, 0x16],
    [2, 0x13],
    [2, 0x0b],
    [0, 0x1e],
    [2, 0x33],
  ])
    press(m, u);
  for (let i = 0; i < 159; i++) press(i % 2 ? 2 : 0, i % 2 ? 0x04 + (i % 26) : 0x1e + (i % 10));
  press(0, 0x28);
  return reps;
}

/** A 640×480 grey frame with the QR code of `text`, `px` pixels a module, at (x, y). */
function qrFrame(text: string, x: number, y: number, px: number): Uint8Array {
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const n = qr.modules.size;
  const data = new Uint8Array(640 * 480).fill(170);
  for (let j = 0; j < (n + 8) * px; j++) {
    for (let i = 0; i < (n + 8) * px; i++) {
      const mx = Math.floor(i / px) - 4;
      const my = Math.floor(j / px) - 4;
      const on = mx >= 0 && my >= 0 && mx < n && my < n && qr.modules.get(my, mx);
      data[(y + j) * 640 + x + i] = on ? 30 : 225;
    }
  }
  return data;
}

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

const stockJsQRPath = createRequire(import.meta.url).resolve('jsqr');
/** 'jsqr' as the firmware bundles it; 'jsqr-stock' the package as published. */
const jsqrAsFirmware: Plugin = {
  name: 'jsqr-as-firmware',
  setup(b) {
    b.onResolve({ filter: /^jsqr-stock$/ }, () => ({ path: stockJsQRPath, namespace: 'jsqr-stock' }));
    b.onLoad({ filter: /.*/, namespace: 'jsqr-stock' }, (a) => ({
      contents: readFileSync(a.path, 'utf8'),
      loader: 'js',
    }));
  },
};

// The camera path in QuickJS and QuickJS-ng (the device's engine class, no JIT): camera.ts bundled as the firmware
// bundles it (jsQR from its vendored source, firmware/jsqr/), 640×480 grey frames handed over as ArrayBuffers; stock jsQR
// for comparison.
export async function quickjsFigures(ng: boolean): Promise<Record<string, number>> {
  const entry = `
    import { CameraDecoder } from './src/input/camera.ts';
    import jsQRModule from 'jsqr-stock';
    const jsQR = jsQRModule.default || jsQRModule;
    let cam = new CameraDecoder();
    const frame = (buf) => ({ width: 640, height: 480, format: 'y8', data: new Uint8Array(buf) });
    // Cold: a fresh decoder (no region, no buffers, no locator state), as after a boot; the same decoder
    // with its last region forgotten is coldSame (what this figure measured before 4 Dec).
    globalThis.cold = (buf) => { cam = new CameraDecoder(); return cam.decode(frame(buf)); };
    globalThis.coldSame = (buf) => { cam.last = null; return cam.decode(frame(buf)); };
    globalThis.warm = (buf) => cam.decode(frame(buf));
    // The last-region path alone (the locator would find the code first); throws unless one jsQR run read it.
    globalThis.region = (buf) => {
      cam.useLocator = false;
      try { const t = cam.decode(frame(buf)); if (cam.attempts !== 1) throw new Error('region path took ' + cam.attempts + ' runs'); return t; }
      finally { cam.useLocator = true; }
    };
    globalThis.fresh = () => { cam = new CameraDecoder(); return 1; };
    globalThis.stock = (buf) => {
      const g = new Uint8Array(buf);
      const rgba = new Uint8ClampedArray(640 * 480 * 4);
      for (let i = 0; i < g.length; i++) { rgba[4 * i] = rgba[4 * i + 1] = rgba[4 * i + 2] = g[i]; rgba[4 * i + 3] = 255; }
      globalThis.RGBA = rgba;
      return 1;
    };
    globalThis.stockDecode = () => { const r = jsQR(globalThis.RGBA, 640, 480, { inversionAttempts: 'attemptBoth' }); return r && r.data; };
  `;
  const out = await build({
    stdin: { contents: entry, resolveDir: ROOT, loader: 'js' },
    ...FIRMWARE_ESBUILD,
    write: false,
    plugins: [jsqrAsFirmware, slim],
  });
  const QuickJS = ng
    ? await newQuickJSWASMModuleFromVariant(import('@jitl/quickjs-ng-wasmfile-release-sync') as never)
    : await getQuickJS();
  const vm = QuickJS.newContext();
  const run = evaluator(vm);
  const setFrame = (d: Uint8Array) => {
    const h = vm.newArrayBuffer(d.slice().buffer);
    vm.setProp(vm.global, 'FRAME', h);
    h.dispose();
  };
  // CPU time of this thread (QuickJS runs synchronously here): steadier than wall time on a busy machine.
  const timed = (expr: string, expect: unknown) => {
    const t = process.cpuUsage();
    const v = run(expr);
    const d = process.cpuUsage(t);
    const ms = (d.user + d.system) / 1000;
    if (v !== expect) throw new Error(`QuickJS ${expr}: ${String(v).slice(0, 40)}`);
    return ms;
  };
  run(out.outputFiles[0].text);
  const code = loadVectors().vectors[0].code;
  const cold: number[] = [];
  const coldSame: number[] = [];
  const warm: number[] = [];
  const region: number[] = [];
  const blank: number[] = [];
  const stock: number[] = [];
  const places = [
    [180, 90],
    [40, 30],
    [330, 200],
    [97, 151],
    [251, 13],
  ];
  for (const [x, y] of places) {
    setFrame(qrFrame(code, x, y, 4));
    coldSame.push(timed('coldSame(FRAME)', code));
    cold.push(timed('cold(FRAME)', code));
    warm.push(timed('warm(FRAME)', code));
    region.push(timed('region(FRAME)', code));
    if (stock.length < 3) {
      run('stock(FRAME)');
      stock.push(timed('stockDecode()', code));
    }
  }
  // Idle frames (no code) on a fresh decoder: a whole-frame fallback runs on one frame in four, cycling
  // through its 4 plans (shrunk / full size, normal / inverted), so 16 frames hold each plan once.
  run('fresh()');
  setFrame(new Uint8Array(640 * 480).fill(128));
  for (let i = 0; i < 16; i++) blank.push(timed('warm(FRAME)', null));
  vm.dispose();
  const p = ng ? 'qjs_ng_camera_640x480_ms' : 'qjs_camera_640x480_ms';
  return {
    [`${p}_cold`]: median(cold),
    [`${p}_cold_same_decoder`]: median(coldSame),
    // A frame of a code seen in the previous frame: the locator and its crop (what the device runs).
    [`${p}_warm`]: median(warm),
    [`${p}_region`]: median(region),
    // The median idle frame (the locator only) and the mean one including its share of fallbacks.
    [`${p}_no_code`]: median(blank),
    [`${p}_idle_mean`]: blank.reduce((a, b) => a + b, 0) / blank.length,
    [`${p}_stock_jsqr`]: median(stock),
    [`${p}_cold_ratio_vs_stock`]: median(cold) / median(stock),
  };
}

/**
 * Stream mode on 300 seeded degraded frames (test/input/degraded.ts): of the frames stock jsQR reads
 * whole (RGBA, attemptBoth), the share a fresh stream decoder reads in its first frame (Node: the
 * decoder's choices do not depend on the engine).
 */
export function firstFrameFigures(Decoder: typeof CameraDecoder = CameraDecoder): Record<string, number> {
  const codes = loadVectors()
    .vectors.map((v) => v.code)
    .filter((c) => c.startsWith('SPH1:') && c.length === 164)
    .slice(0, 8);
  let stock = 0;
  let first = 0;
  let within3 = 0;
  for (const { frame, text } of degradedFrames(codes, 300)) {
    const rgba = new Uint8ClampedArray(frame.width * frame.height * 4);
    for (let p = 0; p < frame.width * frame.height; p++) {
      rgba[4 * p] = rgba[4 * p + 1] = rgba[4 * p + 2] = frame.data[p];
      rgba[4 * p + 3] = 255;
    }
    const r = jsQR(rgba, frame.width, frame.height, { inversionAttempts: 'attemptBoth' });
    if (!r || r.data !== text) continue;
    stock++;
    const cam = new Decoder();
    for (let k = 0; k < 3; k++) {
      if (cam.decode(frame) === text) {
        if (k === 0) first++;
        within3++;
        break;
      }
    }
  }
  return {
    camera_degraded_frames: 300,
    camera_degraded_stock_jsqr: stock,
    camera_first_frame_rate: first / stock,
    camera_within_3_frames_rate: within3 / stock,
  };
}

/** camera.ts with jsQR as the firmware bundles it (firmware/jsqr/), loaded in Node: the device's decoder. */
export async function bundledCameraDecoder(): Promise<typeof CameraDecoder> {
  const out = await build({
    stdin: { contents: "export { CameraDecoder } from './src/input/camera.ts';", resolveDir: ROOT, loader: 'js' },
    ...FIRMWARE_ESBUILD,
    format: 'esm',
    write: false,
    plugins: [slim],
  });
  const url = 'data:text/javascript;base64,' + Buffer.from(out.outputFiles[0].text).toString('base64');
  return ((await import(url)) as { CameraDecoder: typeof CameraDecoder }).CameraDecoder;
}

/**
 * The photo corpus lives beside the repository (../shared/corpus), not in it: without it, no corpus figures.
 * Still mode as the host runs it (`saphir decode`: the firmware's jsQR, firmware/jsqr/, with Node's
 * Shift_JIS and GB 2312 text: host/jsqr.ts), and as the device reads (`_firmware`: camera.ts and
 * jsQR bundled as the firmware bundles them, without those tables: U+FFFD for Kanji and Hanzi text).
 */
async function corpusFiguresWhenPresent(Decoder: typeof CameraDecoder): Promise<Record<string, number>> {
  if (existsSync(CORPUS)) {
    const items = loadCorpus();
    const fw = corpusFigures(items, Decoder);
    const host = corpusFigures(items, CameraDecoder, await hostJsQR());
    return {
      ...host.figures,
      qr_corpus_decoded_firmware: fw.figures.qr_corpus_decoded,
      qr_corpus_wrong_text_firmware: fw.figures.qr_corpus_wrong_text,
      ...deviceVersusHost(items, host.reads, fw.reads),
    };
  }
  process.stderr.write(`input bench: no photo corpus at ${CORPUS}; the camera corpus figures are left out\n`);
  return {};
}

export default async function (): Promise<Record<string, number>> {
  const Decoder = await bundledCameraDecoder();
  const figures: Record<string, number> = {
    ...(await corpusFiguresWhenPresent(Decoder)),
    ...firstFrameFigures(Decoder),
    ...(await quickjsFigures(false)),
    ...(await quickjsFigures(true)),
  };

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

  const line =
    'SPH1:' + 'X5055AW62KS0F00*DGAQMB9D1F6S90B5TYKPUX5UMGSTU5:KP7017EXQLMKDZYB'.repeat(3).slice(0, 159) + '\r\n';
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
