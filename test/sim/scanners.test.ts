// Scanner models against the firmware's own decoders (src/input): what each model sends decodes back to
// the code, with the timing the model promises; the camera's frames are seeded and readable by jsQR.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import jsQRModule from 'jsqr';
import { KeyboardWedgeDecoder, HidPosDecoder, SerialDecoder, type InputEvent } from '../../src/input/index.ts';
import { transmit, ScannerOptionError, type Delivery, type Transmission } from '../../hw-sim/scanners/index.ts';
import { keystrokes } from '../../hw-sim/scanners/keyboard-wedge.ts';
import { posReports } from '../../hw-sim/scanners/hid-pos.ts';
import { serialBytes } from '../../hw-sim/scanners/serial.ts';
import { renderQrFrame } from '../../hw-sim/scanners/camera.ts';
import { seededRng } from '../../hw-sim/rng.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { checkCode } from '../../src/sph1/check.ts';
import { testKeyRing } from '../../src/sph1/keys.ts';
import { nodeVerify } from '../../tools/node-crypto.ts';
import { BASE45_ALPHABET } from '../../src/sph1/base45.ts';
import '../../hw-sim/node-host.ts';

// jsQR is CommonJS with `exports.default`.
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default || jsQRModule) as typeof jsQRModule.default;

const CODE = ticketCode({ emission: 1, block: 2, number: 3, prize: 500 });

function decodeAll(tx: Transmission, push: (d: Delivery) => void, read: () => InputEvent | undefined): InputEvent[] {
  const out: InputEvent[] = [];
  for (const d of tx.deliveries) {
    push(d);
    for (let e = read(); e; e = read()) out.push(e);
  }
  return out;
}

test('ticketCode: genuine with the test key, E_SIGNATURE when forged, the same fields give the same code', () => {
  const r = checkCode(CODE, { keys: testKeyRing(), verify: nodeVerify });
  assert.is(r.status, 'win');
  assert.is(r.prizeEur, 500);
  assert.equal([r.ticket!.emission, r.ticket!.block, r.ticket!.number], [1, 2, 3]);
  assert.is(ticketCode({ emission: 1, block: 2, number: 3, prize: 500 }), CODE);
  const forged = ticketCode({ emission: 1, block: 2, number: 3, prize: 500, key: 'other' });
  assert.is(checkCode(forged, { keys: testKeyRing(), verify: nodeVerify }).reason, 'E_SIGNATURE');
  assert.is(
    checkCode(ticketCode({ emission: 1, block: 2, number: 4, prize: 0 }), { keys: testKeyRing(), verify: nodeVerify })
      .status,
    'lose',
  );
  assert.throws(() => ticketCode({ emission: 1, block: 2, number: 3, prize: 20 }), /prize table/);
});

for (const layout of ['us', 'fr'] as const) {
  test(`keyboard wedge ${layout}: every base45 character and the code decode back`, () => {
    const text = 'SPH1:' + BASE45_ALPHABET;
    for (const code of [text, CODE]) {
      const tx = transmit('hid-keyboard', code, { layout }, seededRng(1));
      const dec = new KeyboardWedgeDecoder({ layout });
      const ev = decodeAll(
        tx,
        (d) => dec.push((d as { data: Uint8Array }).data, d.t),
        () => dec.read(),
      );
      assert.equal(ev, [{ type: 'code', text: code }]);
    }
  });
}

test('keyboard wedge: auto layout detection decodes fr and us; alt codes decode in both layouts', () => {
  for (const layout of ['us', 'fr', 'alt'] as const) {
    const tx = transmit('hid-keyboard', CODE, { layout }, seededRng(1));
    for (const decLayout of ['auto', 'us', 'fr'] as const) {
      if (layout !== 'alt' && decLayout !== 'auto') continue;
      const dec = new KeyboardWedgeDecoder({ layout: decLayout });
      const ev = decodeAll(
        tx,
        (d) => dec.push((d as { data: Uint8Array }).data, d.t),
        () => dec.read(),
      );
      assert.equal(ev, [{ type: 'code', text: CODE }], `${layout} → ${decLayout}`);
    }
  }
});

test('keyboard wedge: 8-byte reports, a release after each press, timing from the delay option', () => {
  const r = keystrokes('S', 'us');
  assert.equal(
    r.map((x) => [...x]),
    [
      [0x02, 0, 0x16, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 0],
    ],
  );
  assert.equal([...keystrokes('A', 'fr')[0]], [0x02, 0, 0x14, 0, 0, 0, 0, 0]);
  assert.equal([...keystrokes('1', 'fr')[0]], [0x02, 0, 0x1e, 0, 0, 0, 0, 0]);
  assert.equal([...keystrokes('1', 'us')[0]], [0, 0, 0x1e, 0, 0, 0, 0, 0]);
  // Alt+numpad: "S" is 83: Alt held for keypad 8 and 3, then everything released.
  assert.equal(
    keystrokes('S', 'alt').map((x) => [x[0], x[2]]),
    [
      [4, 0x60],
      [4, 0],
      [4, 0x5b],
      [4, 0],
      [0, 0],
    ],
  );
  const slow = transmit('hid-keyboard', CODE, { delay: 10 }, seededRng(1));
  const fast = transmit('hid-keyboard', CODE, { delay: 2 }, seededRng(1));
  assert.ok(Math.abs(slow.durationMs - 5 * fast.durationMs) < 10);
  assert.ok(fast.durationMs > 300, 'a wedge scanner takes over 300 ms for a code');
  for (let i = 1; i < fast.deliveries.length; i++) assert.ok(fast.deliveries[i].t >= fast.deliveries[i - 1].t);
  assert.throws(
    () => transmit('hid-keyboard', 'é', { layout: 'us' }, seededRng(1)),
    (e: unknown) => e instanceof ScannerOptionError,
  );
  assert.throws(() => transmit('hid-keyboard', CODE, { layout: 'de' }, seededRng(1)), /layout/);
});

