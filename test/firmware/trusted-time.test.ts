// Trusted time (docs/ledger.md) with the real bundle in QuickJS: the mark is on flash before a
// compaction drops a payment and before an EXPIRED verdict, so a clock set back by a few hours
// and a reboot never make a paid or an expired ticket payable.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { seeded } from '../../hw-sim/nor-flash.ts';
import { MirroredLedger, markView, readMark } from '../../src/ledger/index.ts';
import { CMD } from '../../src/service/packet.ts';
import { jsonBytes } from '../../src/service/json.ts';
import { directPort } from '../flash/harness.ts';
import { Simulator } from '../../hw-sim/sim.ts';
import { claimEndMs } from '../../firmware/deadline.ts';
import { clockScreen } from '../../firmware/screens.ts';
import { DEVICE_ID, bootedAt, chipWith, flat, partitionOf, scanSerial, testConfig, ticket } from './harness.ts';
import { LONG } from '../helpers.ts';

const HOUR = 3600000;
/** Emission 9 of testConfig closes on 2026-01-10. */
const END9 = claimEndMs('2026-01-10');

const at = bootedAt;

const scan = async (sim: Simulator, number: number) => {
  await scanSerial(sim, ticket({ emission: 9, number, prizeEur: 150 }));
  return flat(sim.screen);
};

test('a compaction stores the mark first: the clock set back a few hours does not bring the payment back', async () => {
  const chip = chipWith(testConfig({ compactFreeSectors: 65535 }));
  await at(chip, END9 - 6 * HOUR, async (sim) => {
    assert.match(await scan(sim, 1), /^GAGNANT/);
    await sim.press('OK');
    assert.match(flat(sim.screen), /^PAYÉ/);
  });
  // One hour past the deadline (less than a day after the mark stored at the first boot): dropped.
  await at(chip, END9 + HOUR, async (sim) =>
    assert.ok(
      sim.periph!.logs.some((l) => /1 expired payments dropped/.test(l)),
      sim.periph!.logs.join('\n'),
    ),
  );
  assert.is(MirroredLedger.open(partitionOf(chip, 'ledger')).count, 0);
  assert.ok(readMark(markView(partitionOf(chip, 'ledger'))) >= END9);
  // Back before the deadline: behind the mark, not believed.
  await at(chip, END9 - 3 * HOUR, async (sim) => {
    assert.ok(sim.periph!.logs.some((l) => /clock: RTC .* not believed/.test(l)));
    assert.match(await scan(sim, 1), /^TICKET EXPIRÉ/);
    await sim.press('OK');
  });
  assert.is(MirroredLedger.open(partitionOf(chip, 'ledger')).count, 0, 'nothing paid');
});

test('an EXPIRED verdict stores the mark: the clock set back a few hours keeps the ticket expired', async () => {
  const chip = chipWith(testConfig({ compactFreeSectors: 0 }));
  await at(chip, END9 - 6 * HOUR, async (sim) => assert.match(await scan(sim, 2), /^GAGNANT/));
  await at(chip, END9 + HOUR, async (sim) => assert.match(await scan(sim, 2), /^TICKET EXPIRÉ/));
  await at(chip, END9 - 3 * HOUR, async (sim) => {
    assert.match(await scan(sim, 2), /^TICKET EXPIRÉ/);
    await sim.press('OK');
  });
  assert.is(MirroredLedger.open(partitionOf(chip, 'ledger')).count, 0);
});

test('both mark sectors lost: the latest payment time is the mark, so a clock set back keeps a ticket expired', async () => {
  const chip = chipWith();
  await at(chip, END9 + HOUR, async (sim) => {
    await scanSerial(sim, ticket({ emission: 1, number: 5, prizeEur: 150 }));
    assert.match(flat(sim.screen), /^GAGNANT/);
    await sim.press('OK');
    assert.match(flat(sim.screen), /^PAYÉ/);
  });
  const marks = markView(partitionOf(chip, 'ledger'));
  marks.eraseBlock(0);
  marks.eraseBlock(1);
  assert.is(readMark(marks), 0);
  await at(chip, END9 - 3 * HOUR, async (sim) => {
    assert.ok(
      sim.periph!.logs.some((l) => /clock: RTC .* not believed/.test(l)),
      sim.periph!.logs.join('\n'),
    );
    assert.match(await scan(sim, 3), /^TICKET EXPIRÉ/);
  });
});

