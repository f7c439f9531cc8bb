// Issue #35, item 3: a power cut at EVERY flash operation of an update, as MCUboot's simulator does. The
// operations of one whole update over the service protocol are enumerated first (BEGIN's journal head and
// erase, each WRITE's page programs and journal mark, the erase ahead, FINISH's boot-state records and
// journal erase, the test boot's record, the firmware's confirm), then a fresh device is cut in the middle
// of each one in turn. After each cut: power back, two resets; the device always runs a verified image,
// the old or the new one and never anything else, the security counter never goes down, the ledger and
// configuration are untouched, and the update run again (resumed from the journal, or started over)
// completes and is confirmed. The same for an update whose new image fails its self-test (test boot, then
// revert). npm test: every operation of a 3-chunk update and of the revert, a seeded sample of a
// two-block one, and one of the three FINISH cuts through `saphir flash`; test:long: every operation of the
// two-block one, all three FINISH cuts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FACTORY, flashDevice, dataSnapshot, devicePty, portLink, ptyTest } from './harness.ts';
import { SlotWriter } from '../../rom/update.ts';
import { saphirAsync } from '../cli/run-cli.ts';
import { rmSync } from 'node:fs';
import { image, hashOf, tempFiles } from './images.ts';
import { NorFlash, PowerCut, seeded } from '../../hw-sim/nor-flash.ts';
import { LAYOUT } from '../../rom/layout.ts';
import { readBootState } from '../../rom/bootloader.ts';
import { bootChip, type Simulator } from '../../hw-sim/sim.ts';
import { ServiceClient, FlashError } from '../../host/flash-client.ts';
import { LONG } from '../helpers.ts';

const OLD = hashOf(FACTORY);
const SMALL = image({ version: '1.1.0', counter: 2, size: 3 * 4096 - 500, salt: 31 });
// Past one 64 KiB block: the erase ahead of the second block is among the operations.
const BIG = image({ version: '1.2.0', counter: 2, size: 70000, salt: 32 });

type Phase = 'begin' | 'write' | 'finish' | 'reboot' | 'reset';
interface Op {
  phase: Phase;
  kind: 'program' | 'erase';
  offset: number;
}

function region(offset: number): string {
  const r = Object.entries(LAYOUT).find(([, p]) => offset >= p.offset && offset < p.offset + p.size);
  return r ? r[0] : 'other';
}

/** Records every erase and program of `chip` with the phase the test says it is in. */
function trace(chip: NorFlash, phase: () => Phase): Op[] {
  const ops: Op[] = [];
  const write = chip.write.bind(chip);
  const erase = chip.eraseBlock.bind(chip);
  const erase64 = chip.eraseBlock64.bind(chip);
  chip.write = (b, o) => (ops.push({ phase: phase(), kind: 'program', offset: o }), write(b, o));
  chip.eraseBlock = (n) => (ops.push({ phase: phase(), kind: 'erase', offset: n * 4096 }), erase(n));
  chip.eraseBlock64 = (n) => (ops.push({ phase: phase(), kind: 'erase', offset: n * 65536 }), erase64(n));
  return ops;
}

/**
 * One update as `saphir flash` makes it, in this process: IDENTIFY, AUTH, BEGIN, the WRITEs, FINISH,
 * REBOOT (the test boot and the firmware's confirm), then one more reset. A cut ends the link (the
 * device's RAM is gone) and leaves the device off; the error is returned.
 */
async function update(dev: Simulator, img: Uint8Array, at: (p: Phase) => void = () => {}): Promise<unknown> {
  let lose = (_e: Error) => {};
  const p = portLink(dev.serviceHost({ powerLost: () => lose(new Error('device lost power')) }));
  lose = p.lose;
  const c = new ServiceClient(p.link, 921600);
  try {
    await c.identify();
    at('begin');
    const session = await c.begin(img);
    at('write');
    await c.upload(img, session.received);
    at('finish');
    const r = await c.finish();
    assert.is(r.hash, hashOf(img));
    at('reboot');
    await c.reboot();
    await dev.restarting;
    at('reset');
    if (!dev.chip.powered) return new PowerCut('cut in the test boot or the confirm');
    await dev.reboot();
    if (!dev.chip.powered) return new PowerCut('cut in the reset after the update');
    return null;
  } catch (e) {
    if (e instanceof FlashError || e instanceof PowerCut) return e;
    throw e;
  }
}

/** Power back after a cut: the device starts whatever is valid (a second cut is not armed). */
async function powerBack(dev: Simulator): Promise<void> {
  dev.chip.cutAtOp(0);
  dev.chip.powerOn();
  await dev.restarting.catch(() => {});
  if (dev.on) await dev.reboot();
  else await dev.boot();
}

