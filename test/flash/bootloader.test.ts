import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  bootSelect,
  installImage,
  provision,
  readBootState,
  writeState,
  bootInfo,
  type BootedImage,
} from '../../rom/bootloader.ts';
import { LAYOUT } from '../../rom/layout.ts';
import { NorFlash, PowerCut, seeded } from '../../hw-sim/nor-flash.ts';
import { bootChip } from '../../hw-sim/sim.ts';
import type { NorChip } from '../../rom/bootloader.ts';
import { image, hashOf } from './images.ts';
import { LONG } from '../helpers.ts';

const OLD = image({ version: '1.0.0', counter: 1, size: 12000 });
const NEW = image({ version: '1.1.0', counter: 2, size: 16000 });

type TestChip = NorChip & { nor: NorFlash; data: Uint8Array };

function fresh(): TestChip {
  const nor = new NorFlash();
  const chip: TestChip = { ...bootChip(nor), nor, data: nor.bytes };
  provision(chip, OLD, 1);
  // Something in the ledger partition, which the bootloader must never touch.
  chip.data.fill(0x5a, LAYOUT.ledger.offset, LAYOUT.ledger.offset + 5000);
  return chip;
}

function boot(chip: NorChip): BootedImage {
  const b = bootSelect(chip);
  if ('error' in b) throw new Error(b.error);
  return b;
}

test('factory image boots confirmed', () => {
  const b = boot(fresh());
  assert.is(b.slot, 0);
  assert.is(b.version, '1.0.0');
  assert.not.ok(b.pendingConfirm);
  assert.is(b.imageHash, hashOf(OLD));
});

test('update: test boot, confirm, survives resets; counter raised', () => {
  const chip = fresh();
  const r = installImage(chip, NEW);
  assert.ok(r.ok);
  const b = boot(chip);
  assert.is(b.version, '1.1.0');
  assert.ok(b.pendingConfirm);
  b.confirm();
  for (let i = 0; i < 3; i++) {
    const again = boot(chip);
    assert.is(again.version, '1.1.0');
    assert.not.ok(again.pendingConfirm);
  }
  assert.is(readBootState(chip).minCounter, 2);
  const info = bootInfo(chip);
  assert.is(info.slots[0].version, '1.0.0');
  assert.is(info.slots[1].status, 'valid');
});

test('unconfirmed update is reverted at the next reset', () => {
  const chip = fresh();
  assert.ok(installImage(chip, NEW).ok);
  assert.ok(boot(chip).pendingConfirm);
  const b = boot(chip);
  assert.is(b.version, '1.0.0');
  assert.not.ok(b.pendingConfirm);
  assert.is(boot(chip).version, '1.0.0');
});

test('refusals leave the chip byte for byte as it was', () => {
  const chip = fresh();
  const corrupted = NEW.slice();
  corrupted[5000] ^= 1;
  const cases: [Uint8Array, string][] = [
    [image({ version: '2.0.0', counter: 3, seed: new Uint8Array(32).fill(7) }), 'signature'],
    [image({ version: '2.0.0', counter: 3, board: 0x1234 }), 'board'],
    [image({ version: '0.9.0', counter: 0 }), 'rollback'],
    [NEW.subarray(0, NEW.length - 10), 'malformed'],
    [NEW.subarray(0, 1000), 'malformed'],
    [corrupted, 'hash'],
    [new Uint8Array(0), 'malformed'],
  ];
  const before = chip.data.slice();
  for (const [bytes, reason] of cases) {
    const r = installImage(chip, bytes);
    assert.not.ok(r.ok);
    if (!r.ok) assert.is(r.reason, reason);
    assert.ok(Buffer.compare(chip.data, before) === 0, reason);
  }
  assert.is(boot(chip).version, '1.0.0');
});

test('a slot corrupted on flash is never started', () => {
  const chip = fresh();
  assert.ok(installImage(chip, NEW).ok);
  chip.data[LAYOUT.slotB.offset + 100] ^= 0x10;
  const b = boot(chip);
  assert.is(b.version, '1.0.0');
  assert.not.ok(b.pendingConfirm);
  chip.data[LAYOUT.slotA.offset + 100] ^= 0x10;
  const none = bootSelect(chip);
  assert.ok('error' in none);
});

test('boot state survives many updates (sector rollover)', () => {
  const chip = fresh();
  let counter = 1;
  for (let i = 0; i < 150; i++) {
    const img = image({ version: `1.${i % 200}.0`, counter: ++counter, size: 800 });
    assert.ok(installImage(chip, img).ok);
    const b = boot(chip);
    assert.ok(b.pendingConfirm);
    b.confirm();
    assert.is(boot(chip).imageHash, hashOf(img));
  }
});

