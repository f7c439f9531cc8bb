import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { CameraDecoder, FRAME_WORK, resampleInto } from '../../src/input/camera.ts';
import type { Frame } from '../../src/hal.ts';
import { JSQR_PHOTOS, LONG, ROOT, loadVectors } from '../helpers.ts';
import { qrFrame } from './helpers.ts';
import { degradedFrames } from './degraded.ts';
import { labelText, bundledCameraDecoder } from '../../bench/input.bench.ts';
import { hostJsQR } from '../../host/jsqr.ts';
import { FinderLocator } from '../../src/input/finder.ts';
import { makeRng } from '../../src/gen/index.ts';
import jsQRModule from 'jsqr';
import { renderQrFrame } from '../../hw-sim/scanners/camera.ts';
import { seededRng } from '../../hw-sim/rng.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';

const jsQR = ((jsQRModule as unknown as { default?: unknown }).default || jsQRModule) as typeof jsQRModule.default;

function toRgba(f: Frame): Frame {
  const out = new Uint8Array(f.width * f.height * 4);
  for (let i = 0; i < f.width * f.height; i++) {
    out[4 * i] = f.data[i];
    out[4 * i + 1] = f.data[i];
    out[4 * i + 2] = f.data[i];
    out[4 * i + 3] = 255;
  }
  return { ...f, format: 'rgba', data: out };
}

const code = loadVectors().vectors[0].code;

test('a real SPH1 code rendered with qrcode: 640×480 grey and RGBA', () => {
  const cam = new CameraDecoder();
  const f = qrFrame(code, { x: 200, y: 100 });
  assert.is(cam.decode(f), code);
  assert.ok(cam.last && cam.last.x0 >= 200 && cam.last.x1 <= 200 + 61 * 4 && cam.last.y0 >= 100);
  assert.is(new CameraDecoder().decode(toRgba(f)), code);
});

test('a moved code is found by the locator in one jsQR run; the last region is the fallback', () => {
  const cam = new CameraDecoder();
  assert.is(cam.decode(qrFrame(code, { x: 300, y: 150 })), code);
  const first = cam.last!;
  assert.is(cam.decode(qrFrame(code, { x: 20, y: 20 })), code);
  assert.is(cam.attempts, 1, 'a code that moved far costs no wasted try of the old region');
  assert.is(cam.decode(qrFrame(code, { x: 300, y: 150 })), code);
  // A locator that finds nothing (blur, glare): the region of the last code is read instead.
  (cam as unknown as { finder: { locate(): null } }).finder = { locate: () => null };
  assert.is(cam.decode(qrFrame(code, { x: 306, y: 147 })), code);
  assert.is(cam.attempts, 1);
  assert.ok(Math.abs(cam.last!.x0 - first.x0 - 6) <= 3);
  assert.is(cam.decode(qrFrame(code, { x: 20, y: 20 })), null, 'out of the region and not located');
  assert.is(cam.decode({ width: 640, height: 480, format: 'y8', data: new Uint8Array(640 * 480).fill(128) }), null);
  assert.is(cam.last, null);
});

test('still mode: a light-on-dark code is read by the inverted fallback, and not when that is off', () => {
  const f = qrFrame(code, { invert: true, x: 100, y: 60 });
  assert.is(new CameraDecoder({ mode: 'still' }).decode(f), code);
  assert.is(new CameraDecoder({ mode: 'still', inverted: false }).decode(f), null);
});

test('stream mode: one whole-frame fallback every N frames without a code, in turn', () => {
  const cam = new CameraDecoder({ fallbackEvery: 2 });
  const f = qrFrame(code, { invert: true, x: 100, y: 60 });
  const attempts: number[] = [];
  let text: string | null = null;
  for (let i = 0; i < 8 && text === null; i++) {
    text = cam.decode(f);
    attempts.push(cam.attempts);
  }
  // plans: shrunk, full size, shrunk inverted: found on the 6th frame
  assert.equal(attempts, [0, 1, 0, 1, 0, 1]);
  assert.is(text, code);
  const blank: Frame = { width: 640, height: 480, format: 'y8', data: new Uint8Array(640 * 480).fill(90) };
  const idle = new CameraDecoder();
  const costs = [1, 2, 3, 4, 5, 6, 7, 8].map(() => (idle.decode(blank), idle.attempts));
  assert.equal(costs, [0, 0, 0, 1, 0, 0, 0, 1]);
});

