// Issue #9, reproduction 1 as reported, in the simulator (hw-sim/sim.ts, the real bundle): a
// 3-payment ledger paid at the till, then one random bit flipped in the written bytes of the ledger
// partition, or one of its sectors lost, and a reboot: every paid ticket is still DÉJÀ PAYÉ.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator } from '../../hw-sim/sim.ts';
import { NorFlash, seeded } from '../../hw-sim/nor-flash.ts';
import { LAYOUT, SECTOR_SIZE } from '../../rom/layout.ts';
import { transmit } from '../../hw-sim/scanners/index.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import '../../hw-sim/node-host.ts';

const CLOCK = Date.UTC(2027, 0, 15, 9);
const tickets = [1, 2, 3].map((number) => ({ emission: 1, block: 4, number, prize: 10 }));

async function scan(sim: Simulator, t: (typeof tickets)[number]): Promise<string> {
  await sim.run(sim.transmit(transmit('hid-pos', ticketCode(t), {}, sim.rng)) - sim.now + 10);
  return sim.screen.join(' | ');
}

async function paidChip(): Promise<NorFlash> {
  const sim = new Simulator({ clockMs: CLOCK });
  sim.configure({});
  await sim.boot();
  for (const t of tickets) {
    assert.match(await scan(sim, t), /^GAGNANT/);
    await sim.press('OK');
    assert.match(sim.screen.join(' '), /^PAYÉ/);
    await sim.press('C');
  }
  const chip = new NorFlash({ bytes: sim.chip.bytes });
  sim.dispose();
  return chip;
}

/** Chip offsets of every byte of the ledger partition that is not erased. */
function written(chip: NorFlash): number[] {
  const out: number[] = [];
  for (let i = LAYOUT.ledger.offset; i < LAYOUT.ledger.offset + LAYOUT.ledger.size; i++)
    if (chip.bytes[i] !== 0xff) out.push(i);
  return out;
}

async function allStillPaid(chip: NorFlash, what: string): Promise<void> {
  const sim = new Simulator({ chip, clockMs: CLOCK + 3600000 });
  try {
    await sim.boot();
    assert.match(sim.screen.join(' '), /PRÊT/, what);
    for (const t of tickets) {
      const s = await scan(sim, t);
      assert.ok(
        s.startsWith('DÉJÀ PAYÉ') && s.includes('le 15/01/2027 10:') && s.includes('par SIM-0001'),
        `${what}: ticket ${t.number}: ${s}`,
      );
      await sim.press('C');
    }
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
}

test('issue #9 reproduction 1 in the simulator: random single-bit flips in the written bytes, and each used sector lost', async () => {
  const base = await paidChip();
  const bytes = written(base);
  // 3 payments × 2 logs × 40 bytes, 2 sector headers a log, the time mark's records
  assert.ok(bytes.length > 200, `${bytes.length} written bytes`);
  const r = seeded(99);
  for (let i = 0; i < 12; i++) {
    const chip = new NorFlash({ bytes: base.bytes });
    const at = bytes[Math.floor(r() * bytes.length)];
    chip.bytes[at] ^= 1 << Math.floor(r() * 8);
    await allStillPaid(chip, `flip in byte ${at - LAYOUT.ledger.offset} of the partition`);
  }
  // The sectors that hold something: the two mark sectors and the first sector of each log.
  const used = new Set(bytes.map((b) => Math.floor((b - LAYOUT.ledger.offset) / SECTOR_SIZE)));
  assert.is(used.size, 4);
  for (const s of used) {
    for (const how of ['erased', 'garbage']) {
      const chip = new NorFlash({ bytes: base.bytes });
      const at = LAYOUT.ledger.offset + s * SECTOR_SIZE;
      for (let i = 0; i < SECTOR_SIZE; i++) chip.bytes[at + i] = how === 'erased' ? 0xff : Math.floor(r() * 256);
      await allStillPaid(chip, `sector ${s} ${how}`);
    }
  }
});

test.run();
