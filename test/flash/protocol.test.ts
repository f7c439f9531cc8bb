import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { cobsDecode, cobsEncode } from '../../src/service/cobs.ts';
import { CMD, PacketReader, RESPONSE, decodePacket, encodePacket, type Packet } from '../../src/service/packet.ts';
import { addRange, coveredBytes, missingRanges, type Range } from '../../src/service/protocol.ts';
import { jsonBytes, parseJson } from '../../src/service/json.ts';
import { utf8Decode, utf8Encode } from '../../src/utf8.ts';
import { ServicePort } from '../../rom/service.ts';
import { flashDevice, directPort } from './harness.ts';

test('COBS round trip, no zero inside, overhead ≤ 1 per 254 + 2', async () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 2000 }), (data) => {
      const enc = cobsEncode(data);
      assert.is(enc[enc.length - 1], 0);
      assert.ok(!enc.subarray(0, -1).includes(0));
      assert.ok(enc.length <= data.length + Math.ceil(data.length / 254) + 2);
      const dec = cobsDecode(enc.subarray(0, -1));
      assert.ok(dec && Buffer.from(dec).equals(Buffer.from(data)));
    }),
    { numRuns: 300 },
  );
  assert.equal(Array.from(cobsEncode(new Uint8Array([0x11, 0, 0x22]))), [2, 0x11, 2, 0x22, 0]);
});

test('packets: round trip; any corruption is caught by the CRC', async () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 0xffff }),
      fc.uint8Array({ maxLength: 600 }),
      fc.nat(),
      (type, seq, payload, at) => {
        const f = encodePacket({ type, seq, payload });
        const p = decodePacket(f.subarray(0, -1));
        assert.ok(p);
        assert.is(p!.type, type);
        assert.is(p!.seq, seq);
        assert.ok(Buffer.from(p!.payload).equals(Buffer.from(payload)));
        const bad = f.slice(0, -1);
        const i = at % bad.length;
        bad[i] = bad[i] === 1 ? 2 : 1;
        if (!Buffer.from(bad).equals(Buffer.from(f.subarray(0, -1)))) assert.is(decodePacket(bad), null);
      },
    ),
    { numRuns: 300 },
  );
});

test('reader: frames split anywhere, garbage in between, oversize frames dropped', async () => {
  const got: Packet[] = [];
  const r = new PacketReader((p) => got.push(p), 100);
  const a = encodePacket({ type: 1, seq: 7, payload: new Uint8Array([0, 1, 2]) });
  const big = encodePacket({ type: 2, seq: 8, payload: new Uint8Array(500) });
  const b = encodePacket({ type: 3, seq: 9, payload: new Uint8Array(0) });
  const stream = new Uint8Array([0x55, 0x66, 0, ...a, ...big, 9, 9, 0, ...b]);
  for (let i = 0; i < stream.length; i += 3) r.push(stream.subarray(i, i + 3));
  assert.equal(
    got.map((p) => p.seq),
    [7, 9],
  );
  assert.is(r.dropped, 3);
});

test('ranges', async () => {
  let rs: Range[] = [];
  rs = addRange(rs, 10, 20);
  rs = addRange(rs, 30, 40);
  rs = addRange(rs, 20, 30);
  assert.equal(rs, [[10, 40]]);
  rs = addRange(rs, 0, 5);
  assert.equal(missingRanges(rs, 50), [
    [5, 10],
    [40, 50],
  ]);
  assert.is(coveredBytes(rs), 35);
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(200), fc.nat(50))), (adds) => {
      let r: Range[] = [];
      const seen = new Uint8Array(260);
      for (const [a, n] of adds) {
        r = addRange(r, a, a + n);
        seen.fill(1, a, a + n);
      }
      assert.is(
        coveredBytes(r),
        seen.reduce((x, y) => x + y, 0),
      );
      assert.is(coveredBytes(missingRanges(r, 260)), 260 - coveredBytes(r));
    }),
  );
});

test('UTF-8 and JSON without TextEncoder', async () => {
  for (const s of ['', 'abc', 'Déjà payé — 250 000 €', '😀 ok']) {
    assert.is(utf8Decode(utf8Encode(s)), s);
    assert.equal(Buffer.from(utf8Encode(s)), Buffer.from(s, 'utf8'));
  }
  assert.equal(parseJson(jsonBytes({ a: [1, 'é'] })), { a: [1, 'é'] });
  assert.is(parseJson(new Uint8Array([0xff, 0x7b])), undefined);
});

test('the device survives any bytes and answers what it understands', async () => {
  const dev = await flashDevice();
  const replies: Packet[] = [];
  const reader = new PacketReader((p) => replies.push(p), 1 << 16);
  const port = new ServicePort(dev.serviceHost(), { send: (b) => reader.push(b) });
  const before = Buffer.from(dev.chip.bytes);
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 300 }), (type, payload) => {
      if (type === CMD.REBOOT || type === CMD.FINISH) return;
      port.receive(encodePacket({ type, seq: 1, payload }));
      port.receive(payload);
    }),
    { numRuns: 500 },
  );
  assert.ok(replies.length > 0);
  assert.ok(replies.every((p) => p.type === 0x7f || (p.type & RESPONSE) !== 0));
  assert.ok(Buffer.from(dev.chip.bytes).equals(before), 'nothing written');
  // A lone delimiter ends the garbage (the client sends one when it starts and after a silence).
  port.receive(new Uint8Array([0, ...encodePacket({ type: CMD.IDENTIFY, seq: 42, payload: new Uint8Array(0) })]));
  const last = replies[replies.length - 1];
  assert.is(last.seq, 42);
  assert.is((parseJson(last.payload) as { deviceId: string }).deviceId, 'SPH-000042');
  port.close();
});

test('a failure inside the device is answered, never thrown', async () => {
  const dev = await flashDevice();
  const { port, replies, authenticate } = directPort(
    dev.serviceHost({
      ledgerEntries: () => {
        throw new Error('ledger unreadable');
      },
    }),
  );
  authenticate();
  replies.length = 0;
  port.receive(encodePacket({ type: CMD.LEDGER, seq: 5, payload: new Uint8Array(4) }));
  assert.is(replies.length, 1);
  assert.is(replies[0].type, 0x7f);
  assert.equal(parseJson(replies[0].payload), { ok: false, reason: 'internal', detail: 'ledger unreadable' });
  port.close();
});

test.run();
