// The guarded service port and the provisioned trust anchors (issue 9: keys, service).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FACTORY, flashDevice, directPort } from './harness.ts';
import { bootChip } from '../../hw-sim/sim.ts';
import { image } from './images.ts';
import { CMD } from '../../src/service/packet.ts';
import {
  beginPayload,
  writePayload,
  u32le,
  WRITE_NOT_AUTHENTICATED,
  WRITE_OK,
  MAX_REPORTED_RANGES,
  LEDGER_BINARY,
  decodeLedgerPage,
} from '../../src/service/protocol.ts';
import { HEADER_SIZE, parseImage } from '../../src/image/format.ts';
import { nodeSign } from '../../tools/node-crypto.ts';
import { publicKeyOf } from '../../src/crypto/ed25519.ts';
import { DEV_TECH_SEED_HEX, authMessage } from '../../src/service/auth.ts';
import { BOARD_ID } from '../../src/image/format.ts';
import { fromHex } from '../../src/hex.ts';
import { NONCE_TTL_MS, AUTH_IDLE_MS, MAX_TX_BACKLOG, ServicePort, WRITE_UNALIGNED } from '../../rom/service.ts';
import { PacketReader, encodePacket, type Packet } from '../../src/service/packet.ts';
import { CHUNK } from '../../rom/update.ts';
import { bootSelect, installImage } from '../../rom/bootloader.ts';
import { devTrust, encodeTrust, provisionTrust, readTrust } from '../../rom/provision.ts';
import { LAYOUT } from '../../rom/layout.ts';
import { WriteOnceError } from '../../hw-sim/nor-flash.ts';

const PROD_SEED = new Uint8Array(32).fill(7);
const PROD_KEY = publicKeyOf(PROD_SEED);
const TECH_SEED = new Uint8Array(32).fill(9);
const TECH_KEY = publicKeyOf(TECH_SEED);
const DEV_NEW = image({ version: '1.1.0', counter: 2, size: 20000, salt: 3 });
const PROD_FACTORY = image({ version: '1.0.0', counter: 1, size: 20000, salt: 4, seed: PROD_SEED });
const PROD_NEW = image({ version: '1.1.0', counter: 2, size: 20000, salt: 5, seed: PROD_SEED });

const begin = (img: Uint8Array) => {
  const p = parseImage(img);
  if ('error' in p) throw new Error(p.error);
  return beginPayload(img, p.signedLength, HEADER_SIZE);
};
const production = () =>
  flashDevice({
    provisioned: { firmwareKey: PROD_KEY, techKey: TECH_KEY, production: true },
    factory: PROD_FACTORY,
  });

test('without a session: IDENTIFY and STATUS answer, every request that changes or reads records is refused', async () => {
  const dev = await flashDevice();
  const before = Buffer.from(dev.chip.bytes);
  const { json, ask } = directPort(dev);
  assert.is(json(CMD.IDENTIFY).deviceId, 'SPH-000042');
  assert.is(json(CMD.STATUS).ok, true);
  for (const [type, payload] of [
    [CMD.BEGIN, begin(DEV_NEW)],
    [CMD.FINISH, undefined],
    [CMD.ABORT, undefined],
    [CMD.REBOOT, undefined],
    [CMD.LEDGER, u32le(0)],
  ] as const) {
    const r = json(type, payload);
    assert.is(r.ok, false, `0x${type.toString(16)}`);
    assert.is(r.reason, 'auth');
  }
  const w = ask(CMD.WRITE, writePayload(0, new Uint8Array(16)));
  assert.is(w.payload[0], WRITE_NOT_AUTHENTICATED);
  assert.is(dev.boots, 1, 'no reboot');
  assert.ok(Buffer.from(dev.chip.bytes).equals(before), 'chip untouched');
});

test('authenticated with the development technician key, a development device serves; it says it is one', async () => {
  const dev = await flashDevice();
  const { json, authenticate } = directPort(dev);
  const id = json(CMD.IDENTIFY) as { trust: { production: boolean; provisioned: boolean; techKeySha256: string } };
  assert.is(id.trust.production, false);
  assert.is(id.trust.provisioned, false);
  assert.is(authenticate().reply.ok, true);
  const l = json(CMD.LEDGER, u32le(0));
  assert.is(l.ok, true);
  assert.is(l.total, 5);
});

