// The scan → pay path at its edges, on the real bundle in QuickJS: a claim period that ends while a
// win waits for OK, a beeper, LED or display that fails once the payment is on flash, and a device
// with no trusted time at all (docs/firmware.md "Paying", docs/ledger.md "Trusted time").
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Simulator } from '../../hw-sim/sim.ts';
import { markView, readMark } from '../../src/ledger/index.ts';
import { BEEPS } from '../../src/signals.ts';
import { claimEndMs } from '../../firmware/deadline.ts';
import { TEXT, payLaterScreen } from '../../firmware/screens.ts';
import {
  bootedAt,
  chipWith,
  flat,
  lastTones,
  ledgerEntries,
  partitionOf,
  scanSerial,
  testConfig,
  ticket,
} from './harness.ts';

const HOUR = 3600000;
const DAY = 24 * HOUR;
/** Emission 9 of testConfig closes on 2026-01-10; emission 1 on 2026-12-31. */
const END9 = claimEndMs('2026-01-10');
const END1 = claimEndMs('2026-12-31');
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const at = bootedAt;

const logs = (sim: Simulator) => sim.periph!.logs.join('\n');

test('a win shown before the claim deadline and confirmed after it is TICKET EXPIRÉ: nothing recorded, the time stored', async () => {
  const chip = chipWith(testConfig());
  await at(chip, END9 - 10000, async (sim) => {
    await scanSerial(sim, ticket({ emission: 9, number: 7, prizeEur: 150 }));
    assert.match(flat(sim.screen), /^GAGNANT \| 9-0-7 \| OK payer/);
    await sim.run(30000); // the clerk waits: the deadline passes with GAGNANT on screen
    await sim.press('OK');
    assert.equal(sim.screen, ['TICKET EXPIRÉ', 'Limite 09/02/2026', '9-0-7', 'NON PAYABLE']);
    assert.ok(same(lastTones(sim), BEEPS.refused));
    assert.match(logs(sim), /9-0-7: expired before OK/);
    // A second one at the same moment: EXPIRED at once.
    await scanSerial(sim, ticket({ emission: 9, number: 8, prizeEur: 150 }));
    assert.match(flat(sim.screen), /^TICKET EXPIRÉ/);
  });
  assert.equal(ledgerEntries(chip), [], 'nothing paid after the deadline');
  assert.ok(readMark(markView(partitionOf(chip, 'ledger'))) >= END9, 'the time that expired it is on flash');
  // The clock set back before the deadline at the next boot brings nothing back.
  await at(chip, END9 - HOUR, async (sim) => {
    await scanSerial(sim, ticket({ emission: 9, number: 7, prizeEur: 150 }));
    assert.match(flat(sim.screen), /^TICKET EXPIRÉ/);
  });
  // Confirmed just before the deadline: paid, dated before it.
  const chip2 = chipWith(testConfig());
  await at(chip2, END9 - 30000, async (sim) => {
    await scanSerial(sim, ticket({ emission: 9, number: 7, prizeEur: 150 }));
    await sim.run(20000);
    await sim.press('OK');
    assert.match(flat(sim.screen), /^PAYÉ/);
  });
  const paid = ledgerEntries(chip2);
  assert.is(paid.length, 1);
  assert.ok(paid[0].paidAtMs < END9);
});

