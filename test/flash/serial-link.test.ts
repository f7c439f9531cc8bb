// The serial link's framing (host/serial-link.ts) under the service client: a lone delimiter ends
// whatever partial frame line noise left in the device's reader, first thing and after every silence.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PacketLink, type Link } from '../../host/serial-link.ts';
import { ServiceClient } from '../../host/flash-client.ts';
import { CMD, PacketReader, RESPONSE, encodePacket, type Packet } from '../../src/service/packet.ts';
import { jsonBytes } from '../../src/service/json.ts';

/** A device that answers IDENTIFY, with `noise` bytes already in its reader and `deaf` requests ignored. */
function noisyDevice(noise: Uint8Array, deaf = 0) {
  const wire: Uint8Array[] = [];
  let onData: (b: Uint8Array) => void = () => {};
  let heard = 0;
  const reader = new PacketReader((p) => {
    heard++;
    if (deaf-- > 0) return;
    const id = { boardId: 1, deviceId: 'SIM-1', slots: [], securityCounter: 0, running: null };
    const reply = encodePacket({ type: p.type | RESPONSE, seq: p.seq, payload: jsonBytes(id) });
    queueMicrotask(() => onData(reply));
  });
  reader.push(noise);
  const link: Link = {
    write: (b) => {
      wire.push(b.slice());
      reader.push(b);
    },
    onData: (cb) => (onData = cb),
    onClose: () => {},
    close: async () => {},
  };
  return { link, wire, reader, heard: () => heard };
}

test('PacketLink: a lone delimiter before the first packet and after resync(), not otherwise', () => {
  const d = noisyDevice(new Uint8Array(0));
  const got: Packet[] = [];
  const pl = new PacketLink(d.link, (p) => got.push(p));
  const p = { type: CMD.STATUS, seq: 1, payload: new Uint8Array([7]) };
  pl.send(p);
  pl.send({ ...p, seq: 2 });
  pl.resync();
  pl.send({ ...p, seq: 3 });
  assert.equal(
    d.wire.map((b) => (b.length === 1 && b[0] === 0 ? 'sync' : 'packet')),
    ['sync', 'packet', 'packet', 'sync', 'packet'],
  );
  // Incoming bytes cut anywhere come out as whole packets.
  const bytes = new Uint8Array([...encodePacket({ ...p, seq: 9 }), ...encodePacket({ ...p, seq: 10 })]);
  let feed: (b: Uint8Array) => void = () => {};
  new PacketLink({ ...d.link, onData: (f) => (feed = f) }, (q) => got.push(q));
  for (const b of bytes) feed(new Uint8Array([b]));
  assert.equal(
    got.map((q) => q.seq),
    [9, 10],
  );
});

test('service client: noise on the line before the first request does not cost a retry', async () => {
  const d = noisyDevice(new Uint8Array([0x41, 0x42, 0x43, 0x44]));
  const c = new ServiceClient(d.link, 115200);
  const id = await c.identify({ tries: 1, timeoutMs: 300 });
  assert.is(id.deviceId, 'SIM-1');
  // The garbage ended as one dropped frame; the request itself was read whole.
  assert.is(d.reader.dropped, 1);
  assert.is(d.heard(), 1);
  await c.close();
});

test('service client: after a silence the retry starts a fresh frame', async () => {
  const d = noisyDevice(new Uint8Array(0), 1);
  const c = new ServiceClient(d.link, 115200);
  const id = await c.identify({ tries: 2, timeoutMs: 100 });
  assert.is(id.deviceId, 'SIM-1');
  assert.is(d.heard(), 2);
  const syncs = d.wire.filter((b) => b.length === 1 && b[0] === 0).length;
  assert.is(syncs, 2, 'one delimiter before the first request, one before the retry');
  await c.close();
});

test.run();