test('the finder locator puts a code anywhere in the frame into one jsQR run', () => {
  for (const px of [2, 3, 5]) {
    for (const [x, y] of [
      [0, 0],
      [640 - 61 * px, 480 - 61 * px],
      [123, 77],
    ]) {
      const cam = new CameraDecoder({ fallbackEvery: 1000 });
      assert.is(cam.decode(qrFrame(code, { x, y, px })), code, `${px} ${x} ${y}`);
      assert.is(cam.attempts, 1);
    }
  }
});

/** The degraded frames (of 29) stock jsQR reads whole: npm test checks these, the long tier finds them anew. */
const STOCK_READS = [0, 3, 4, 5, 6, 7, 8, 9, 12, 16, 18, 23, 24, 26, 27, 28];

test('degraded frames: the set is seeded; every frame stock jsQR reads whole is read in the first frame', () => {
  const codes = loadVectors()
    .vectors.filter((v) => v.code.startsWith('SPH1:') && v.code.length === 164)
    .map((v) => v.code)
    .slice(0, 8);
  const a = degradedFrames(codes, 29);
  // The set is drawn frame after frame: a shorter one is its beginning (the whole set twice: long tier).
  const b = degradedFrames(codes, LONG ? 29 : 2);
  assert.equal(
    a.slice(0, b.length).map((f) => f.d),
    b.map((f) => f.d),
  );
  const last = b.length - 1;
  assert.ok(Buffer.from(a[last].frame.data).equals(Buffer.from(b[last].frame.data)), 'same seed, same pixels');
  // Stock jsQR on the frames it cannot read is most of the cost (0.5–1 s each): npm test runs it on the
  // frames it reads, the long tier on all of them.
  const stockReads = (i: number) => {
    const { frame, text } = a[i];
    const r = jsQR(new Uint8ClampedArray(toRgba(frame).data), frame.width, frame.height, {
      inversionAttempts: 'attemptBoth',
    });
    return r !== null && r.data === text;
  };
  const stock = (LONG ? a.map((_, i) => i) : STOCK_READS).filter(stockReads);
  assert.equal(stock, STOCK_READS, 'the frames stock jsQR reads whole');
  for (const i of stock)
    assert.is(new CameraDecoder().decode(a[i].frame), a[i].text, `frame ${i}: stock jsQR reads it whole`);
  // Frames 3 and 4: the crop at ~2.2 pixels a module fails, the full-resolution one reads. Frame 7:
  // only the crop grown by two modules (jsQR's 8×8 block grid moved) reads.
  for (const [i, runs] of [
    [3, 2],
    [4, 2],
    [7, 3],
  ]) {
    const cam = new CameraDecoder();
    assert.is(cam.decode(a[i].frame), a[i].text, `frame ${i}`);
    assert.is(cam.attempts, runs, `frame ${i}: jsQR runs`);
  }
});

test('noise on a plain background shows the locator no finder pattern (no contrast, nothing dark)', () => {
  const rng = makeRng(new Uint8Array([9]));
  for (let k = 0; k < 6; k++) {
    const data = new Uint8Array(640 * 480);
    const sigma = 2 + k * 1.2; // up to the degraded set's 7.5 grey levels
    for (let p = 0; p < data.length; p++) {
      const n = Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
      data[p] = Math.max(0, Math.min(255, Math.round(100 + (p % 640) * 0.1 + n * sigma)));
    }
    const loc = new FinderLocator();
    assert.is(loc.locate({ width: 640, height: 480, format: 'y8', data }), null, `σ ${sigma}`);
    assert.is(loc.seen, 0, `σ ${sigma}: finder-like patterns in noise`);
  }
});

