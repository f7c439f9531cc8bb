import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { CameraDecoder } from '../../src/input/camera.ts';
import type { Frame } from '../../src/hal.ts';
import { SHARED, loadVectors } from '../helpers.ts';
import { qrFrame } from './helpers.ts';

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

test('the region of the last code is tried first, and a moved code is still found', () => {
  const cam = new CameraDecoder();
  assert.is(cam.decode(qrFrame(code, { x: 300, y: 150 })), code);
  const first = cam.last!;
  assert.is(cam.decode(qrFrame(code, { x: 306, y: 147 })), code);
  assert.is(cam.attempts, 1);
  assert.ok(Math.abs(cam.last!.x0 - first.x0 - 6) <= 3);
  assert.is(cam.decode(qrFrame(code, { x: 20, y: 20 })), code);
  assert.ok(cam.attempts > 1);
  assert.is(cam.decode({ width: 640, height: 480, format: 'y8', data: new Uint8Array(640 * 480).fill(128) }), null);
  assert.is(cam.last, null);
});

test('a light-on-dark code is read by the inverted fallback, and not when that is turned off', () => {
  const f = qrFrame(code, { invert: true, x: 100, y: 60 });
  assert.is(new CameraDecoder().decode(f), code);
  assert.is(new CameraDecoder({ inverted: false }).decode(f), null);
});

test('a small code in a large frame: read at full size when the shrunk frame is not enough', () => {
  const f = qrFrame(code, { width: 1280, height: 960, px: 2, x: 500, y: 400 });
  assert.is(new CameraDecoder().decode(f), code);
  assert.is(new CameraDecoder({ fullSizeFallback: false }).decode(f), null);
});

test('photos of the jsQR corpus decode to the reference text', () => {
  const cam = new CameraDecoder();
  for (const name of ['0', '1', '10', 'issue-59-inverted']) {
    const dir = join(SHARED, 'corpus', 'jsqr-e2e', name);
    const png = PNG.sync.read(readFileSync(join(dir, 'input.png')));
    const expected = JSON.parse(readFileSync(join(dir, 'output.json'), 'utf8'));
    const f: Frame = { width: png.width, height: png.height, format: 'rgba', data: new Uint8Array(png.data) };
    assert.is(cam.decode(f), expected.data, name);
  }
});

test.run();