async function enumerate(img: Uint8Array, selfTest = true): Promise<Op[]> {
  const dev = await flashDevice();
  dev.firmwareModel!.selfTestPasses = selfTest;
  let phase: Phase = 'begin';
  const ops = trace(dev.chip, () => phase);
  const before = dev.chip.ops;
  assert.is(await update(dev, img, (p) => (phase = p)), null);
  if (!selfTest) {
    // The trial was never confirmed: this reset reverts to the old image.
    phase = 'reset';
    await dev.reboot();
    assert.is(dev.booted?.imageHash, OLD);
  } else assert.is(dev.booted?.imageHash, hashOf(img));
  assert.is(ops.length, dev.chip.ops - before, 'every operation traced');
  dev.dispose();
  return ops;
}

/** Cuts a fresh device in the middle of operation `k` (1-based) of `ops`, then checks and completes. */
async function cutAt(img: Uint8Array, ops: Op[], k: number, selfTest = true): Promise<'old' | 'new'> {
  const NEW = hashOf(img);
  const dev = await flashDevice();
  dev.firmwareModel!.selfTestPasses = selfTest;
  const data = dataSnapshot(dev);
  dev.chip.cutAtOp(k, seeded(k));
  const err = await update(dev, img);
  const op = ops[k - 1];
  const where = `op ${k}/${ops.length} (${op.phase} ${op.kind} ${region(op.offset)} 0x${op.offset.toString(16)})`;
  assert.ok(err !== null, `${where}: the cut struck`);
  // The operation cut is the one enumerated: the same update makes the same operations.
  assert.is(dev.chip.lastCut?.op, op.kind === 'program' ? 'write' : 'erase', where);
  assert.is(dev.chip.lastCut?.offset, op.offset, where);
  if (!selfTest) await powerBack(dev); // the trial a cut may have left is spent by one more reset
  let ran: 'old' | 'new' = 'old';
  for (let r = 0; r < 2; r++) {
    await powerBack(dev);
    const h = dev.booted?.imageHash;
    assert.ok(h === OLD || h === NEW, `${where}: boots ${h}`);
    // Never a mix: what runs is what its slot holds, verified (the bootloader's checks), old or new.
    if (h === NEW) ran = 'new';
    if (!selfTest) assert.ok(h === OLD || dev.booted?.pendingConfirm, `${where}: a failing image never confirmed`);
    const min = readBootState(bootChip(dev.chip)).minCounter;
    assert.ok(min >= 1, `${where}: security counter ${min}`);
    if (!selfTest) assert.is(min, 1, `${where}: an unconfirmed image never raises the counter`);
    // Three resets since the cut: a trial it left is spent, the old image is back.
    if (!selfTest && r === 1) assert.is(h, OLD, `${where}: reverted`);
  }
  assert.ok(dataSnapshot(dev).equals(data), `${where}: ledger and configuration untouched`);
  // The update run again completes: resumed from what the journal holds, or started over.
  dev.firmwareModel!.selfTestPasses = true;
  if (dev.booted?.imageHash !== NEW || dev.booted.pendingConfirm) {
    const again = await update(dev, img);
    assert.is(again, null, `${where}: the update run again completes (${String(again)})`);
  }
  assert.is(dev.booted?.imageHash, NEW, `${where}: completes`);
  assert.not.ok(dev.booted?.pendingConfirm, `${where}: confirmed`);
  assert.is(readBootState(bootChip(dev.chip)).minCounter, 2, `${where}: counter raised by the confirm`);
  return ran;
}

function phases(ops: Op[]): Record<string, number> {
  const n: Record<string, number> = {};
  for (const o of ops) {
    const k = `${o.phase} ${o.kind} ${region(o.offset)}`;
    n[k] = (n[k] ?? 0) + 1;
  }
  return n;
}

test('every flash operation of a 3-chunk update, cut in turn: always old or new, and it completes', async () => {
  const ops = await enumerate(SMALL);
  const n = phases(ops);
  // Every kind of operation an update makes is there.
  for (const k of [
    'begin program updateJournal',
    'begin erase slotB',
    'write program slotB',
    'write program updateJournal',
    'finish program bootState',
    'finish erase updateJournal',
    'reboot program bootState',
  ])
    assert.ok(n[k] > 0, `${k}: ${JSON.stringify(n)}`);
  // The test boot's record and the confirm's, each in both sectors.
  assert.is(n['reboot program bootState'], 4, JSON.stringify(n));
  const seen = { old: 0, new: 0 };
  for (let k = 1; k <= ops.length; k++) seen[await cutAt(SMALL, ops, k)]++;
  assert.ok(seen.old > 0 && seen.new > 0, JSON.stringify(seen));
});