test('replayed, stale, foreign-key and unasked answers are refused', async () => {
  const dev = await flashDevice();
  let clock = 0;
  const { json, authenticate } = directPort(dev, { now: () => clock });
  // Replay: the signature that opened a session, sent again, for the same nonce and for a new one.
  const { sig } = authenticate();
  json(CMD.REBOOT); // ends the session
  const again = json(CMD.AUTH, sig);
  assert.is(again.ok, false);
  assert.match(String(again.detail), /no challenge/);
  json(CMD.CHALLENGE);
  assert.is(json(CMD.AUTH, sig).ok, false, 'an old answer does not fit a new nonce');
  assert.is(json(CMD.LEDGER, u32le(0)).reason, 'auth');
  // One try per nonce: a good answer after a bad one is refused.
  const c = json(CMD.CHALLENGE);
  const good = nodeSign(authMessage(BOARD_ID, dev.deviceId, fromHex(String(c.nonce))), fromHex(DEV_TECH_SEED_HEX));
  assert.is(json(CMD.AUTH, new Uint8Array(64)).ok, false);
  assert.is(json(CMD.AUTH, good).ok, false);
  // Stale: answered after the nonce's lifetime.
  const c2 = json(CMD.CHALLENGE);
  clock += NONCE_TTL_MS + 1;
  const late = json(
    CMD.AUTH,
    nodeSign(authMessage(BOARD_ID, dev.deviceId, fromHex(String(c2.nonce))), fromHex(DEV_TECH_SEED_HEX)),
  );
  assert.is(late.ok, false);
  assert.match(String(late.detail), /stale/);
  // Another technician key than the provisioned one.
  assert.is(authenticate(TECH_SEED).reply.ok, false);
  assert.is(json(CMD.LEDGER, u32le(0)).reason, 'auth');
  // The right one, in time.
  assert.is(authenticate().reply.ok, true);
  assert.is(json(CMD.LEDGER, u32le(0)).ok, true);
});

test('a session ends after AUTH_IDLE_MS unused, at a new CHALLENGE and at a link reset', async () => {
  const dev = await flashDevice();
  let clock = 0;
  const { port, json, authenticate } = directPort(dev, { now: () => clock });
  authenticate();
  clock += AUTH_IDLE_MS - 1;
  assert.is(json(CMD.LEDGER, u32le(0)).ok, true, 'used in time: kept');
  clock += AUTH_IDLE_MS - 1;
  assert.is(json(CMD.LEDGER, u32le(0)).ok, true, 'each request restarts the idle time');
  clock += AUTH_IDLE_MS + 1;
  assert.is(json(CMD.LEDGER, u32le(0)).reason, 'auth');
  authenticate();
  json(CMD.CHALLENGE);
  assert.is(json(CMD.LEDGER, u32le(0)).reason, 'auth');
  authenticate();
  port.linkReset();
  assert.is(json(CMD.LEDGER, u32le(0)).reason, 'auth');
});

test('the fragmenting WRITE pattern: replies stay small, the received set stays bounded', async () => {
  const dev = await flashDevice();
  const { json, ask, authenticate } = directPort(dev);
  authenticate();
  const big = image({ version: '1.2.0', counter: 2, size: 200000, salt: 9 });
  assert.is(json(CMD.BEGIN, begin(big)).ok, true);
  // WRITEs are whole chunks at chunk boundaries (rom/update.ts): one-byte pieces are all refused.
  let refused = 0;
  for (let i = 0; i < 20000; i++) {
    const r = ask(CMD.WRITE, writePayload(HEADER_SIZE + 2 + i * 2 * 4, new Uint8Array([0xaa])));
    if (r.payload[0] === WRITE_UNALIGNED) refused++;
  }
  assert.is(refused, 20000);
  const id = ask(CMD.IDENTIFY).payload.length;
  const st = json(CMD.STATUS) as { session: { received: unknown[]; truncated?: boolean } };
  assert.ok(id < 6000, `IDENTIFY reply ${id} bytes`);
  assert.ok(st.session.received.length <= MAX_REPORTED_RANGES);
  const fin = json(CMD.FINISH) as { reason: string; missing: unknown[] };
  assert.is(fin.reason, 'incomplete');
  assert.ok(fin.missing.length <= MAX_REPORTED_RANGES, `${fin.missing.length} missing ranges listed`);
  assert.ok(JSON.stringify(fin).length < 2000);
  assert.is(json(CMD.BEGIN, begin(big)).ok, true, 'FINISH dropped nothing: the session resumes');
  // A whole chunk at a chunk boundary is still taken.
  assert.is(ask(CMD.WRITE, writePayload(0, big.subarray(0, CHUNK))).payload[0], WRITE_OK);
});

