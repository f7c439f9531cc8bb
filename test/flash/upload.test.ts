// The upload state machine (src/service/upload.ts) without a device: the chunks it asks for, how it
// judges BEGIN, WRITE and FINISH replies, and what it sends again. Both drivers (host/flash-client.ts,
// hw-sim/service-driver.ts) are tested against devices in pty, resume, power-cut and service-driver.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Upload, type UploadFailure, type Write } from '../../src/service/upload.ts';
import {
  WRITE_MISMATCH,
  WRITE_NOT_AUTHENTICATED,
  WRITE_OK,
  WRITE_UNALIGNED,
  u32le,
} from '../../src/service/protocol.ts';
import { parseImage } from '../../src/image/format.ts';
import { toHex } from '../../src/hex.ts';
import { image } from './images.ts';

const IMG = image({ version: '2.0.0', size: 10000, salt: 3 });
const hash = toHex((parseImage(IMG) as { hash: Uint8Array }).hash);
const of = (o: { chunk?: number; resume?: boolean } = {}) => {
  const u = Upload.of(IMG, o);
  if ('stage' in u) throw new Error(u.detail);
  return u;
};
const begun = (received: [number, number][], o: { chunk?: number; resume?: boolean } = {}) => {
  const u = of(o);
  assert.is(u.onBegin({ ok: true, session: { hash, size: IMG.length, received } }), null);
  return u;
};
const all = (u: Upload) => {
  const out: Write[] = [];
  for (let w = u.nextWrite(); w; w = u.nextWrite()) out.push(w);
  return out;
};
const ack = (status: number, at = 0, held = 0) => new Uint8Array([status, ...u32le(at), ...u32le(held)]);

test('a malformed image is a failure at once; BEGIN carries the manifest', () => {
  const bad = Upload.of(new Uint8Array(100));
  assert.ok('stage' in bad && bad.stage === 'image' && bad.reason === 'malformed');
  const u = of();
  assert.is(u.hash, hash);
  assert.is(u.beginPayload()[0] | (u.beginPayload()[1] << 8), IMG.length & 0xffff, 'total size first');
});

test('the chunks: every one, or only those the device is missing (on chunk boundaries, once each)', () => {
  const whole = all(begun([], { chunk: 4096 }));
  assert.equal(
    whole.map((w) => w.range),
    [
      [0, 4096],
      [4096, 8192],
      [8192, IMG.length],
    ],
  );
  assert.is(whole[1].payload.length, 4 + 4096, 'offset u32 · chunk');
  // Resumed: it holds the first chunk and part of the second (two gaps in one chunk: sent once).
  const u = begun([
    [0, 4096],
    [4500, 5000],
  ]);
  assert.is(u.resumedFrom, 4096 + 500);
  assert.equal(
    all(u).map((w) => w.range),
    [
      [4096, 8192],
      [8192, IMG.length],
    ],
  );
  assert.is(u.sent, IMG.length - 4096);
  assert.is(u.writes, 2);
  // Not resumed: what the device holds is sent again.
  const fresh = begun([[0, 4096]], { resume: false });
  assert.is(fresh.resumedFrom, 0);
  assert.is(all(fresh).length, 3);
});

test('BEGIN refused or malformed', () => {
  const u = of();
  assert.equal(u.onBegin({ ok: false, reason: 'counter', detail: 'older' }), {
    stage: 'begin',
    reason: 'counter',
    detail: 'older',
  });
  assert.equal(u.onBegin({ ok: true }), { stage: 'begin', reason: 'protocol', detail: 'BEGIN reply malformed' });
  assert.is((u.onBegin(null) as UploadFailure).reason, 'refused');
});

test('WRITE acknowledgements: bytes held, no session, refused', () => {
  const u = begun([], { chunk: 4096 });
  const w = u.nextWrite()!;
  assert.is(u.onAck(w, ack(WRITE_OK, 0, 4096)), null);
  assert.is(u.done, 4096);
  assert.is(u.onAck(w, new Uint8Array([WRITE_OK])), null, 'a short acknowledgement counts the chunk');
  assert.is(u.done, 8192);
  assert.equal(u.onAck(w, ack(WRITE_NOT_AUTHENTICATED)), {
    stage: 'write',
    reason: 'auth',
    detail: 'the device ended the authenticated session',
    at: 0,
    status: WRITE_NOT_AUTHENTICATED,
  });
  assert.is(u.onAck(w, ack(1))!.detail, 'device lost the update session');
  assert.is(u.onAck(w, ack(WRITE_UNALIGNED))!.detail, 'write refused (not a whole chunk)');
  assert.is(u.onAck(w, ack(2))!.detail, 'write refused (out of range)');
  assert.is(u.onAck(w, ack(WRITE_MISMATCH))!.detail, 'write refused (not the image BEGIN named)');
});

test('silence: what was not acknowledged goes out again first', () => {
  const u = begun([], { chunk: 4096 });
  const a = u.nextWrite()!;
  const b = u.nextWrite()!;
  u.again([a.range, b.range]);
  assert.equal(
    all(u).map((w) => w.range[0]),
    [0, 4096, 8192],
  );
  assert.ok(u.drained);
  assert.is(u.sent, 2 * 4096 + IMG.length, 'resent bytes count as sent');
});

test('FINISH: the slot, a refusal, or another hash', () => {
  const u = begun([]);
  assert.equal(u.onFinish({ ok: true, slot: 'B', hash, version: '2.0.0' }), { slot: 'B', hash, version: '2.0.0' });
  assert.equal(u.onFinish({ ok: false, reason: 'hash', detail: 'x' }), {
    stage: 'finish',
    reason: 'hash',
    detail: 'x',
  });
  const v = u.onFinish({ ok: true, slot: 'A', hash: '00', version: '2.0.0' }) as UploadFailure;
  assert.is(v.reason, 'verify');
  assert.match(v.detail, /device reports hash 00, the image has/);
});

test.run();