test('v2 confirmed, then every bit of either copy of the newest state record flipped, or either state sector lost: never boots v1, the counter stays 2', () => {
  const chip = fresh();
  assert.ok(installImage(chip, NEW).ok);
  boot(chip).confirm();
  // A few more records, so the newest is not the first of its sector.
  for (let i = 0; i < 3; i++) assert.is(boot(chip).version, '1.1.0');
  const at = LAYOUT.bootState.offset;
  const size = LAYOUT.bootState.size;
  const saved = chip.data.slice(at, at + size);
  const seq = readBootState(chip).seq;
  // The newest record's place in each sector.
  const newest: number[] = [];
  for (let s = 0; s < 2; s++) {
    let found = -1;
    for (let i = 0; i < 4096 / 32; i++) {
      const o = at + s * 4096 + i * 32;
      const v = new DataView(chip.data.buffer, chip.data.byteOffset + o, 8);
      if (v.getUint32(0, true) === 0x31545342 && v.getUint32(4, true) === seq) found = o;
    }
    assert.ok(found >= 0, `sector ${s} holds the newest record`);
    newest.push(found);
  }
  const check = (what: string) => {
    for (let k = 0; k < 2; k++) {
      const b = boot(chip);
      assert.is(b.version, '1.1.0', what);
      assert.is(b.securityCounter, 2, what);
      assert.is(readBootState(chip).minCounter, 2, what);
    }
    // Both sectors hold the newest state again: one more fault in the other copy is survived too.
    for (let s = 0; s < 2; s++) {
      const other = chip.data.slice(at + (1 - s) * 4096, at + (2 - s) * 4096);
      chip.data.fill(0xff, at + (1 - s) * 4096, at + (2 - s) * 4096);
      assert.is(boot(chip).version, '1.1.0', `${what}, then sector ${1 - s} lost`);
      chip.data.set(other, at + (1 - s) * 4096);
    }
    chip.data.set(saved, at);
  };
  let cases = 0;
  for (const o of newest)
    for (let bit = 0; bit < 256; bit++) {
      chip.data[o + (bit >> 3)] ^= 1 << (bit & 7);
      check(`bit ${bit} of the record at ${o - at}`);
      cases++;
    }
  for (let s = 0; s < 2; s++) {
    chip.data.fill(0xff, at + s * 4096, at + (s + 1) * 4096);
    check(`sector ${s} erased`);
    chip.data.fill(0x00, at + s * 4096, at + (s + 1) * 4096);
    check(`sector ${s} zeroed`);
    cases += 2;
  }
  assert.is(cases, 516);
});

test('no state record lowers the security counter, whatever a writer asks: only factory provisioning (which erases the state) does', () => {
  const chip = fresh();
  assert.ok(installImage(chip, NEW).ok);
  boot(chip).confirm();
  writeState(chip, { minCounter: 0 });
  assert.is(readBootState(chip).minCounter, 2);
  assert.is(boot(chip).version, '1.1.0');
  provision(chip, OLD, 1);
  assert.is(readBootState(chip).minCounter, 1);
});

// npm test cuts at 75 of them, npm run test:long at all 300 (bootloader.long.ts).
const CUTS = LONG ? 300 : 75;
test(`power cut at ${CUTS} seeded points of transfer-to-slot, swap and confirm: always a valid image, ledger intact`, () => {
  // Count the flash operations of one whole update.
  const probe = fresh();
  const start = probe.nor.ops;
  installImage(probe, NEW);
  boot(probe).confirm();
  boot(probe);
  const total = probe.nor.ops - start;
  assert.ok(total > 60);
  const hashes = new Set([hashOf(OLD), hashOf(NEW)]);
  const ledgerBefore = fresh().data.slice(LAYOUT.ledger.offset, LAYOUT.ledger.offset + LAYOUT.ledger.size);
  let sawOld = 0;
  let sawNew = 0;
  for (let seed = 1; seed <= CUTS; seed++) {
    const chip = fresh();
    const rnd = seeded(seed);
    chip.nor.cutAtOp(1 + Math.floor(rnd() * total), rnd);
    try {
      installImage(chip, NEW);
      const b = boot(chip);
      if (seed % 3 !== 0) b.confirm();
      boot(chip);
      chip.nor.cutAtOp(0);
    } catch (e) {
      if (!(e instanceof PowerCut)) throw e;
    }
    chip.nor.powerOn();
    // Second cut, during the recovery boot, for a third of the seeds.
    if (seed % 3 === 1) {
      chip.nor.cutAtOp(1 + (seed % 2), rnd);
      try {
        boot(chip);
      } catch (e) {
        if (!(e instanceof PowerCut)) throw e;
      }
      chip.nor.cutAtOp(0);
      chip.nor.powerOn();
    }
    for (let r = 0; r < 3; r++) {
      const b = boot(chip);
      assert.ok(hashes.has(b.imageHash), `seed ${seed}`);
      if (b.imageHash === hashOf(NEW)) sawNew++;
      else sawOld++;
      if (b.pendingConfirm && r === 1) b.confirm();
    }
    const ledger = chip.data.subarray(LAYOUT.ledger.offset, LAYOUT.ledger.offset + LAYOUT.ledger.size);
    assert.ok(Buffer.compare(ledger, ledgerBefore) === 0, `ledger seed ${seed}`);
    // And the device still takes an update afterwards.
    if (seed % 25 === 0) {
      const next = image({ version: '3.0.0', counter: 3, size: 3000 });
      const r = installImage(chip, next);
      assert.ok(r.ok, `seed ${seed}: ${!r.ok && r.detail}`);
      boot(chip).confirm();
      assert.is(boot(chip).version, '3.0.0');
    }
  }
  assert.ok(sawOld > 0 && sawNew > 0);
});

test('garbage in the boot state or the slots never crashes the bootloader', () => {
  const rnd = seeded(77);
  for (let k = 0; k < 60; k++) {
    const chip = fresh();
    assert.ok(installImage(chip, NEW).ok);
    // Scribble over part of the boot state (bits only cleared, as NOR would) or a slot header.
    const area = k % 3 === 0 ? LAYOUT.slotB.offset : k % 3 === 1 ? LAYOUT.slotA.offset : LAYOUT.bootState.offset;
    const span = k % 3 === 2 ? LAYOUT.bootState.size : 64;
    for (let i = 0; i < 40; i++) chip.data[area + Math.floor(rnd() * span)] &= Math.floor(rnd() * 256);
    // One slot at least still holds a good image: it must be found, whatever the state says.
    const b = bootSelect(chip);
    if ('error' in b) throw new Error(`case ${k}: ${b.error}`);
    assert.ok([hashOf(OLD), hashOf(NEW)].includes(b.imageHash));
  }
});

test.run();
