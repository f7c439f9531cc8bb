// The simulator's machinery: virtual time, the HAL peripherals, drawing the display, runner reports.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PNG } from 'pngjs';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Scheduler } from '../../hw-sim/scheduler.ts';
import { Peripherals } from '../../hw-sim/device.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { drawText } from '../../hw-sim/render.ts';
import { drawPng } from '../../hw-sim/png.ts';
import { glyph, hasGlyph } from '../../hw-sim/font.ts';
import { Simulator, classifyBeep } from '../../hw-sim/sim.ts';
import { parseScenario } from '../../hw-sim/scenario.ts';
import { runScenario } from '../../hw-sim/runner.ts';
import { seededRng } from '../../hw-sim/rng.ts';
import { BEEPS } from '../../src/signals.ts';
import { LAYOUT } from '../../rom/layout.ts';
import '../../hw-sim/node-host.ts';

test('scheduler: events in time order, ties in insertion order, cancel, runUntil stops early', () => {
  const s = new Scheduler();
  const seen: string[] = [];
  s.at(30, () => seen.push('c'));
  s.at(10, () => seen.push('a'));
  s.at(10, () => seen.push('b'));
  const x = s.at(20, () => seen.push('x'));
  s.cancel(x);
  s.runUntil(25);
  assert.equal(seen, ['a', 'b']);
  assert.is(s.now, 25);
  s.after(100, () => seen.push('d'));
  assert.ok(s.runUntil(1000, () => seen.includes('c')));
  assert.is(s.now, 30);
  s.runUntil(1000);
  assert.equal(seen, ['a', 'b', 'c', 'd']);
  assert.is(s.now, 1000);
  assert.is(s.next(), undefined);
});

test('scheduler: ten minutes of a 1 ms periodic event runs in well under a second of wall time', () => {
  const s = new Scheduler();
  let n = 0;
  const tick = () => {
    n++;
    s.after(1, tick);
  };
  s.after(1, tick);
  s.runUntil(600_000);
  assert.is(n, 600_000);
});

function periph(chip = new NorFlash()) {
  const scheduler = new Scheduler();
  let resets = 0;
  const p = new Peripherals({
    scheduler,
    chip,
    rtcBase: () => Date.UTC(2027, 0, 1),
    identity: { deviceId: 'T-1', boardId: 1, imageHash: 'ab', pendingConfirm: false, confirm() {} },
    events: { watchdog: () => resets++ },
  });
  return { p, scheduler, d: p.device, resets: () => resets };
}

test('device: timers (one-shot, interval, clear), clocks on virtual time', () => {
  const { d, scheduler } = periph();
  const t = new d.Timers({});
  const rtc = new d.RealTimeClock({});
  const mono = new d.MonotonicClock({});
  const fired: number[] = [];
  t.set(() => fired.push(mono.now()), 100);
  const every = t.set(() => fired.push(-mono.now()), 40, 40);
  scheduler.runUntil(130);
  assert.equal(fired, [-40, -80, 100, -120]);
  t.clear(every);
  scheduler.runUntil(1000);
  assert.is(fired.length, 4);
  assert.is(rtc.now(), Date.UTC(2027, 0, 1) + 1000);
});

test('device: the watchdog resets the device when not kicked in time', () => {
  const { d, scheduler, resets } = periph();
  const w = new d.Watchdog({ timeoutMs: 500 });
  const t = new d.Timers({});
  const id = t.set(() => w.kick(), 200, 200);
  scheduler.runUntil(5000);
  assert.is(resets(), 0);
  t.clear(id);
  scheduler.runUntil(5600);
  assert.is(resets(), 1);
});

test('device: inputs, display, beeper, LED, flash partitions', () => {
  const chip = new NorFlash();
  const { p, d } = periph(chip);
  const got: number[] = [];
  const hid = new d.HIDInput({ mode: 'pos', onReadable: () => got.push(hid.read()!.length) });
  const ser = new d.Serial({ onReadable: () => {} });
  assert.throws(() => new d.HIDInput({ mode: 'mouse' as never }), /mode/);
  assert.ok(p.feed('hid-pos', new Uint8Array(64)));
  assert.not.ok(p.feed('hid-keyboard', new Uint8Array(8)), 'no keyboard input was opened');
  p.feed('serial', new Uint8Array([1, 2]));
  p.feed('serial', new Uint8Array([3]));
  assert.equal([...ser.read()!], [1, 2, 3]);
  assert.is(ser.read(), undefined);
  assert.equal(got, [64]);
  const disp = new d.TextDisplay({});
  disp.show(['a'.repeat(30), 'b', 'c', 'd', 'e']);
  assert.equal(p.screen, ['a'.repeat(20), 'b', 'c', 'd']);
  new d.Beeper({}).play(BEEPS.win);
  assert.is(classifyBeep(p.beeps[0].tones), 'win');
  assert.is(classifyBeep([{ hz: 1, ms: 1 }]), 'unknown');
  new d.Led({}).set('green');
  assert.is(p.led, 'green');
  const f = new d.Flash({ partition: 'ledger' });
  assert.is(f.size, LAYOUT.ledger.size);
  f.write(new Uint8Array([0x0f]), 5);
  f.write(new Uint8Array([0xf1]), 5);
  assert.is(f.read(5, 1)[0], 0x01, 'programming only clears bits');
  assert.is(chip.bytes[LAYOUT.ledger.offset + 5], 0x01);
  f.eraseBlock(0);
  assert.is(f.read(5, 1)[0], 0xff);
  assert.throws(() => f.read(LAYOUT.ledger.size, 1));
  assert.throws(() => new d.Flash({ partition: 'slotA' as never }), /partition/);
  p.shutdown();
  assert.not.ok(p.feed('hid-pos', new Uint8Array(64)));
});