test('stream mode: a code the locator saw but no crop read gets the whole frame in the same frame, not twice in a row', () => {
  const cam = new CameraDecoder({ fallbackEvery: 1000 });
  // A locator that sees finder patterns but boxes the wrong place (a crop too small to read).
  (cam as unknown as { finder: unknown }).finder = {
    seen: 3,
    locate: () => ({ box: { x0: 0, y0: 0, x1: 60, y1: 60 }, module: 4 }),
  };
  const f = qrFrame(code, { x: 300, y: 150 });
  assert.is(cam.decode(f), code);
  assert.is(cam.attempts, 4, 'three crops, then the whole frame');
  const blank: Frame = { width: 640, height: 480, format: 'y8', data: new Uint8Array(640 * 480).fill(90) };
  cam.last = null;
  const runs = [1, 2, 3, 4].map(() => (cam.decode(blank), cam.attempts));
  assert.equal(runs, [4, 2, 4, 2], 'the whole-frame try every other frame');
});

test("stream mode bounds a frame's jsQR work: the noisy frames of explorer finding #35 stop at FRAME_WORK", async () => {
  // The finding's ticket and camera options (test/explore/findings/explore-bench-28544.yaml): a whole-frame
  // run took 10–20 million steps (1.6–1.8 s in QuickJS, past the VM watchdog). Counted work, not time.
  const Device = await bundledCameraDecoder();
  const text = ticketCode({ emission: 2, block: 2, number: 2298904, prize: 0 });
  const opts = { module: 3, blur: 0.24, noise: 0.28, perspective: 0.08, glare: 0.22 };
  const scans = [0, 1, 2, 3, 4, 5].map((s) => {
    const rng = seededRng(`#35:${s}`);
    return [0, 1, 2].map(() => renderQrFrame(text, opts, rng));
  });
  let stopped = 0;
  const read: number[] = [];
  for (const [s, frames] of scans.entries()) {
    const cam = new Device();
    for (const [k, f] of frames.entries()) {
      const got = cam.decode(f);
      assert.ok(cam.work.used <= FRAME_WORK + 1, `scan ${s} frame ${k}: ${cam.work.used} steps`);
      if (cam.work.used === FRAME_WORK + 1) {
        stopped++;
        assert.is(got, null, `scan ${s} frame ${k}: stopped by the bound, read nothing`);
      }
      if (got !== null) {
        assert.is(got, text);
        read.push(s);
        break;
      }
    }
  }
  assert.ok(stopped >= 3, `${stopped} frames stopped by the bound`);
  // What the bound costs: nothing here, the next frame's crops read the code (scan 4 reads in none).
  assert.equal(read, [0, 1, 2, 3, 5]);
  // Without it, the first frame of scan 0 alone takes several times the bound.
  const unbounded = new Device({ frameWork: Infinity });
  assert.is(unbounded.decode(scans[0][0]), null);
  assert.ok(unbounded.work.used > 5 * FRAME_WORK, `${unbounded.work.used} steps unbounded`);
});

test('stream mode: a normal frame reads well inside the bound; still mode has none', async () => {
  const Device = await bundledCameraDecoder();
  const text = ticketCode({ emission: 1, block: 1, number: 900, prize: 150 });
  for (const f of [qrFrame(text, { x: 30, y: 20 }), renderQrFrame(text, {}, seededRng('#35:clean'))]) {
    const cam = new Device();
    assert.is(cam.decode(f), text);
    assert.ok(cam.work.used > 0 && cam.work.used < FRAME_WORK / 10, `${cam.work.used} steps`);
  }
  const still = new Device({ mode: 'still', frameWork: 1 });
  assert.is(still.decode(qrFrame(text)), text);
  assert.is(still.work.limit, Infinity);
  assert.ok(still.work.used > 0, 'counted all the same');
});

test('still mode: a small code in a large, unevenly lit frame', () => {
  const f = qrFrame(code, { width: 1280, height: 960, px: 2, x: 500, y: 400 });
  f.data.fill(250, 0, 1280 * 300); // a bright band: no finder pattern there, but a different exposure
  assert.is(new CameraDecoder({ mode: 'still' }).decode(f), code);
});

