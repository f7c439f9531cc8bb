// The scan → pay path at its edges, on the real bundle in QuickJS: a beeper, LED or display that
// fails once the payment is on flash (docs/firmware.md "Paying").
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NorFlash } from '../../hw-sim/nor-flash.ts';
import type { Simulator } from '../../hw-sim/sim.ts';
import { BEEPS } from '../../src/signals.ts';
import { boot, chipWith, flat, lastTones, ledgerEntries, scanSerial, testConfig, ticket } from './harness.ts';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Boots `chip` with the RTC at `rtc`, runs `f`, shuts the VM down; nothing escaped the app. */
async function at(chip: NorFlash, rtc: number | undefined, f: (sim: Simulator) => Promise<void>): Promise<void> {
  const sim = await boot(chip, { clockMs: rtc });
  try {
    await f(sim);
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
}

const logs = (sim: Simulator) => sim.periph!.logs.join('\n');

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

test.run();