test('display drawings: framed text, a PNG of the 4×20 screen, a glyph for every French letter', () => {
  const panel = { lines: ['GAGNANT', '150 €', 'DÉJÀ PAYÉ', 'ç'], rows: 4, columns: 20, led: 'green' as const };
  const txt = drawText(panel);
  assert.ok(txt.includes('│GAGNANT             │'));
  assert.ok(txt.includes('(G)'));
  const png = PNG.sync.read(drawPng(panel, 2));
  assert.is(png.width, (20 * 6 + 8) * 2);
  const dark = (x: number, y: number) => png.data[(y * png.width + x) * 4] < 80;
  let ink = 0;
  for (let y = 0; y < png.height; y++) for (let x = 0; x < png.width; x++) if (dark(x, y)) ink++;
  assert.ok(ink > 500, 'text is drawn');
  for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 €ÉÈÊÀÂÇÔÎÏÙÛéèêëàâçôîïùû.,:;!?\'"()-/%') {
    assert.ok(hasGlyph(ch), ch);
  }
  assert.not.equal(glyph('É'), glyph('E'));
});

test('rng: seeded, same seed same sequence', () => {
  const a = seededRng('x');
  const b = seededRng('x');
  const xs = Array.from({ length: 5 }, () => a.next());
  assert.equal(
    xs,
    Array.from({ length: 5 }, () => b.next()),
  );
  assert.not.equal(
    xs,
    Array.from({ length: 5 }, () => seededRng('y').next()),
  );
});

const BUNDLE = `
var d = globalThis.device, disp = new d.TextDisplay({}), led = new d.Led({}), beep = new d.Beeper({});
var t = new d.Timers({}), w = new d.Watchdog({ timeoutMs: 1000 }), keys = new d.Keypad({ onReadable: function () {
  var k = keys.read();
  if (k === '9') { hang = true; return; }
  disp.show(['KEY ' + k]); led.set(k === 'OK' ? 'green' : 'red'); beep.play([{ hz: 660, ms: 150 }, { hz: 440, ms: 300 }]);
} });
var hang = false;
disp.show(['READY']);
t.set(function () { if (!hang) w.kick(); }, 100, 100);
`;

test('runner: a failing step stops the run, with the display and what was expected; screenshots', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-sim-'));
  const sc = parseScenario(
    `name: tiny
steps:
  - boot
  - expect-display: READY
  - press: OK
  - expect-display: { contains: KEY OK, line: 1 }
  - expect-led: green
  - expect-beep: lose
  - screenshot: shot.png
  - press: C
  - expect-display: { contains: KEY OK, within: 3s }
  - press: OK
`,
    join(dir, 'tiny.yaml'),
  );
  const steps: string[] = [];
  const r = await runScenario(sc, { bundle: BUNDLE, lang: 'en', onStep: (s) => steps.push(`${s.line}:${s.ok}`) });
  assert.not.ok(r.ok);
  assert.equal(steps, ['3:true', '4:true', '5:true', '6:true', '7:true', '8:true', '9:true', '10:true', '11:false']);
  assert.match(r.steps[8].problem!, /expected "KEY OK" within 3000 ms/);
  assert.ok(r.display!.includes('│KEY C'));
  assert.is(r.steps[8].t, 3000, 'the expectation waited 3 s of virtual time');
  assert.ok(existsSync(join(dir, 'shot.png')));
  assert.is(PNG.sync.read(readFileSync(join(dir, 'shot.png'))).height > 0, true);
  rmSync(dir, { recursive: true, force: true });
});

test('simulator: a hung app is reset by the watchdog; power cut and boot keep the flash', async () => {
  const sim = new Simulator({ bundle: BUNDLE });
  await sim.boot();
  assert.is(sim.boots, 1);
  await sim.press('9');
  await sim.run(3000);
  assert.is(sim.boots, 2, 'the watchdog reset the device');
  assert.equal(sim.screen, ['READY']);
  sim.powerCut();
  assert.not.ok(sim.on);
  await assert_rejects(() => sim.press('OK'));
  await sim.boot();
  assert.ok(sim.on);
  assert.is(sim.bootMode, 'developer');
  assert.match(sim.imageHash, /^[0-9a-f]{64}$/);
  sim.dispose();
});

async function assert_rejects(f: () => Promise<unknown>): Promise<void> {
  try {
    await f();
  } catch {
    return;
  }
  assert.unreachable('expected a rejection');
}

test.run();
