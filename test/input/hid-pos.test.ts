import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HidPosDecoder } from '../../src/input/hid-pos.ts';
import { loadVectors } from '../helpers.ts';
import { ALPHABET, codes, reportsOf, run } from './helpers.ts';

function posReport(data: string, more: boolean, aim = ']Q1'): Uint8Array {
  const r = new Uint8Array(64);
  r[0] = 2;
  r[1] = data.length;
  for (let i = 0; i < 3; i++) r[2 + i] = aim.charCodeAt(i);
  for (let i = 0; i < data.length; i++) r[5 + i] = data.charCodeAt(i);
  r[63] = more ? 1 : 0;
  return r;
}

test('capture: a 164-character code over 3 continued reports, then a one-report code', () => {
  const { vectors } = loadVectors();
  const d = new HidPosDecoder();
  assert.equal(codes(run(d, reportsOf('pos-sph1.hid'))), [vectors[0].code, 'SPH1:' + ALPHABET]);
  assert.is(d.aim, ']Q1');
});

test('capture without the report ID (63-byte reports)', () => {
  assert.equal(codes(run(new HidPosDecoder(), reportsOf('pos-no-report-id.hid'))), ['SPH1:' + ALPHABET]);
});

test('trailing CR and CRLF are stripped, a code without one is kept whole', () => {
  const ev = run(new HidPosDecoder(), [
    posReport('SPH1:A\r', false),
    posReport('SPH1:B\r\n', false),
    posReport('SPH1:C', false),
  ]);
  assert.equal(codes(ev), ['SPH1:A', 'SPH1:B', 'SPH1:C']);
});

test('bad reports: wrong ID, wrong size, length over 56; a bad one mid-code discards that code', () => {
  const bad = posReport('X', false);
  bad[0] = 1;
  const long = posReport('X', false);
  long[1] = 57;
  const ev = run(new HidPosDecoder(), [bad, new Uint8Array(8), long, posReport('SPH1:OK', false)]);
  assert.equal(
    ev.map((e) => e.type === 'dropped' && e.reason),
    ['bad-report', 'bad-report', 'bad-report', false],
  );
  assert.equal(codes(ev), ['SPH1:OK']);
  const ev2 = run(new HidPosDecoder(), [
    posReport('SPH1:AB', true),
    bad,
    posReport('CD', false),
    posReport('SPH1:E', false),
  ]);
  assert.equal(ev2, [
    { type: 'dropped', reason: 'bad-report', partial: 'SPH1:AB' },
    { type: 'code', text: 'SPH1:E' },
  ]);
});

test('a continued code whose next report never comes is dropped after the timeout', () => {
  const d = new HidPosDecoder({ interReportTimeoutMs: 50 });
  d.push(posReport('SPH1:AB', true), 0);
  d.tick(40);
  assert.is(d.read(), undefined);
  d.tick(100);
  assert.equal(d.read(), { type: 'dropped', reason: 'timeout', partial: 'SPH1:AB' });
  d.push(posReport('SPH1:C', false), 200);
  assert.equal(d.read(), { type: 'code', text: 'SPH1:C' });
});

test('too long: dropped, the rest of that code ignored, the next one read', () => {
  const d = new HidPosDecoder({ maxLength: 60 });
  const x = 'X'.repeat(56);
  const ev = run(d, [posReport(x, true), posReport(x, true), posReport('END', false), posReport('SPH1:N', false)]);
  assert.equal(ev, [
    { type: 'dropped', reason: 'too-long', partial: x },
    { type: 'code', text: 'SPH1:N' },
  ]);
});

test.run();