test('a device left running stores trusted time within a day: a reboot with the clock set back keeps a ticket expired', async () => {
  const chip = chipWith(testConfig({ compactFreeSectors: 0 }));
  await at(chip, END9 - 36 * HOUR, async (sim) => {
    sim.setClock(END9 + HOUR); // the RTC moves on (37 h, within clockJumpDays): no scan, no verdict
    await sim.run(5000);
  });
  assert.ok(readMark(markView(partitionOf(chip, 'ledger'))) >= END9 + HOUR, 'stored by an idle tick');
  await at(chip, END9 - 30 * HOUR, async (sim) => assert.match(await scan(sim, 4), /^TICKET EXPIRÉ/));
});

test('a payment is dated with trusted time when the clock is behind; a far jump waits for OK or C', async () => {
  const chip = chipWith(testConfig());
  const t = Date.UTC(2026, 5, 15, 10);
  await at(chip, t, () => {});
  // One week behind: not believed; the payment is dated from the mark (and the monotonic time since).
  await at(chip, t - 7 * 24 * HOUR, async (sim) => {
    await scanSerial(sim, ticket({ emission: 1, number: 3, prizeEur: 150 }));
    await sim.press('OK');
    assert.match(flat(sim.screen), /^PAYÉ/);
  });
  const p = MirroredLedger.open(partitionOf(chip, 'ledger')).find({ emission: 1, block: 0, number: 3 })!;
  assert.ok(p.paidAtMs >= t && p.paidAtMs < t + HOUR, `${new Date(p.paidAtMs).toISOString()}`);
  // 90 days ahead (more than clockJumpDays, 60): asked; scans wait; C refuses and nothing is stored.
  const ahead = t + 90 * 24 * HOUR;
  await at(chip, ahead, async (sim) => {
    assert.match(flat(sim.screen), /^HORLOGE EN AVANCE/);
    await scanSerial(sim, ticket({ emission: 1, number: 4, prizeEur: 150 }));
    assert.match(flat(sim.screen), /^HORLOGE EN AVANCE/, 'no scan while the clock is asked about');
    await sim.press('C');
    assert.match(flat(sim.screen), /PRÊT/);
    await sim.run(60000);
    assert.match(flat(sim.screen), /PRÊT/, 'not asked again before a reboot');
  });
  assert.ok(readMark(markView(partitionOf(chip, 'ledger'))) < ahead - 80 * 24 * HOUR);
  // Asked again at the next boot; OK stores it.
  await at(chip, ahead, async (sim) => {
    assert.match(flat(sim.screen), /^HORLOGE EN AVANCE/);
    await sim.press('OK');
    assert.match(flat(sim.screen), /PRÊT/);
  });
  assert.ok(readMark(markView(partitionOf(chip, 'ledger'))) >= ahead);
  await at(chip, ahead + HOUR, async (sim) => assert.match(flat(sim.screen), /PRÊT/));
});

test('CLOCK over the service port raises the mark (never lowers it); a far-ahead clock near it is then believed without asking', async () => {
  const chip = chipWith(testConfig());
  const t = Date.UTC(2026, 5, 15, 10);
  await at(chip, t, () => {});
  // The service port of the device, powered off between the boots.
  const { port, json, authenticate } = directPort(new Simulator({ chip, deviceId: DEVICE_ID }).serviceHost());
  const clock = (payload: unknown) =>
    json(CMD.CLOCK, jsonBytes(payload)) as { ok: boolean; markMs?: number; previousMs?: number; reason?: string };
  const unauthenticated = Buffer.from(chip.bytes);
  assert.is(clock({ nowMs: t + 200 * 24 * HOUR }).reason, 'auth', 'CLOCK needs an authenticated session');
  assert.ok(Buffer.from(chip.bytes).equals(unauthenticated));
  assert.equal(authenticate().reply, { ok: true });
  const marks = () => readMark(markView(partitionOf(chip, 'ledger')));
  const stored = marks();
  assert.ok(stored >= t && stored < t + HOUR);
  const before = Buffer.from(chip.bytes);
  for (const bad of [{}, { nowMs: 'soon' }, { nowMs: 1.5 }, { nowMs: Date.UTC(2150, 0, 1) }, { nowMs: 0 }, null]) {
    assert.is(clock(bad).reason, 'malformed', JSON.stringify(bad));
  }
  assert.equal(clock({ nowMs: t - 30 * 24 * HOUR }), { ok: true, markMs: stored, previousMs: stored }, 'never lowered');
  assert.ok(Buffer.from(chip.bytes).equals(before), 'nothing written by refused or lower requests');
  const later = t + 120 * 24 * HOUR;
  assert.equal(clock({ nowMs: later - HOUR }), { ok: true, markMs: later - HOUR, previousMs: stored });
  assert.is(marks(), later - HOUR);
  port.close();
  await at(chip, later, async (sim) => assert.match(flat(sim.screen), /PRÊT/));
});

