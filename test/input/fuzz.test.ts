// Random input never throws, and nothing inside a decoder grows without bound.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { KeyboardWedgeDecoder } from '../../src/input/keyboard.ts';
import { HidPosDecoder } from '../../src/input/hid-pos.ts';
import { SerialDecoder } from '../../src/input/serial.ts';
import { CameraDecoder } from '../../src/input/camera.ts';
import { parseHexReports } from '../../src/input/capture.ts';
import type { InputEvent } from '../../src/input/event.ts';

const MAX = 64;
const step = fc.tuple(fc.uint8Array({ minLength: 0, maxLength: 70 }), fc.integer({ min: 0, max: 3000 }), fc.boolean());

function drive(
  d: { push(b: Uint8Array, t: number): void; tick(t: number): void; read(): InputEvent | undefined },
  steps: [Uint8Array, number, boolean][],
) {
  let t = 0;
  for (const [bytes, dt, readNow] of steps) {
    t += dt;
    d.push(bytes, t);
    if (readNow) d.tick(t);
    if (readNow) for (let e = d.read(); e; e = d.read()) assertBounded(e);
  }
  let n = 0;
  for (let e = d.read(); e; e = d.read()) {
    assertBounded(e);
    n++;
  }
  assert.ok(n <= 32, 'queue bounded');
}

function assertBounded(e: InputEvent) {
  const s = e.type === 'code' ? e.text : e.partial;
  assert.ok(s.length <= MAX, `event of ${s.length} characters`);
}

const params = { numRuns: 300 };

test('keyboard wedge: random reports (all layouts)', () => {
  for (const layout of ['us', 'fr', 'auto'] as const) {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) =>
        drive(new KeyboardWedgeDecoder({ layout, maxLength: MAX }), steps),
      ),
      params,
    );
  }
  // Reports made of plausible usages, so that codes actually form.
  const report = fc.tuple(
    fc.integer({ min: 0, max: 255 }),
    fc.array(fc.integer({ min: 0, max: 0x65 }), { maxLength: 6 }),
  );
  fc.assert(
    fc.property(fc.array(report, { maxLength: 400 }), (rs) => {
      const steps = rs.map(
        ([m, keys]) => [Uint8Array.from([m, 0, ...keys]), 5, false] as [Uint8Array, number, boolean],
      );
      drive(new KeyboardWedgeDecoder({ layout: 'auto', maxLength: MAX }), steps);
    }),
    params,
  );
});

test('HID POS: random reports, and 64-byte reports with random fields', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 80 }), (steps) => drive(new HidPosDecoder({ maxLength: MAX }), steps)),
    params,
  );
  const pos = fc.uint8Array({ minLength: 64, maxLength: 64 }).map((r) => {
    r[0] = 2;
    r[1] %= 60;
    return r;
  });
  fc.assert(
    fc.property(fc.array(pos, { maxLength: 60 }), (rs) =>
      drive(
        new HidPosDecoder({ maxLength: MAX }),
        rs.map((r) => [r, 10, false]),
      ),
    ),
    params,
  );
});

test('serial: random bytes, with and without ACK', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 80 }), fc.boolean(), (steps, ack) => {
      const d = new SerialDecoder({ maxLength: MAX, ack, prefix: '>', suffix: '<' });
      drive(d, steps);
      const r = d.reply();
      assert.ok(!r || r.length <= 64);
    }),
    params,
  );
});

test('camera: random and malformed frames give null, never an exception', () => {
  const cam = new CameraDecoder();
  fc.assert(
    fc.property(
      fc.integer({ min: -2, max: 70 }),
      fc.integer({ min: -2, max: 70 }),
      fc.constantFrom('y8', 'rgba', 'bogus'),
      fc.uint8Array({ maxLength: 70 * 70 * 4 }),
      (width, height, format, data) => {
        const r = cam.decode({ width, height, format: format as 'y8', data });
        assert.ok(r === null || typeof r === 'string');
      },
    ),
    { numRuns: 150 },
  );
});

test('camera: frames of random dark and light blocks (finder-like runs) in both modes', () => {
  const still = new CameraDecoder({ mode: 'still', inverted: false, fullSizeFallback: false });
  const stream = new CameraDecoder({ fallbackEvery: 1 });
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 6 }),
      fc.uint8Array({ minLength: 40 * 30, maxLength: 40 * 30 }),
      (px, cells) => {
        const width = 40 * px;
        const height = 30 * px;
        const data = new Uint8Array(width * height);
        for (let y = 0; y < height; y++)
          for (let x = 0; x < width; x++)
            data[y * width + x] = cells[Math.floor(y / px) * 40 + Math.floor(x / px)] & 0x80 ? 20 : 230;
        const f = { width, height, format: 'y8' as const, data };
        for (const cam of [still, stream]) {
          const r = cam.decode(f);
          assert.ok(r === null || typeof r === 'string');
        }
      },
    ),
    { numRuns: 40 },
  );
});

test('capture parser: random text', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 400 }), (s) => {
      const c = parseHexReports(s);
      assert.ok(c.reports.every((r) => r.length <= 1024));
    }),
    params,
  );
});

test.run();