test('photos of the jsQR corpus decode to the reference text', () => {
  const cam = new CameraDecoder({ mode: 'still' });
  for (const dir of JSQR_PHOTOS) {
    const name = dir;
    const png = PNG.sync.read(readFileSync(join(dir, 'input.png')));
    const expected = JSON.parse(readFileSync(join(dir, 'output.json'), 'utf8'));
    const f: Frame = { width: png.width, height: png.height, format: 'rgba', data: new Uint8Array(png.data) };
    assert.is(cam.decode(f), expected.data, name);
  }
});

test('still mode: a finely printed code that only a lighter shrink keeps (a ZXing-C++ label of the corpus)', () => {
  const dir = join(ROOT, 'test', 'fixtures', 'jsqr', 'school-flyer');
  const label = JSON.parse(readFileSync(join(dir, 'label.json'), 'utf8'));
  const png = PNG.sync.read(readFileSync(join(dir, 'input.png')));
  const f: Frame = { width: png.width, height: png.height, format: 'rgba', data: new Uint8Array(png.data) };
  assert.is(new CameraDecoder({ mode: 'still' }).decode(f), label.data);
});

test('still mode: a light red code on dark red is read in its brightest channel, inverted (a ZXing-C++ label)', () => {
  const dir = join(ROOT, 'test', 'fixtures', 'jsqr', 'issue-54-2');
  const label = JSON.parse(readFileSync(join(dir, 'label.json'), 'utf8'));
  const png = PNG.sync.read(readFileSync(join(dir, 'input.png')));
  const f: Frame = { width: png.width, height: png.height, format: 'rgba', data: new Uint8Array(png.data) };
  assert.is(new CameraDecoder({ mode: 'still' }).decode(f), label.data);
});

test('still mode: a small binary code is read at twice its size and judged by its bytes (a ZXing-C++ label)', () => {
  // 49 modules in about 135 pixels: jsQR reads it only resampled ×2. Its 160 bytes are not UTF-8: no text.
  const dir = join(ROOT, 'test', 'fixtures', 'jsqr', 'japan-visa');
  const label = JSON.parse(readFileSync(join(dir, 'label.json'), 'utf8')) as { binary: boolean; bytes: number[] };
  const png = PNG.sync.read(readFileSync(join(dir, 'input.png')));
  const f: Frame = { width: png.width, height: png.height, format: 'rgba', data: new Uint8Array(png.data) };
  const cam = new CameraDecoder({ mode: 'still' });
  assert.is(cam.decode(f), '');
  assert.ok(label.binary);
  assert.equal([...cam.bytes!], label.bytes);
  assert.is(new CameraDecoder({ mode: 'still', maxSide: 64 }).decode(f), null, 'not resampled: a large image');
  cam.decode({ width: 64, height: 64, format: 'y8', data: new Uint8Array(64 * 64).fill(200) });
  assert.is(cam.bytes, null, 'no code, no bytes');
});

test('Kanji mode (Shift_JIS): saphir decode gives the text, the device (no table) U+FFFD a character', async () => {
  const text = '石積籍績脊責赤跡';
  const f = qrFrame([
    { data: text, mode: 'kanji' },
    { data: ' SPH1', mode: 'alphanumeric' },
  ]);
  assert.is(new CameraDecoder({ mode: 'still', jsQR: await hostJsQR() }).decode(f), text + ' SPH1');
  const Device = await bundledCameraDecoder();
  const device = new Device({ mode: 'still' });
  assert.is(device.decode(f), '\uFFFD'.repeat(text.length) + ' SPH1');
  // The same payload bytes: only their text needs the table the device leaves out.
  const host = new CameraDecoder({ mode: 'still', jsQR: await hostJsQR() });
  host.decode(f);
  assert.equal(device.bytes, host.bytes);
  // The npm jsqr (its Shift-JIS table) reads the same text: the host's matches the reference.
  assert.is(new CameraDecoder({ mode: 'still' }).decode(f), text + ' SPH1');
});

