// The camera path of the real bundle in QuickJS: a 640×480 grey frame holding a ticket's QR code gives
// its verdict; the same ticket still in view is not scanned again; a frame without a code does nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boot, chipWith, flat, showFrame, ticket } from './harness.ts';
import { qrFrame } from '../input/helpers.ts';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import { JSQR_PHOTOS, LONG, ROOT, loadVectors, longTest } from '../helpers.ts';
import { degradedFrames } from '../input/degraded.ts';
import { JSQR_SOURCE } from '../../tools/build.ts';
import { versionAt } from '../../firmware/jsqr/decoder/version.ts';
import { VERSIONS } from './jsqr-versions.ts';

type JsQR = typeof import('jsqr').default;
const require = createRequire(import.meta.url);
const stockPath = require.resolve('jsqr');
const stockJsQR = require(stockPath) as JsQR & { default?: JsQR };
const stock = (stockJsQR.default || stockJsQR) as JsQR;
/** jsQR as the firmware bundles it: the vendored source in firmware/jsqr/ (a path tsc does not follow: its own settings). */
async function firmwareJsQR(): Promise<JsQR> {
  return ((await import(pathToFileURL(JSQR_SOURCE).href)) as { default: JsQR }).default;
}

test('camera: a VGA frame with a ticket QR code → verdict, once per ticket in view', async () => {
  const sim = await boot(chipWith());
  try {
    assert.is(sim.periph!.opened('camera'), 1);
    const code = ticket({ number: 21, prizeEur: 150 });
    await showFrame(sim, qrFrame(code));
    assert.match(flat(sim.screen), /^GAGNANT .* 150 €$/);
    await sim.press('C');
    await showFrame(sim, qrFrame(code, { x: 60 }));
    assert.match(flat(sim.screen), /annulé/, 'the same code still in view is not a new scan');
    await sim.run(5000);
    await showFrame(sim, qrFrame(ticket({ number: 22 }), { x: 200, y: 100 }));
    assert.match(flat(sim.screen), /^PERDANT/);
    await sim.press('OK');
    await showFrame(sim, { width: 640, height: 480, format: 'y8', data: new Uint8Array(640 * 480).fill(128) });
    assert.match(flat(sim.screen), /PRÊT/);
    await showFrame(sim, { width: 640, height: 480, format: 'y8', data: new Uint8Array(10) });
    assert.match(flat(sim.screen), /PRÊT/, 'a malformed frame is ignored');
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
});

test('camera on QuickJS-ng: a frame gives its verdict and 12 more keep the heap flat', async () => {
  const sim = await boot(chipWith(), { variant: 'quickjs-ng' });
  try {
    const samples: number[] = [];
    for (let i = 0; i < 13; i++) {
      await sim.run(4000);
      await showFrame(sim, qrFrame(ticket({ number: 400 + (i % 3) }), { x: 40 + (i % 3) * 90, y: 30 + (i % 2) * 70 }));
      assert.match(flat(sim.screen), /^PERDANT/, `frame ${i}: ${flat(sim.screen)} ${JSON.stringify(sim.faults)}`);
      await sim.press('C');
      if (i >= 3) samples.push(sim.heapUsed());
    }
    const grown = Math.max(...samples.slice(-3)) - Math.max(...samples.slice(0, 3));
    assert.ok(grown < 32 * 1024, `heap grew by ${grown} bytes: ${samples.join(', ')}`);
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
});

longTest('the vendored jsQR of the bundle reads exactly what stock jsQR reads: text and corners', async () => {
  const vendored = await firmwareJsQR();
  // What stock jsQR reads, the vendored copy reads the same; where stock reads nothing, the vendored
  // copy may read the code's own text (its changes that read more), nothing else.
  const same = (rgba: Uint8ClampedArray, w: number, h: number, what: string, expected?: string) => {
    const opts = { inversionAttempts: 'attemptBoth' } as const;
    const a = stock(rgba, w, h, opts);
    const b = vendored(rgba, w, h, opts);
    if (a === null && b !== null) {
      assert.is(b.data, expected, `${what}: read by the vendored copy only`);
      return false;
    }
    // Kanji-mode text differs by design: the bundle drops jsQR's Shift-JIS table (SPH1 is alphanumeric).
    const kanji = a !== null && /[^\u0000-\u00ff]/.test(a.data);
    const view = (r: typeof a) => r && { data: kanji ? '' : r.data, location: r.location };
    assert.equal(view(b), view(a), what);
    return a !== null;
  };
  let read = 0;
  let tried = 0;
  // Photos of the jsQR corpus kept in test/fixtures (the whole corpus is for `npm run bench`).
  for (const dir of JSQR_PHOTOS) {
    const png = PNG.sync.read(readFileSync(join(dir, 'input.png')));
    tried++;
    if (same(new Uint8ClampedArray(png.data), png.width, png.height, dir)) read++;
  }
  assert.ok(read > tried / 2, `${read} of ${tried} read`);
  // Crops of grey frames as the camera path hands them over: odd sizes (jsQR reads past the row and
  // image ends when a side is not a multiple of 8), small and large modules, some noise.
  const code = ticket({ number: 7, prizeEur: 150 });
  let crops = 0;
  let greyRead = 0;
  for (let i = 0; i < 40; i++) {
    const [w, h, px] = [60 + ((i * 37) % 200), 60 + ((i * 53) % 190), 1 + (i % 4)];
    const f = qrFrame(i % 2 ? code : `SPH1:TEST${i * 7919}`, { width: w, height: h, x: i % 9, y: i % 7, px });
    const rgba = new Uint8ClampedArray(w * h * 4);
    for (let p = 0; p < w * h; p++)
      rgba[4 * p] = rgba[4 * p + 1] = rgba[4 * p + 2] = f.data[p] + ((p * 2654435761) >>> 28) - 8;
    if (same(rgba, w, h, `crop ${i}: ${w}×${h} ${px} px`, i % 2 ? code : `SPH1:TEST${i * 7919}`)) crops++;
    // The camera hands the crop over grey (jsQR.grey): the same reading as the RGBA with r = g = b.
    const grey = new Uint8Array(w * h);
    for (let p = 0; p < w * h; p++) grey[p] = rgba[4 * p];
    const viaGrey = (vendored as unknown as { grey: (g: Uint8Array, w: number, h: number) => unknown }).grey(
      grey,
      w,
      h,
    );
    const viaRgba = vendored(rgba, w, h, { inversionAttempts: 'dontInvert' });
    assert.equal(viaGrey, viaRgba, `crop ${i}: grey as RGBA`);
    if (viaGrey) greyRead++;
  }
  assert.ok(crops > 20, `${crops} of 40 crops read`);
  assert.ok(greyRead > 20, `${greyRead} of 40 crops read grey`);
  // Whole degraded frames (blur, noise, tilt): many alignment-pattern candidates near the expected place.
  const codes = loadVectors()
    .vectors.filter((v) => v.code.startsWith('SPH1:') && v.code.length === 164)
    .map((v) => v.code)
    .slice(0, 8);
  let frames = 0;
  // Frames 2, 10 and 11, which stock jsQR reads none of, cost ~1 s each: the long tier only.
  const sample = (i: number) => LONG || ![2, 10, 11].includes(i);
  for (const [i, { frame, text }] of degradedFrames(codes, 13).entries()) {
    if (!sample(i)) continue;
    const rgba = new Uint8ClampedArray(frame.width * frame.height * 4);
    for (let p = 0; p < frame.width * frame.height; p++) {
      rgba[4 * p] = rgba[4 * p + 1] = rgba[4 * p + 2] = frame.data[p];
      rgba[4 * p + 3] = 255;
    }
    if (same(rgba, frame.width, frame.height, `degraded frame ${i}`, text)) frames++;
  }
  assert.ok(frames >= 6, `${frames} of ${LONG ? 13 : 10} degraded frames read`);
});

test('the vendored jsQR reads a torn code stock jsQR cannot: its alignment pattern where the finder patterns put it', async () => {
  const vendored = await firmwareJsQR();
  const dir = join(ROOT, 'test', 'fixtures', 'jsqr', 'damaged');
  const label = JSON.parse(readFileSync(join(dir, 'label.json'), 'utf8'));
  const png = PNG.sync.read(readFileSync(join(dir, 'input.png')));
  const rgba = new Uint8ClampedArray(png.data);
  assert.is(stock(rgba, png.width, png.height), null);
  assert.is(vendored(rgba, png.width, png.height)?.data, label.data);
});

test('the vendored jsQR trying harder reads a painted version 1 code: another finder group, its fourth corner moved', async () => {
  const vendored = await firmwareJsQR();
  const dir = join(ROOT, 'test', 'fixtures', 'jsqr', 'sidewalk');
  const label = JSON.parse(readFileSync(join(dir, 'label.json'), 'utf8'));
  const png = PNG.sync.read(readFileSync(join(dir, 'input.png')));
  const rgba = new Uint8ClampedArray(png.data);
  assert.is(stock(rgba, png.width, png.height), null);
  assert.is(vendored(rgba, png.width, png.height), null, 'not asked to try harder: as stock jsQR');
  const harder = { tryHarder: true } as Parameters<JsQR>[3];
  assert.is(vendored(rgba, png.width, png.height, harder)?.data, label.data);
});

/** Decoded frames of the heap soak below: 60 in the long tier (camera.long.ts), 30 in npm test. */
const SOAK = LONG ? 60 : 30;

test(`camera: ${SOAK} decoded frames keep the VM heap flat`, async () => {
  const sim = await boot(chipWith());
  try {
    const codes = Array.from({ length: 6 }, (_, i) => ticket({ number: 300 + i, prizeEur: i % 2 ? 150 : 0 }));
    const frames = codes.map((c, i) => qrFrame(c, { x: 40 + (i % 3) * 8, y: 30 + (i % 2) * 6 }));
    const samples: number[] = [];
    for (let i = 0; i < SOAK; i++) {
      await sim.run(4000);
      const before = sim.screens.length;
      await showFrame(sim, frames[i % frames.length]);
      assert.ok(sim.screens.length > before, `frame ${i} gave no verdict`);
      await sim.press('C');
      // (every 2nd frame in npm test: its first three and last three samples do not overlap)
      if (i >= 10 && i % (LONG ? 5 : 2) === 0) samples.push(sim.heapUsed());
    }
    // Before the fix each decoded frame left ~60 KB of cyclic garbage (jsQR's Reed-Solomon field).
    const grown = Math.max(...samples.slice(-3)) - Math.max(...samples.slice(0, 3));
    assert.ok(grown < 32 * 1024, `heap grew by ${grown} bytes over ${SOAK - 10} frames: ${samples.join(', ')}`);
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
});

test("jsQR version table: every version built from the packed table is jsQR 1.4.0's own", () => {
  assert.is(VERSIONS.length, 40);
  for (let v = 1; v <= 40; v++) assert.equal(versionAt(v), VERSIONS[v - 1], `version ${v}`);
  for (const v of [0, -1, 41, NaN]) assert.is(versionAt(v), undefined, `version ${v}`);
});

test.run();