test('every flash operation of an update whose image fails its self-test (test boot, then revert)', async () => {
  const ops = await enumerate(SMALL, false);
  const n = phases(ops);
  assert.is(n['reboot program bootState'], 2, 'the test boot, no confirm');
  assert.is(n['reset program bootState'], 2, 'the revert');
  for (let k = 1; k <= ops.length; k++) await cutAt(SMALL, ops, k, false);
});

test(`${LONG ? 'every' : 'a seeded sample of 40'} flash operation(s) of a two-block update (erase ahead included)`, async () => {
  const ops = await enumerate(BIG);
  const blocks = ops.filter((o) => o.kind === 'erase' && region(o.offset) === 'slotB');
  assert.is(blocks.length, 2, 'one erase a 64 KiB block');
  const rnd = seeded(35);
  const ks = LONG
    ? ops.map((_, i) => i + 1)
    : [
        ...new Set([
          ops.indexOf(blocks[1]) + 1,
          ...Array.from({ length: 39 }, () => 1 + Math.floor(rnd() * ops.length)),
        ]),
      ];
  for (const k of ks) await cutAt(BIG, ops, k);
});

// A cut during FINISH as a technician meets it: `saphir flash` (the CLI, its own process) on a real
// pseudo-terminal; the device loses power in the middle of FINISH's 1st, 2nd or 3rd flash operation (the
// boot-state record in each sector, the journal's erase), the link goes with it, the device starts again.
// It runs the old image or, once the record naming the trial is whole, the new one on trial, confirmed by
// its firmware; the next `saphir flash` completes or finds the image running, confirmed. npm test cuts at
// one of the three, another each day (the test's name says which), npm run test:long at all three.
const DAY = Math.floor(Date.now() / 86_400_000);
for (const k of LONG ? [1, 2, 3] : [1 + (DAY % 3)])
  ptyTest(
    `saphir flash on a pty, power cut at FINISH's flash operation ${k}: boots old or new, the next flash completes`,
    async () => {
      const BAUD = 460800;
      const dev = await flashDevice();
      const data = dataSnapshot(dev);
      const { dir, file } = tempFiles('saphir-finish-cut-');
      const img = file('new.img', SMALL);
      let restarting: Promise<void> | null = null;
      const pty = await devicePty(dev, BAUD, {
        // Once: a request that reaches the unpowered chip before the link is down reports the loss again.
        powerLost: () => {
          if (restarting) return;
          restarting = (async () => {
            await pty.cut();
            dev.chip.cutAtOp(0);
            dev.chip.powerOn();
            await dev.reboot();
            await pty.reconnect();
          })();
        },
      });
      const finish = SlotWriter.prototype.finish;
      let armed = 0;
      SlotWriter.prototype.finish = function (...a: Parameters<typeof finish>) {
        if (armed++ === 0) dev.chip.cutAtOp(k, seeded(k));
        return finish.apply(this, a);
      };
      try {
        const args = ['flash', '--port', pty.path, '--baud', String(BAUD), '--lang', 'en', img];
        const first = await saphirAsync(args, { timeoutMs: 90000 });
        assert.is(armed, 1, 'FINISH reached');
        assert.is(first.code, 1, first.stdout + first.stderr);
        assert.match(first.stderr, /link lost|no answer|serial port closed/, first.stderr);
        assert.ok(dev.chip.lastCut, 'the cut struck');
        const off = dev.chip.lastCut!.offset;
        if (k < 3) assert.is(Math.floor((off - LAYOUT.bootState.offset) / 4096), k - 1, 'the record in sector k');
        else assert.is(off, LAYOUT.updateJournal.offset, "the journal's erase");
        await restarting;
        const h = dev.booted?.imageHash;
        assert.ok(h === OLD || h === hashOf(SMALL), `boots ${h}`);
        const again = await saphirAsync(args, { timeoutMs: 90000 });
        assert.is(again.code, 0, again.stdout + again.stderr);
        assert.match(
          again.stdout,
          /Restarted on 1\.1\.0, confirmed|already runs on the device, confirmed/,
          again.stdout,
        );
        await dev.reboot();
        assert.is(dev.booted?.imageHash, hashOf(SMALL));
        assert.not.ok(dev.booted?.pendingConfirm);
        assert.ok(dataSnapshot(dev).equals(data), 'ledger and configuration untouched');
      } finally {
        SlotWriter.prototype.finish = finish;
        await (restarting as Promise<void> | null)?.catch(() => {});
        await pty.close();
        dev.dispose();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

test.run();