test('a fresh device asks about an RTC far past every configured claim deadline, and believes one before them', async () => {
  const far = claimEndMs('2026-12-31') + 100 * 24 * HOUR;
  const chip = chipWith(testConfig());
  await at(chip, far, async (sim) => {
    assert.match(flat(sim.screen), /^HORLOGE EN AVANCE/);
    await sim.press('C');
  });
  assert.is(readMark(markView(partitionOf(chip, 'ledger'))), 0, 'nothing stored');
  const near = claimEndMs('2026-12-31') + 10 * 24 * HOUR;
  await at(chip, near, async (sim) => assert.match(flat(sim.screen), /PRÊT/));
  assert.ok(readMark(markView(partitionOf(chip, 'ledger'))) >= near);
});

test('the clock screen, French and English: 4 rows of at most 20 columns, the RTC reading in Paris time', () => {
  const ms = Date.UTC(2027, 9, 5, 8, 30);
  assert.equal(clockScreen('fr', ms), ['HORLOGE EN AVANCE', '05/10/2027 10:30', 'OK valider C refuser', '']);
  assert.equal(clockScreen('en', ms), ['CLOCK JUMPED AHEAD', '05/10/2027 10:30', 'OK accept  C refuse', '']);
});

/** Seeded runs of the random test below: 1 in npm test, 6 in the long tier (trusted-time.long.ts). */
const RANDOM_RUNS = LONG ? 6 : 1;

test('random clock changes, reboots, keypad answers: a paid or an expired ticket never shows GAGNANT again (seeded)', async () => {
  const DAY = 24 * HOUR;
  const from = Date.UTC(2025, 11, 1),
    span = 500 * DAY; // across emission 9's and emission 1's deadlines
  let again = 0; // scans of a ticket already paid or expired
  for (let run = 1; run <= RANDOM_RUNS; run++) {
    const r = seeded(run * 31);
    const chip = chipWith(testConfig({ compactFreeSectors: 65535, clockJumpDays: 30 }));
    const paid = new Set<string>();
    const expired = new Set<string>();
    const history: string[] = [];
    for (let boot = 0; boot < 7; boot++) {
      const rtc = from + Math.floor(r() * span);
      history.push(`boot at ${new Date(rtc).toISOString()}`);
      await at(chip, rtc, async (sim) => {
        if (/^HORLOGE/.test(flat(sim.screen))) {
          const k = r() < 0.5 ? 'OK' : 'C';
          history.push(`clock asked: ${k}`);
          await sim.press(k);
        }
        for (let i = 0; i < 3; i++) {
          const e = r() < 0.5 ? 1 : 9;
          const n = Math.floor(r() * 4);
          const id = `${e}-0-${n}`;
          await scanSerial(sim, ticket({ emission: e, number: n, prizeEur: 150 }));
          const shown = flat(sim.screen);
          history.push(`${id}: ${shown}`);
          if (paid.has(id) || expired.has(id)) {
            again++;
            assert.not.match(shown, /^GAGNANT/, history.join('\n'));
          }
          if (/^TICKET EXPIRÉ/.test(shown)) expired.add(id);
          if (/^GAGNANT/.test(shown) && r() < 0.7) {
            await sim.press('OK');
            assert.match(flat(sim.screen), /^PAYÉ/);
            paid.add(id);
          } else await sim.press('C');
          await sim.run(10000);
        }
      });
    }
  }
  assert.ok(again >= (LONG ? 40 : 10), `${again} scans of a paid or expired ticket`);
});

test('the log gives times in whole ms: an RTC reading a fraction (a tie XS prints otherwise) is logged without it', async () => {
  const chip = chipWith(testConfig({ compactFreeSectors: 65535 }));
  await at(chip, END9 - 6 * HOUR, async () => {});
  // 0.40625 ms: …0.4062 or …0.4063 at 17 digits, a tie (V8 and QuickJS print the even one, XS rounds up).
  await at(chip, END9 - 7 * HOUR + 0.40625, async (sim) => {
    const line = sim.periph!.logs.find((l) => /clock: RTC/.test(l));
    assert.is(
      line,
      `clock: RTC ${END9 - 7 * HOUR} not believed, trusted ${END9 - 6 * HOUR}`,
      sim.periph!.logs.join('\n'),
    );
  });
});

test.run();
