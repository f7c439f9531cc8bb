// The check journal (src/journal.ts) and the X/Z report (src/report.ts), on the simulated NOR chip in
// Node: a ring that survives power cuts and flipped bits and wraps over its oldest sector; a report's
// period, payments and refusals. Not yet wired into the firmware (docs/firmware.md, "At the counter").
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NorFlash, PowerCut } from '../../hw-sim/nor-flash.ts';
import { SECTOR_SIZE } from '../../hw-sim/layout.ts';
import { Journal, JOURNAL_Z_BLOCKS, type JournalEntry, type JournalKind } from '../../src/journal.ts';
import { makeReport, ticketKey } from '../../src/report.ts';

/** A free area of the simulated chip (hw-sim/layout.ts): the journal is not on the device's layout yet. */
const AT = 0x312000;

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

test.run();