test('a production device refuses development-signed images at BEGIN, at FINISH and at boot', async () => {
  const dev = await production();
  assert.is(dev.booted?.version, '1.0.0', 'its own image boots');
  const { json, authenticate } = directPort(dev);
  const id = json(CMD.IDENTIFY) as { trust: { production: boolean; provisioned: boolean } };
  assert.equal([id.trust.production, id.trust.provisioned], [true, true]);
  // The development technician key opens nothing here.
  assert.is(authenticate().reply.ok, false);
  assert.is(authenticate(TECH_SEED).reply.ok, true);
  const r = json(CMD.BEGIN, begin(DEV_NEW));
  assert.is(r.ok, false);
  assert.is(r.reason, 'signature');
  assert.match(String(r.detail), /production/);
  // FINISH's check (installImage), reached directly.
  const before = Buffer.from(dev.chip.bytes);
  const f = installImage(bootChip(dev.chip), DEV_NEW);
  assert.is(f.ok, false);
  assert.ok(Buffer.from(dev.chip.bytes).equals(before), 'refused before writing');
  // At boot: a development image put in both slots by other means (a flash programmer) does not start.
  const put = (off: number) => {
    for (let o = 0; o < LAYOUT.slotA.size; o += 4096) dev.chip.eraseBlock((off + o) / 4096);
    dev.chip.write(FACTORY, off);
  };
  put(LAYOUT.slotA.offset);
  put(LAYOUT.slotB.offset);
  const b = bootSelect(bootChip(dev.chip));
  assert.ok('error' in b, 'nothing boots');
  // A production-signed image goes through.
  const good = await flashDevice({
    provisioned: { firmwareKey: PROD_KEY, techKey: TECH_KEY, production: true },
    factory: PROD_FACTORY,
  });
  const g = directPort(good);
  g.authenticate(TECH_SEED);
  assert.is(g.json(CMD.BEGIN, begin(PROD_NEW)).ok, true);
});

test('a production device never trusts the published development technician key', async () => {
  const fresh = bootChip((await flashDevice()).chip);
  assert.throws(
    () => provisionTrust(fresh, { firmwareKey: PROD_KEY, production: true }),
    /development technician key/,
    'refused at provisioning',
  );
  // A record that holds it anyway (written by older tools): AUTH with it is refused.
  const dev = await flashDevice();
  dev.chip.write(encodeTrust({ ...devTrust(), firmwareKey: PROD_KEY, production: true }), LAYOUT.otp.offset);
  const { json, authenticate } = directPort(dev);
  const a = authenticate();
  assert.is(a.reply.ok, false);
  assert.match(String(a.reply.detail), /development technician key/);
  assert.is(json(CMD.LEDGER, u32le(0)).reason, 'auth');
});

test('a session ends at any start of the device (power cut, watchdog) and when the port loses power', async () => {
  const dev = await flashDevice();
  const { port, json, authenticate } = directPort(dev);
  assert.is(authenticate().reply.ok, true);
  assert.is(json(CMD.LEDGER, u32le(0)).ok, true);
  // The device restarts by itself, not through the service port: its RAM, the session with it, is gone.
  dev.powerOff('power cut');
  await dev.boot();
  assert.is(json(CMD.LEDGER, u32le(0)).reason, 'auth', 'after a restart');
  assert.is(authenticate().reply.ok, true);
  port.powerOff();
  port.powerOn();
  assert.is(json(CMD.LEDGER, u32le(0)).reason, 'auth', 'after the port lost power');
});

