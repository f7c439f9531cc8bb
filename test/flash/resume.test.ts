// Streaming updates (rom/update.ts) against power cuts: through a real pty at 10, 50 or 90 % of the
// transfer, then `saphir flash` again resumes from what the journal says was programmed; seeded cuts in the
// transfer's own erases, programs and journal writes never brick the device nor start an unverified image;
// the fragmenting-WRITE attack cannot grow the session. npm test: one of the three pty cuts and 50 seeded
// cuts; npm run test:long (resume.long.ts): all three and 200.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FACTORY, flashDevice, dataSnapshot, devicePty, authenticatePort, portLink, ptyTest } from './harness.ts';
import { saphirAsync } from '../cli/run-cli.ts';
import { Simulator, bootChip } from '../../hw-sim/sim.ts';
import { image, hashOf } from './images.ts';
import { seeded } from '../../hw-sim/nor-flash.ts';
import { LONG } from '../helpers.ts';
import { ServiceClient, FlashError } from '../../host/flash-client.ts';
import { ServicePort, WRITE_UNALIGNED } from '../../rom/service.ts';
import { readJournal, CHUNKS } from '../../rom/update.ts';
import { CMD, PacketReader, encodePacket, type Packet } from '../../src/service/packet.ts';
import { parseJson } from '../../src/service/json.ts';
import { writePayload, beginPayload, type Identity } from '../../src/service/protocol.ts';
import { HEADER_SIZE, parseImage } from '../../src/image/format.ts';

const BAUD = 921600;
const dir = mkdtempSync(join(tmpdir(), 'saphir-resume-test-'));
const BIG = image({ version: '1.3.0', counter: 2, size: 150000, salt: 12 });
const bigFile = join(dir, 'big.img');
writeFileSync(bigFile, BIG);

