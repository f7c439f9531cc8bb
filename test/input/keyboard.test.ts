import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KeyboardWedgeDecoder } from '../../src/input/keyboard.ts';
import { loadVectors } from '../helpers.ts';
import { ALPHABET, codes, reportsOf, run } from './helpers.ts';
import { altNumpad, frKey, report, typeText, usKey } from './keymap.ts';

const kb = (layout: 'us' | 'fr' | 'auto') => new KeyboardWedgeDecoder({ layout });

test('US capture: every Base45 character', () => {
  const ev = run(kb('us'), reportsOf('us-alphabet.hid'));
  assert.equal(ev, [{ type: 'code', text: 'SPH1:' + ALPHABET }]);
});

test('FR (AZERTY) capture: every Base45 character, Tab ends the code', () => {
  assert.equal(codes(run(kb('fr'), reportsOf('fr-alphabet.hid'))), ['SPH1:' + ALPHABET]);
});

test('auto picks the layout from the SPH1: keys, for each capture', () => {
  const d = kb('auto');
  assert.equal(codes(run(d, reportsOf('fr-alphabet.hid'))), ['SPH1:' + ALPHABET]);
  assert.is(d.detected, 'fr');
  assert.equal(codes(run(d, reportsOf('us-alphabet.hid'))), ['SPH1:' + ALPHABET]);
  assert.is(d.detected, 'us');
});

test('the wrong fixed layout gives the field symptom (1 arrives as &)', () => {
  const [text] = codes(run(kb('fr'), reportsOf('us-alphabet.hid')));
  assert.is(text.slice(0, 5), 'SPH&M');
  assert.is.not(text, 'SPH1:' + ALPHABET);
});

test('rollover: overlapping keys, several presses in one report, a held key', () => {
  assert.equal(codes(run(kb('us'), reportsOf('us-rollover.hid'))), ['SPH1:AB12', 'A1']);
});

test('Shift in its own report (left and right Shift)', () => {
  assert.equal(codes(run(kb('us'), reportsOf('us-shift-own-report.hid'))), ['SPH1:Z9']);
});

test('Alt+numpad capture, ended by Alt+13', () => {
  for (const layout of ['us', 'fr', 'auto'] as const) {
    assert.equal(codes(run(kb(layout), reportsOf('alt-numpad.hid'))), ['SPH1: $%*+-./'], layout);
  }
});

test('Caps Lock: letters locked upper case, AZERTY digit row still shifted', () => {
  assert.equal(codes(run(kb('fr'), reportsOf('fr-capslock.hid'))), ['SPH1:AQZWM', 'a']);
});

test('every SPH1 vector through US, FR, auto and Alt+numpad', () => {
  const typable = (c: string) => [...c].every((ch) => ALPHABET.includes(ch));
  const vectors = loadVectors().vectors.filter((v) => typable(v.code));
  assert.ok(vectors.length >= 70);
  for (const v of vectors) {
    assert.equal(codes(run(kb('us'), typeText(v.code, usKey))), [v.code], v.name);
    assert.equal(codes(run(kb('fr'), typeText(v.code, frKey))), [v.code], v.name);
    assert.equal(codes(run(kb('auto'), typeText(v.code, frKey))), [v.code], v.name);
    assert.equal(codes(run(kb('auto'), typeText(v.code, usKey, 0x58))), [v.code], v.name);
    assert.equal(codes(run(kb('us'), altNumpad(v.code))), [v.code], v.name);
  }
});

test('a partial code left longer than the inter-key timeout is dropped; the next code is kept', () => {
  const d = new KeyboardWedgeDecoder({ layout: 'us', interKeyTimeoutMs: 100 });
  const part = typeText('SPH1:AB', usKey).slice(0, -2); // no Enter
  part.forEach((r, i) => d.push(r, i));
  d.tick(50);
  assert.is(d.read(), undefined);
  d.tick(500);
  assert.equal(d.read(), { type: 'dropped', reason: 'timeout', partial: 'SPH1:AB' });
  typeText('SPH1:C', usKey).forEach((r, i) => d.push(r, 600 + i));
  assert.equal(d.read(), { type: 'code', text: 'SPH1:C' });
  // A late key also expires the partial before it counts.
  typeText('XY', usKey)
    .slice(0, -2)
    .forEach((r, i) => d.push(r, 700 + i));
  typeText('Z', usKey).forEach((r, i) => d.push(r, 2000 + i));
  assert.equal(d.read(), { type: 'dropped', reason: 'timeout', partial: 'XY' });
  assert.equal(d.read(), { type: 'code', text: 'Z' });
});

test('too long: dropped, and the rest up to Enter is discarded', () => {
  const d = new KeyboardWedgeDecoder({ layout: 'us', maxLength: 10 });
  const ev = run(d, [...typeText('0123456789ABCDEF', usKey), ...typeText('OK', usKey)], 1);
  assert.equal(ev, [
    { type: 'dropped', reason: 'too-long', partial: '0123456789' },
    { type: 'code', text: 'OK' },
  ]);
});

test('bad reports: too short, and the ErrorRollOver phantom state', () => {
  const d = kb('us');
  const ev = run(d, [...typeText('AB', usKey).slice(0, -2), new Uint8Array(2), ...typeText('C', usKey)]);
  assert.equal(ev, [
    { type: 'dropped', reason: 'bad-report', partial: 'AB' },
    { type: 'code', text: 'C' },
  ]);
  const ev2 = run(kb('us'), [
    report(2, 0x04),
    report(2, 1, 1, 1, 1, 1, 1),
    report(2, 0x04),
    report(0, 0x05),
    report(0, 0x28),
  ]);
  assert.equal(ev2, [
    { type: 'dropped', reason: 'bad-report', partial: 'A' },
    { type: 'code', text: 'b' },
  ]);
});

test('9-byte reports carry a report ID in front', () => {
  const withId = reportsOf('us-alphabet.hid').map((r) => Uint8Array.of(1, ...r));
  assert.equal(codes(run(kb('auto'), withId)), ['SPH1:' + ALPHABET]);
});

test('Ctrl/GUI chords and unknown keys type nothing; Enter alone gives no code', () => {
  const ev = run(kb('us'), [
    report(0x01, 0x04),
    report(0),
    report(0x08, 0x05),
    report(0),
    report(0, 0x3a),
    report(0, 0x28),
    report(0),
  ]);
  assert.equal(ev, []);
});

test('FR AltGr characters come through (not Base45, so the check refuses them)', () => {
  // AltGr+0x27 is @ on AZERTY, Ctrl+Alt is AltGr too; on US right Alt is plain Alt.
  assert.equal(codes(run(kb('fr'), [report(0x40, 0x27), report(0), report(0x05, 0x20), report(0), report(0, 0x28)])), [
    '@#',
  ]);
});

test.run();
