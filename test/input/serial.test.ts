import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SerialDecoder, ACK, NAK } from '../../src/input/serial.ts';
import { codes, fixture, run } from './helpers.ts';

const bytes = (s: string) => new Uint8Array(Buffer.from(s, 'latin1'));

test('capture: every terminator, STX/ETX, AIM prefixes, noise — whole, and one byte at a time', () => {
  const data = new Uint8Array(fixture('serial-mixed.bin'));
  const expected = JSON.parse(fixture('serial-mixed.expected.json').toString('utf8'));
  const d = new SerialDecoder();
  const ev = run(d, [data]);
  assert.equal(codes(ev), expected);
  assert.equal(
    ev.filter((e) => e.type === 'dropped'),
    [{ type: 'dropped', reason: 'noise', partial: 'JUNK' }],
  );
  const ev1 = run(
    new SerialDecoder(),
    [...data].map((b) => Uint8Array.of(b)),
    1,
  );
  assert.equal(codes(ev1), expected);
});

test('AIM identifier recorded; stripping can be turned off', () => {
  const d = new SerialDecoder();
  run(d, [bytes(']Q1SPH1:A\r')]);
  assert.is(d.aim, ']Q1');
  assert.equal(codes(run(new SerialDecoder({ aim: false }), [bytes(']Q1SPH1:A\r')])), [']Q1SPH1:A']);
});

test('configured prefix and suffix, before or after the AIM identifier', () => {
  const d = new SerialDecoder({ prefix: '#>', suffix: '<#' });
  assert.equal(codes(run(d, [bytes('#>SPH1:A<#\r]Q1#>SPH1:B<#\r#>]Q1SPH1:C\rSPH1:D\r')])), [
    'SPH1:A',
    'SPH1:B',
    'SPH1:C',
    'SPH1:D',
  ]);
});

test('inter-byte timeout drops a partial code, the next code is whole', () => {
  const d = new SerialDecoder({ interByteTimeoutMs: 100 });
  d.push(bytes('SPH1:AB'), 0);
  d.push(bytes('SPH1:CD\r'), 1000);
  assert.equal(d.read(), { type: 'dropped', reason: 'timeout', partial: 'SPH1:AB' });
  assert.equal(d.read(), { type: 'code', text: 'SPH1:CD' });
  d.push(bytes('SPH1:E'), 1010);
  d.push(bytes('F\r'), 1090);
  assert.equal(d.read(), { type: 'code', text: 'SPH1:EF' });
  d.push(bytes('GH'), 2000);
  d.tick(2200);
  assert.equal(d.read(), { type: 'dropped', reason: 'timeout', partial: 'GH' });
});

test('maximum length: dropped, discarded up to the terminator, the next code read', () => {
  const d = new SerialDecoder({ maxLength: 8 });
  const ev = run(d, [bytes('0123456789ABC\r'), bytes('SPH1:A\r')]);
  assert.equal(ev, [
    { type: 'dropped', reason: 'too-long', partial: '01234567' },
    { type: 'code', text: 'SPH1:A' },
  ]);
});

test('ACK after a code, NAK after a dropped one; nothing queued without the option', () => {
  const d = new SerialDecoder({ ack: true });
  run(d, [bytes('SPH1:A\rXY\x00SPH1:B\n')]);
  assert.equal([...(d.reply() ?? [])], [ACK, NAK, ACK]);
  assert.is(d.reply(), undefined);
  const quiet = new SerialDecoder();
  run(quiet, [bytes('SPH1:A\r')]);
  assert.is(quiet.reply(), undefined);
});

test('an STX inside a code starts a new one; an empty frame gives nothing', () => {
  const ev = run(new SerialDecoder(), [bytes('SPH1:A\x02SPH1:B\x03\x02\x03\r\n')]);
  assert.equal(ev, [
    { type: 'dropped', reason: 'noise', partial: 'SPH1:A' },
    { type: 'code', text: 'SPH1:B' },
  ]);
});

test.run();