test('Hanzi mode (GB/T 18284, mode 1101): the corpus photo 5, which stock jsQR cannot read (a ZXing-C++ label)', async () => {
  const dir = join(ROOT, 'test', 'fixtures', 'jsqr', '5');
  const label = labelText(JSON.parse(readFileSync(join(dir, 'label.json'), 'utf8')).data);
  const png = PNG.sync.read(readFileSync(join(dir, 'input.png')));
  const f: Frame = { width: png.width, height: png.height, format: 'rgba', data: new Uint8Array(png.data) };
  assert.is(new CameraDecoder({ mode: 'still' }).decode(f), null, 'stock jsQR');
  assert.is(new CameraDecoder({ mode: 'still', jsQR: await hostJsQR() }).decode(f), label);
  const Device = await bundledCameraDecoder();
  assert.is(new Device({ mode: 'still' }).decode(f), label.replace('阿', '\uFFFD'));
});

test('still mode tries harder: a painted version 1 code on a sidewalk (a ZXing-C++ label)', async () => {
  const dir = join(ROOT, 'test', 'fixtures', 'jsqr', 'sidewalk');
  const label = JSON.parse(readFileSync(join(dir, 'label.json'), 'utf8'));
  const png = PNG.sync.read(readFileSync(join(dir, 'input.png')));
  const f: Frame = { width: png.width, height: png.height, format: 'rgba', data: new Uint8Array(png.data) };
  const Device = await bundledCameraDecoder();
  assert.is(new Device({ mode: 'still' }).decode(f), label.data);
  assert.is(new CameraDecoder({ mode: 'still', jsQR: await hostJsQR() }).decode(f), label.data);
});

test('corpus labels: control names with a digit (<DC1>) and code points become their characters', () => {
  assert.is(labelText('a<DC1>b<SOH><U+8E><DEL><x>'), 'a\u0011b\u0001\u008e\u007f<x>');
});

test('crop resampling: within one grey level of exact bilinear sampling (truncated), at any step and offset', () => {
  const rng = makeRng(new Uint8Array([7, 1]));
  const W = 97;
  const H = 61;
  const data = new Uint8Array(W * H);
  for (let i = 0; i < data.length; i++) data[i] = Math.floor(rng.next() * 256);
  const f: Frame = { width: W, height: H, format: 'y8', data };
  for (let trial = 0; trial < 20; trial++) {
    const s = 1.25 + rng.next() * 3;
    const box = { x0: Math.floor(rng.next() * 20), y0: Math.floor(rng.next() * 10), x1: W, y1: H };
    const w = Math.floor((box.x1 - box.x0) / s);
    const h = Math.floor((box.y1 - box.y0) / s);
    const out = new Uint8Array(w * h);
    resampleInto(f, box, s, w, h, false, out, 1);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const fx = box.x0 + (x + 0.5) * s - 0.5;
        const fy = box.y0 + (y + 0.5) * s - 0.5;
        const x0 = Math.min(W - 2, Math.max(0, Math.floor(fx)));
        const y0 = Math.min(H - 2, Math.max(0, Math.floor(fy)));
        const tx = Math.min(1, Math.max(0, fx - x0));
        const ty = Math.min(1, Math.max(0, fy - y0));
        const at = (i: number, j: number) => data[j * W + i];
        const top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * tx;
        const bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * tx;
        const exact = Math.floor(top + (bottom - top) * ty);
        const got = out[y * w + x];
        if (Math.abs(got - exact) > 1) assert.unreachable(`(${x}, ${y}) step ${s}: ${got}, exact ${exact}`);
      }
    }
  }
  // Inverted: 255 − v of the same samples.
  const box = { x0: 3, y0: 2, x1: W, y1: H };
  const a = new Uint8Array(40 * 25);
  const b = new Uint8Array(40 * 25);
  resampleInto(f, box, 2.3, 40, 25, false, a, 1);
  resampleInto(f, box, 2.3, 40, 25, true, b, 1);
  for (let i = 0; i < a.length; i++) assert.is(b[i], 255 - a[i]);
});

test.run();