test('HID POS: 64-byte reports, id 2, count, ]Q1, continuation bit; decodes back', () => {
  const bytes = new Uint8Array(CODE.length);
  for (let i = 0; i < CODE.length; i++) bytes[i] = CODE.charCodeAt(i);
  const reports = posReports(bytes);
  assert.is(reports.length, Math.ceil(CODE.length / 56));
  for (const [i, r] of reports.entries()) {
    assert.is(r.length, 64);
    assert.is(r[0], 2);
    assert.is(String.fromCharCode(r[2], r[3], r[4]), ']Q1');
    assert.is(r[63] & 1, i < reports.length - 1 ? 1 : 0);
  }
  assert.is(
    reports.reduce((a, r) => a + r[1], 0),
    CODE.length,
  );
  const tx = transmit('hid-pos', CODE, { interval: 4 }, seededRng(1));
  assert.is(tx.durationMs, 4 * (reports.length - 1));
  const dec = new HidPosDecoder();
  const ev = decodeAll(
    tx,
    (d) => dec.push((d as { data: Uint8Array }).data, d.t),
    () => dec.read(),
  );
  assert.equal(ev, [{ type: 'code', text: CODE }]);
});

test('serial: 10 bit times a byte, every terminator and the AIM prefix decode back; noise is seeded', () => {
  for (const terminator of ['cr', 'lf', 'crlf', 'tab', 'stx-etx'] as const) {
    for (const aim of [false, true]) {
      const tx = transmit('serial', CODE, { baud: 9600, terminator, aim }, seededRng(1));
      const n = serialBytes(CODE, { terminator, aim }).length;
      assert.ok(Math.abs(tx.durationMs - (n * 10_000) / 9600) < 1e-6);
      const dec = new SerialDecoder();
      const ev = decodeAll(
        tx,
        (d) => dec.push((d as { data: Uint8Array }).data, d.t),
        () => dec.read(),
      );
      assert.equal(
        ev.filter((e) => e.type === 'code'),
        [{ type: 'code', text: CODE }],
        `${terminator} aim=${aim}`,
      );
    }
  }
  assert.ok(transmit('serial', CODE, { baud: 115200 }, seededRng(1)).durationMs < 15);
  const a = serialBytes(CODE, { noise: 0.1 }, seededRng(7));
  const b = serialBytes(CODE, { noise: 0.1 }, seededRng(7));
  assert.equal(a, b);
  assert.not.equal(a, serialBytes(CODE, {}));
  assert.throws(() => transmit('serial', CODE, { baud: 1234 }, seededRng(1)), /baud/);
  assert.throws(() => transmit('serial', CODE, { parity: 'odd' }, seededRng(1)), /no option/);
});

test('camera: a grey VGA frame jsQR reads; the same seed gives the same frame; levels are checked', () => {
  const f = renderQrFrame(CODE, {}, seededRng(3));
  assert.is(f.format, 'y8');
  assert.is(f.width * f.height, 640 * 480);
  assert.is(f.data.length, 640 * 480);
  const rgba = new Uint8ClampedArray(f.data.length * 4);
  for (let i = 0; i < f.data.length; i++) {
    rgba[4 * i] = rgba[4 * i + 1] = rgba[4 * i + 2] = f.data[i];
    rgba[4 * i + 3] = 255;
  }
  assert.is(jsQR(rgba, f.width, f.height)?.data, CODE);
  const g = renderQrFrame(CODE, { blur: 0.3, noise: 0.3, perspective: 0.5, glare: 0.5 }, seededRng(3));
  assert.equal(g.data, renderQrFrame(CODE, { blur: 0.3, noise: 0.3, perspective: 0.5, glare: 0.5 }, seededRng(3)).data);
  assert.not.equal(g.data, f.data);
  assert.throws(() => renderQrFrame(CODE, { blur: 2 }, seededRng(1)), /blur/);
  assert.throws(() => renderQrFrame(CODE, { width: 10 }, seededRng(1)), /width/);
  const tx = transmit('camera', CODE, { frames: 3, fps: 10, width: 160, height: 160, module: 2 }, seededRng(1));
  assert.equal(
    tx.deliveries.map((d) => d.t),
    [100, 200, 300],
  );
});

test.run();