// npm test: one of the three, another each day (the test's name says which); npm run test:long: all three.
const DAY = Math.floor(Date.now() / 86_400_000);
for (const pct of LONG ? [10, 50, 90] : [[10, 50, 90][DAY % 3]]) {
  ptyTest(`pty: power cut at ${pct} % of the transfer, boot, flash again: resumes and confirms`, async () => {
    const dev = await flashDevice();
    const data = dataSnapshot(dev);
    let restarting: Promise<void> | null = null;
    // The device loses power: the USB-serial link goes with it; it boots again on whatever is valid.
    const pty = await devicePty(dev, BAUD, {
      powerLost: () => {
        restarting = (async () => {
          await pty.cut();
          dev.chip.powerOn();
          await dev.reboot();
          await pty.reconnect();
        })();
      },
    });
    try {
      const c = await ServiceClient.open(pty.path, { baud: BAUD });
      let armed = false;
      const err = await c
        .flash(BIG, {
          onProgress: (p) => {
            if (!armed && p.done >= (BIG.length * pct) / 100) {
              armed = true;
              dev.chip.cutAtOp(1); // mid-program of the next chunk
            }
          },
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      await c.close().catch(() => {});
      assert.ok(armed);
      assert.instance(err, FlashError);
      await restarting;
      assert.is(dev.booted?.imageHash, hashOf(FACTORY), 'the old image runs after the cut');
      const held = readJournal(bootChip(dev.chip))!.done.reduce((a, b) => a + b, 0) * 4096;
      assert.ok(held >= (BIG.length * pct) / 100 - 4096 * 6, `journal holds ${held} bytes`);

      let received = 0;
      const receive = pty.port.receive.bind(pty.port);
      pty.port.receive = (b: Uint8Array) => {
        received += b.length;
        receive(b);
      };
      const r = await saphirAsync(['flash', '--port', pty.path, '--baud', String(BAUD), '--lang', 'en', bigFile]);
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stdout, /Resumed: the device already held \d+ bytes/);
      assert.match(r.stdout, /Restarted on 1\.3\.0, confirmed/);
      assert.ok(received < BIG.length - held + 8000, `${received} bytes on the line for ${BIG.length - held} missing`);
      await dev.reboot();
      assert.is(dev.booted?.imageHash, hashOf(BIG));
      assert.not.ok(dev.booted?.pendingConfirm);
      assert.ok(dataSnapshot(dev).equals(data), 'ledger and config untouched');
    } finally {
      await pty.close();
    }
  });
}

/** An in-process link to the device's service port that dies with the device's power. */
function connect(dev: Simulator) {
  let lose = (_err: Error) => {};
  const p = portLink(dev.serviceHost({ powerLost: () => lose(new Error('device lost power')) }));
  lose = p.lose;
  return new ServiceClient(p.link, BAUD);
}

const CUTS = LONG ? 200 : 20;
test(`${CUTS} seeded power cuts in the transfer (erase, program, journal): never bricked, never unverified, resumes`, async () => {
  const IMG = image({ version: '1.4.0', counter: 2, size: 90000, salt: 13 });
  const probe = await flashDevice();
  const ops0 = probe.chip.ops;
  await connect(probe).flash(IMG);
  const transferOps = probe.chip.ops - ops0;
  assert.ok(transferOps > 300, `${transferOps} flash operations`);
  let resumedRuns = 0;
  for (let seed = 1; seed <= CUTS; seed++) {
    const rnd = seeded(1000 + seed);
    const dev = await flashDevice();
    const data = dataSnapshot(dev);
    dev.chip.cutAtOp(1 + Math.floor(rnd() * transferOps), rnd);
    const err = await connect(dev)
      .flash(IMG)
      .then(
        () => null,
        (e) => e,
      );
    if (err !== null && !(err instanceof FlashError)) throw err;
    dev.chip.cutAtOp(0);
    dev.chip.powerOn();
    await dev.reboot();
    // The bootloader only ever starts a verified image: the old one, or the new one if FINISH got through.
    assert.ok(
      [hashOf(FACTORY), hashOf(IMG)].includes(dev.booted?.imageHash ?? ''),
      `seed ${seed}: boots ${dev.booted?.imageHash}`,
    );
    assert.ok(dataSnapshot(dev).equals(data), `seed ${seed}: ledger and config untouched`);
    const c = connect(dev);
    const r = await c.flash(IMG);
    if (r.resumedFrom > 0) resumedRuns++;
    assert.is(r.sent + r.resumedFrom >= IMG.length, true);
    assert.ok(r.sent <= IMG.length - r.resumedFrom + 4096, `seed ${seed}: sent ${r.sent}, resumed ${r.resumedFrom}`);
    await c.reboot();
    assert.is(dev.booted?.imageHash, hashOf(IMG), `seed ${seed}: completes`);
    assert.not.ok(dev.booted?.pendingConfirm);
  }
  assert.ok(resumedRuns > CUTS / 2, `${resumedRuns} of ${CUTS} runs resumed`);
});

test('fragmenting WRITEs (one byte at alternating offsets) are refused: the session cannot grow', async () => {
  const dev = await flashDevice();
  const replies: Packet[] = [];
  const reader = new PacketReader((p) => replies.push(p), 1 << 20);
  const port = new ServicePort(dev.serviceHost(), { send: (b) => reader.push(b) });
  await authenticatePort(port, dev, () => replies[replies.length - 1]);
  replies.length = 0;
  const p = parseImage(BIG);
  if ('error' in p) throw new Error(p.error);
  port.receive(encodePacket({ type: CMD.BEGIN, seq: 1, payload: beginPayload(BIG, p.signedLength, HEADER_SIZE) }));
  assert.ok((parseJson(replies[0].payload) as { ok: boolean }).ok);
  const N = 20000;
  const times: number[] = [];
  let refused = 0;
  for (let i = 0; i < N; i++) {
    const off = (i * 2) % BIG.length;
    const t = performance.now();
    port.receive(
      encodePacket({ type: CMD.WRITE, seq: i & 0xffff, payload: writePayload(off, BIG.subarray(off, off + 1)) }),
    );
    times.push(performance.now() - t);
    if (replies[replies.length - 1].payload[0] === WRITE_UNALIGNED) refused++;
  }
  assert.is(refused, N);
  // Whole chunks still go in, and what the session reports stays bounded by the slot's chunk count.
  for (let off = 0; off < BIG.length; off += 8192) {
    port.receive(
      encodePacket({
        type: CMD.WRITE,
        seq: 7,
        payload: writePayload(off, BIG.subarray(off, Math.min(off + 4096, BIG.length))),
      }),
    );
  }
  port.receive(encodePacket({ type: CMD.IDENTIFY, seq: 9, payload: new Uint8Array(0) }));
  const id = parseJson(replies[replies.length - 1].payload) as Identity;
  assert.ok(id.session!.received.length <= CHUNKS / 2, `${id.session!.received.length} ranges`);
  assert.ok(replies[replies.length - 1].payload.length < 4096, 'IDENTIFY stays small');
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
  const first = mean(times.slice(500, 2500));
  const last = mean(times.slice(N - 2000));
  assert.ok(last < first * 3 + 0.05, `WRITE cost flat: ${first.toFixed(4)} ms then ${last.toFixed(4)} ms`);
  port.close();
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
