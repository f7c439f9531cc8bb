// The check journal (src/journal.ts) and the X/Z report (src/report.ts): a ring that survives power cuts
// and flipped bits and wraps over its oldest sector; reports whose payment totals are the ledger's. On
// the simulated NOR chip in Node, then on the real bundle.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NorFlash, PowerCut } from '../../hw-sim/nor-flash.ts';
import { LAYOUT, SECTOR_SIZE } from '../../rom/layout.ts';
import { Journal, JOURNAL_Z_BLOCKS, type JournalEntry, type JournalKind } from '../../src/journal.ts';
import { makeReport, ticketKey } from '../../src/report.ts';
import { readMark } from '../../src/ledger/index.ts';
import { partitionFlash } from '../../hw-sim/device.ts';
import { boot, bundleText, chipWith, ledgerEntries, scanSerial, testConfig, ticket } from '../firmware/harness.ts';
import { Simulator } from '../../hw-sim/sim.ts';

const AT = LAYOUT.journal.offset;

const T0 = Date.UTC(2026, 5, 15, 8);
const entry = (i: number, kind: JournalKind = 'lose'): JournalEntry => ({
  kind,
  reason: 0,
  emission: 1,
  block: i >> 8,
  number: 2_999_000 + i,
  prizeEur: kind === 'lose' ? 0 : 250000,
  atMs: T0 + i * 1000,
});
const all = (j: Journal) => {
  const out: JournalEntry[] = [];
  j.forEach((e) => out.push(e));
  return out;
};

test('journal: entries read back in order, across reopen; a torn or flipped record reads as none', () => {
  const chip = new NorFlash();
  const flash = () => chip.partition(AT, 4 * SECTOR_SIZE);
  const j = new Journal(flash());
  for (let i = 0; i < 300; i++) j.append(entry(i, i % 3 ? 'lose' : 'win'));
  assert.equal(
    all(new Journal(flash())),
    [...Array(300).keys()].map((i) => entry(i, i % 3 ? 'lose' : 'win')),
  );
  // A bit flipped in record 10 (first ring sector, past its header): that entry goes, no other.
  const at = AT + JOURNAL_Z_BLOCKS * SECTOR_SIZE + 16 * 11 + 3;
  chip.write(new Uint8Array([chip.peek(at, 1)[0] & 0xfe]), at);
  const back = all(new Journal(flash()));
  assert.is(back.length, 299);
  assert.not.ok(back.some((e) => e.number === 2_999_010));
  // A power cut in the middle of an append: the reopened journal goes on after it, nothing lost before.
  chip.cutAtOp(1);
  assert.throws(
    () => new Journal(flash()).append(entry(300)),
    (e: unknown) => e instanceof PowerCut,
  );
  chip.powerOn();
  const j2 = new Journal(flash());
  j2.append(entry(301));
  const after = all(new Journal(flash()));
  assert.is(after.at(-1)!.number, 2_999_301);
  assert.ok(after.length >= 300, `${after.length}`);
});

test('journal: a full ring erases its oldest sector and keeps the newest entries in order', () => {
  const chip = new NorFlash();
  const flash = () => chip.partition(AT, 5 * SECTOR_SIZE); // 3 ring sectors, 765 slots
  let j = new Journal(flash());
  for (let i = 0; i < 2000; i++) {
    if (i % 500 === 0) j = new Journal(flash()); // reboots on the way
    j.append(entry(i));
  }
  const back = all(new Journal(flash())).map((e) => e.number - 2_999_000);
  assert.ok(back.length >= 510 && back.length <= 765, `${back.length}`);
  assert.is(back.at(-1), 1999);
  assert.ok(
    back.every((n, k) => k === 0 || n === back[k - 1] + 1),
    'oldest first, no gap',
  );
  // Too small for a ring: appends are dropped, never thrown.
  const tiny = new Journal(chip.partition(AT, 3 * SECTOR_SIZE));
  tiny.append(entry(1));
});