test('a new session reads the ledger afresh, not the pages cached for the session before', async () => {
  const dev = await flashDevice();
  const entries = dev.ledger().slice();
  const { ask, json, authenticate } = directPort({ ...dev.serviceHost(), ledgerEntries: () => entries.slice() });
  const page = (first: number) => {
    const req = new Uint8Array(7);
    req.set(u32le(first));
    req[4] = 10;
    req[6] = LEDGER_BINARY;
    return decodeLedgerPage(ask(CMD.LEDGER, req).payload)!.entries.map((e) => e.number);
  };
  authenticate();
  assert.is(page(0).length, 5);
  entries.push({ ...entries[0], number: 4242 });
  json(CMD.CHALLENGE); // ends the session
  authenticate();
  assert.equal(page(5), [4242]);
});

test('a flood of open requests cannot pile replies up: beyond MAX_TX_BACKLOG requests are dropped', async () => {
  const dev = await flashDevice();
  const replies: Packet[] = [];
  const reader = new PacketReader((p) => replies.push(p), 1 << 16);
  const port = new ServicePort(dev.serviceHost(), { baud: 921600, send: (b) => reader.push(b) });
  /** Waits until `done()` (at most 10 s), then until the line has been quiet for 150 ms. */
  const settle = async (done = () => true) => {
    for (const t0 = Date.now(); !done() && Date.now() - t0 < 10_000;) await new Promise((r) => setTimeout(r, 20));
    for (let n = -1; n !== replies.length; await new Promise((r) => setTimeout(r, 150))) n = replies.length;
  };
  try {
    // 200 IDENTIFYs of 9 bytes, each asking ~750 bytes back: ~150 KiB of replies without a bound.
    const flood = new Uint8Array(
      Array.from({ length: 200 }, (_v, i) => [
        ...encodePacket({ type: CMD.IDENTIFY, seq: i, payload: new Uint8Array(0) }),
      ]).flat(),
    );
    port.receive(flood);
    await settle(() => replies.length + port.overruns === 200);
    assert.is(replies.length + port.overruns, 200, 'every request answered or counted as dropped');
    // About MAX_TX_BACKLOG of replies (more when the line drained while requests came in, as on a loaded
    // machine), far from all 200.
    const size = replies[0].payload.length + 8;
    assert.ok(replies.length * size <= 2 * MAX_TX_BACKLOG, `${replies.length} replies of ${size} bytes`);
    // Another flood, then a power cut: nothing of it leaves afterwards.
    port.receive(flood);
    await new Promise((r) => setTimeout(r, 30));
    port.powerOff();
    const atCut = replies.length;
    await settle();
    assert.is(replies.length, atCut, 'the line is empty after a power cut');
    // A reply cut mid-frame is the host's to drop (its reader resyncs on a timeout).
    reader.reset();
    port.powerOn();
    port.receive(encodePacket({ type: CMD.CHALLENGE, seq: 999, payload: new Uint8Array(0) }));
    await settle();
    assert.is(replies.at(-1)?.seq, 999, 'answered after the power comes back');
  } finally {
    port.close();
  }
});

test('the provisioning area is write-once and a damaged record trusts nothing', async () => {
  const dev = await production();
  assert.throws(
    () => dev.chip.eraseBlock(LAYOUT.otp.offset / 4096),
    (e: unknown) => e instanceof WriteOnceError,
  );
  assert.throws(
    () => dev.chip.write(new Uint8Array(4), LAYOUT.otp.offset),
    (e: unknown) => e instanceof WriteOnceError,
  );
  assert.throws(() => provisionTrust(bootChip(dev.chip), { production: false }), /already provisioned/);
  const fresh = [bootChip((await flashDevice()).chip), bootChip((await flashDevice()).chip)];
  assert.throws(() => provisionTrust(fresh[0], { production: true }), /development firmware key/);
  assert.throws(() => provisionTrust(fresh[1], { techKey: fromHex('01' + '00'.repeat(31)) }), /small-order/);
  // Clearing bits of the record (all that programming can do) makes it damaged, never "blank = dev".
  const t = readTrust(bootChip(dev.chip));
  assert.not.ok('error' in t);
  const at = LAYOUT.otp.offset + 28 + PROD_KEY.findIndex((x) => (x & 1) === 1);
  dev.chip.bytes[at] &= 0xfe;
  assert.ok('error' in readTrust(bootChip(dev.chip)));
  const b = bootSelect(bootChip(dev.chip));
  assert.ok('error' in b);
  const { json } = directPort(dev);
  assert.is(json(CMD.IDENTIFY).trust, undefined);
});

test.run();
