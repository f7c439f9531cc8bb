// The NOR chip's own time in the update: 64 KiB block erase (typical 150 ms, one operation), and a paced
// service port that acknowledges a WRITE only once the chip has erased ahead and programmed it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BLOCK64, NorFlash, PowerCut, TYPICAL_TIMING, WORST_TIMING, seeded } from '../../hw-sim/nor-flash.ts';
import { ServicePort, RAM_CHUNKS } from '../../rom/service.ts';
import { CMD, PacketReader, encodePacket, type Packet } from '../../src/service/packet.ts';
import { beginPayload, writePayload } from '../../src/service/protocol.ts';
import { HEADER_SIZE, parseImage } from '../../src/image/format.ts';
import { flashDevice, authenticatePort } from './harness.ts';
import { image } from './images.ts';

test('eraseBlock64: 16 sectors in one operation, block-erase time, wear on each; a cut leaves it part done', async () => {
  const nor = new NorFlash({ size: 4 * BLOCK64 });
  nor.write(new Uint8Array(BLOCK64).fill(0), BLOCK64);
  nor.eraseBlock64(1);
  assert.ok(nor.bytes.subarray(BLOCK64, 2 * BLOCK64).every((b) => b === 0xff));
  assert.is(nor.counters.erases, 1);
  assert.ok(Math.abs(nor.counters.busyMs - (TYPICAL_TIMING.blockEraseMs! + 256 * TYPICAL_TIMING.pageProgramMs)) < 1e-9);
  assert.equal(Array.from(nor.wear.subarray(16, 32)), new Array(16).fill(1));
  assert.is(nor.wear[15] + nor.wear[32], 0);
  assert.ok(WORST_TIMING.blockEraseMs! > TYPICAL_TIMING.blockEraseMs!);
  let partial = 0;
  for (let seed = 1; seed <= 10; seed++) {
    nor.powerOn();
    nor.write(new Uint8Array(BLOCK64).fill(0), 2 * BLOCK64);
    nor.cutAtOp(1, seeded(seed));
    assert.throws(
      () => nor.eraseBlock64(2),
      (e: Error) => e instanceof PowerCut,
    );
    const b = nor.bytes.subarray(2 * BLOCK64, 3 * BLOCK64);
    if (!b.every((x) => x === 0xff)) partial++;
    nor.powerOn();
    nor.eraseBlock64(2);
  }
  assert.ok(partial >= 8, `${partial} of 10 cuts left the block part erased`);
  assert.throws(() => nor.eraseBlock64(4), RangeError);
});

test('paced port: a WRITE is acknowledged after the block erased ahead and its pages programmed, not before', async () => {
  const dev = await flashDevice();
  const IMG = image({ version: '1.6.0', counter: 2, size: 40000, salt: 30 });
  const p = parseImage(IMG);
  if ('error' in p) throw new Error(p.error);
  const got: { p: Packet; at: number }[] = [];
  const reader = new PacketReader((pk) => got.push({ p: pk, at: performance.now() }), 1 << 20);
  // A line so fast that the chip is all the time there is.
  const port = new ServicePort(dev.serviceHost(), { baud: 100_000_000, send: (b) => reader.push(b) });
  try {
    await authenticatePort(port, dev, () => got[got.length - 1]?.p);
    got.length = 0;
    const erases0 = dev.chip.counters.erases;
    const t0 = performance.now();
    port.receive(encodePacket({ type: CMD.BEGIN, seq: 1, payload: beginPayload(IMG, p.signedLength, HEADER_SIZE) }));
    for (let i = 0; i < RAM_CHUNKS; i++) {
      const off = i * 4096;
      port.receive(
        encodePacket({ type: CMD.WRITE, seq: 2 + i, payload: writePayload(off, IMG.subarray(off, off + 4096)) }),
      );
    }
    // One more than the RAM holds: dropped, never answered.
    port.receive(
      encodePacket({
        type: CMD.WRITE,
        seq: 99,
        payload: writePayload(RAM_CHUNKS * 4096, IMG.subarray(RAM_CHUNKS * 4096, (RAM_CHUNKS + 1) * 4096)),
      }),
    );
    while (got.length < 1 + RAM_CHUNKS && performance.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 50));
    const acks = got.filter((g) => g.p.type === (CMD.WRITE | 0x80));
    assert.is(acks.length, RAM_CHUNKS);
    assert.not.ok(acks.some((a) => a.p.seq === 99));
    // Block erase (150 ms) + 16 pages (6.4 ms) before the first acknowledgement.
    const first = acks[0].at - t0;
    assert.ok(first >= 150 + 6, `first WRITE acknowledged after ${first.toFixed(1)} ms`);
    const last = acks[acks.length - 1].at - t0;
    assert.ok(last >= 150 + RAM_CHUNKS * 16 * 0.4, `last after ${last.toFixed(1)} ms`);
    // The block was erased in one operation ahead of the data (the journal was blank: no erase).
    assert.is(dev.chip.counters.erases - erases0, 1);
    assert.ok(
      port.updateRamPeak <= RAM_CHUNKS * 4096 + 1024 && port.updateRamPeak <= 32 * 1024,
      `${port.updateRamPeak} bytes`,
    );
  } finally {
    port.close();
  }
});

test.run();