for (const what of ['beeper', 'led', 'display'] as const) {
  test(`the ${what} failing once the payment is on flash: PAYÉ stays, the fault is logged, no ERREUR`, async () => {
    const chip = chipWith(testConfig());
    await at(chip, undefined, async (sim) => {
      await scanSerial(sim, ticket({ emission: 1, number: 11, prizeEur: 150 }));
      assert.match(flat(sim.screen), /^GAGNANT/);
      sim.periph!.failNext = what;
      await sim.press('OK');
      assert.equal(sim.screen, ['PAYÉ', 'Paiement enregistré', '', '150 €']);
      assert.match(logs(sim), new RegExp(`error after payment: ${what} failure`));
      assert.ok(
        sim.periph!.logs.some((l) => /^paid 1-0-11 150 EUR/.test(l)),
        logs(sim),
      );
      if (what !== 'beeper') assert.ok(same(lastTones(sim), BEEPS.paid), 'the paid chirp');
      assert.not.ok(
        sim.screens.some((s) => /ERREUR/.test(s.lines[0])),
        'never ERREUR',
      );
      await sim.run(10000);
      assert.match(flat(sim.screen), /PRÊT/);
      await scanSerial(sim, ticket({ emission: 1, number: 11, prizeEur: 150 }));
      assert.match(flat(sim.screen), /^DÉJÀ PAYÉ/);
    });
    assert.is(ledgerEntries(chip).length, 1);
  });
}

test('a fresh device whose RTC is unset (2000-01-01): wins are not payable until a clock is believed', async () => {
  const chip = chipWith(testConfig());
  await at(chip, Date.UTC(2000, 0, 1), async (sim) => {
    assert.match(flat(sim.screen), /PRÊT/);
    for (const emission of [9, 1]) {
      await scanSerial(sim, ticket({ emission, number: 8, prizeEur: 150 }));
      assert.equal(sim.screen, ['NON PAYABLE', 'horloge non réglée', 'payer plus tard', '150 €']);
      assert.ok(same(lastTones(sim), BEEPS.refused));
      await sim.press('OK');
      assert.match(flat(sim.screen), /PRÊT/, 'OK pays nothing');
    }
    assert.match(logs(sim), /clock: no trusted time, 9-0-8 not payable/);
    // What needs no clock still works.
    await scanSerial(sim, ticket({ emission: 1, number: 9 }));
    assert.match(flat(sim.screen), /^PERDANT/);
    await sim.run(60000);
    await scanSerial(sim, ticket({ emission: 1, number: 8, prizeEur: 150 }));
    assert.match(flat(sim.screen), /^NON PAYABLE \| horloge non réglée/, 'still not payable a minute on');
  });
  assert.equal(ledgerEntries(chip), []);
  // The clock set (a plausible RTC): payable again, dated with it; the long-closed emission expired.
  const t = Date.UTC(2026, 5, 15, 10);
  await at(chip, t, async (sim) => {
    await scanSerial(sim, ticket({ emission: 9, number: 8, prizeEur: 150 }));
    assert.match(flat(sim.screen), /^TICKET EXPIRÉ/);
    await scanSerial(sim, ticket({ emission: 1, number: 8, prizeEur: 150 }));
    await sim.press('OK');
    assert.match(flat(sim.screen), /^PAYÉ/);
  });
  const paid = ledgerEntries(chip);
  assert.is(paid.length, 1);
  assert.ok(paid[0].paidAtMs >= t && paid[0].paidAtMs < t + HOUR);
});

test('a fresh device whose far-ahead clock was refused (C) has no trusted time: wins are not payable', async () => {
  const chip = chipWith(testConfig());
  await at(chip, END1 + 100 * DAY, async (sim) => {
    assert.match(flat(sim.screen), /^HORLOGE EN AVANCE/);
    await sim.press('C');
    await scanSerial(sim, ticket({ emission: 1, number: 5, prizeEur: 30 }));
    assert.match(flat(sim.screen), /^NON PAYABLE \| horloge non réglée/);
    await sim.press('OK');
  });
  assert.equal(ledgerEntries(chip), []);
});

test('the no-clock screen, French and English: 4 rows of at most 20 columns', () => {
  assert.equal(payLaterScreen(150, 'fr', TEXT.fr.clockUnset), [
    'NON PAYABLE',
    'horloge non réglée',
    'payer plus tard',
    '150 €',
  ]);
  assert.equal(payLaterScreen(150, 'en', TEXT.en.clockUnset), ['NOT PAYABLE', 'clock not set', 'pay later', '€150']);
  assert.equal(payLaterScreen(150, 'en'), ['NOT PAYABLE', 'network unavailable', 'pay later', '€150']);
});

test.run();