test('report: the period, payments and today from the ledger, unpaid wins and refusals from the journal', () => {
  const day = Date.UTC(2026, 5, 15, 22); // 00:00 Paris on 16 June
  const pays = [
    { emission: 1, block: 0, number: 1, prizeEur: 150, paidAtMs: day - 3600e3 },
    { emission: 1, block: 0, number: 2, prizeEur: 30, paidAtMs: day + 60e3 },
    { emission: 1, block: 0, number: 3, prizeEur: 10, paidAtMs: day - 10 * 86400e3 }, // before the last Z
  ];
  const j: JournalEntry[] = [
    { ...entry(0, 'win'), number: 1, block: 0, prizeEur: 150, atMs: day - 3700e3 },
    { ...entry(0, 'win'), number: 4, block: 0, prizeEur: 15, atMs: day - 3700e3 },
    { ...entry(0, 'win'), number: 4, block: 0, prizeEur: 15, atMs: day - 3600e3 }, // the same, scanned again
    { ...entry(0, 'invalid'), reason: 6, atMs: day },
    { ...entry(0, 'invalid'), reason: 255, atMs: day },
    { ...entry(0, 'already-paid'), atMs: day },
    { ...entry(0, 'centre'), atMs: day },
    { ...entry(0, 'lose'), atMs: day - 20 * 86400e3 }, // before the period
  ];
  const paidKeys = new Set(pays.map(ticketKey));
  const r = makeReport(
    day - 5 * 86400e3,
    day + 3600e3,
    day,
    (f) => pays.forEach(f),
    (f) => j.forEach(f),
    (e) => paidKeys.has(ticketKey(e)),
  );
  assert.equal(
    [r.payments, r.totalEur, r.today, r.todayEur, r.firstPaidMs, r.lastPaidMs],
    [2, 180, 1, 30, day - 3600e3, day + 60e3],
  );
  assert.equal([r.unpaidWins, r.unpaidEur, r.centre, r.scans], [1, 15, 1, 7]);
  assert.equal(r.refused, { E_SIGNATURE: 1, E_EMISSION: 1, 'already-paid': 1 });
});

test('device: every verdict is journaled; X and Z totals equal the ledger; a Z survives a power cut and closes the period', async () => {
  const chip = chipWith(testConfig({ payoutLimitEur: 300 }));
  const sim = await boot(chip, {});
  const ledgerTotal = () => ledgerEntries(chip).reduce((a, p) => a + p.prizeEur, 0);
  try {
    for (const [n, prize, key] of [
      [1, 150, 'OK'],
      [2, 30, 'OK'],
      [3, 10, 'C'],
      [4, 0, 'OK'],
      [5, 500, 'OK'],
    ] as const) {
      await scanSerial(sim, ticket({ emission: 1, number: n, prizeEur: prize }));
      await sim.press(key);
      if (key === 'OK' && prize && prize <= 300) assert.equal(sim.screen[0], 'PAYÉ');
      await sim.press('C');
    }
    await scanSerial(sim, ticket({ emission: 1, number: 1, prizeEur: 150 })); // DÉJÀ PAYÉ
    await sim.press('C');
    for (const k of ['1', 'OK'] as const) await sim.press(k);
    const x = sim.printer!.last!.text.join('\n');
    assert.match(x, /RAPPORT X/);
    assert.ok(x.includes(`Paiements 2: ${ledgerTotal()} €`), x);
    assert.match(x, /Gains non payés 1: 10 €/);
    assert.match(x, /Envoyés en centre 1/);
    assert.match(x, / already-paid 1/);
    assert.match(sim.screen.join('|'), /RAPPORT X\|2 paiements\|1 non payés\|180 €/);
    const journal = new Journal(partitionFlash(chip, 'journal'));
    const kinds = all(journal).map((e) => e.kind);
    assert.equal(kinds, ['win', 'paid', 'win', 'paid', 'win', 'lose', 'centre', 'already-paid']);
    // Z: 2, OK asks; C leaves the period open; OK closes it. A power cut in the close keeps it whole.
    await sim.press('C');
    for (const k of ['2', 'OK', 'C'] as const) await sim.press(k);
    assert.is(readMark(partitionFlash(chip, 'journal')), 0, 'C: not closed');
    for (const k of ['2', 'OK'] as const) await sim.press(k);
    assert.match(sim.screen[0], /Clôturer/);
    chip.cutAtOp(2); // the second sector of the Z mark
    await sim.press('OK').catch(() => undefined);
  } finally {
    sim.dispose();
  }
  chip.powerOn();
  const zAt = readMark(partitionFlash(chip, 'journal'));
  assert.ok(zAt > 0, 'the Z is on flash from its first sector on');
  const sim2 = await boot(chip, {});
  try {
    await sim2.run(2000); // the next second: the Z's own belongs to the closed period
    await scanSerial(sim2, ticket({ emission: 1, number: 7, prizeEur: 30 }));
    await sim2.press('OK');
    await sim2.press('C');
    for (const k of ['1', 'OK'] as const) await sim2.press(k);
    const x = sim2.printer!.last!.text.join('\n');
    assert.match(x, /Paiements 1: 30 €/, x + '\n' + sim2.periph!.logs.join('\n'));
    assert.match(x, /Gains non payés 0: 0 €/);
  } finally {
    sim2.dispose();
  }
});

test('a device without the journal partition pays as before and says why it keeps no journal', async () => {
  const chip = chipWith(testConfig());
  const sim = new Simulator({ chip, bundle: await bundleText(), journal: false, ledgerSectors: 16 });
  await sim.boot();
  try {
    await scanSerial(sim, ticket({ emission: 1, number: 9, prizeEur: 30 }));
    await sim.press('OK');
    assert.equal(sim.screen[0], 'PAYÉ');
    assert.match(sim.periph!.logs.join('\n'), /journal: no journal partition/);
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
  assert.is(ledgerEntries(chip).length, 1);
});

test.run();
