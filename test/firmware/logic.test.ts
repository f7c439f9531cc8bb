// The pure parts of the firmware, in Node: decision, screens, configuration, deadlines, Paris time.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decide, ID_REQUIRED_FROM_EUR, type DecideInput } from '../../firmware/decide.ts';
import { verdictScreen, readyScreen, bootScreen, paidScreen, wrap, COLUMNS, ROWS } from '../../firmware/screens.ts';
import {
  decodeConfig,
  defaultConfig,
  encodeConfig,
  keyRingOf,
  loadConfig,
  storeConfig,
  asciiBytes,
  asciiText,
  configProblems,
} from '../../src/config.ts';
import { claimEndMs, deadlines } from '../../firmware/deadline.ts';
import { frenchDate, frenchDateTime } from '../../src/paris-time.ts';
import { BEEPS, LEDS } from '../../src/signals.ts';
import type { CheckResult } from '../../src/sph1/check.ts';
import { partitionOf } from './harness.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { LAYOUT } from '../../rom/layout.ts';

const ticket = { game: 0x250, emission: 1, block: 2, number: 3, keyId: 0 };
const win = (prizeEur: number): CheckResult => ({ status: 'win', prizeEur, reason: null, ticket });
const base = (over: Partial<DecideInput>): DecideInput => ({
  result: win(150),
  nowMs: 1000,
  deadlineMs: 2000,
  payoutLimitEur: 300,
  ...over,
});

test('decide: before its emission goes on sale (by trusted time) no win is payable, and the screen says from when', () => {
  const on = Date.UTC(2026, 6, 1) - 2 * 3600_000; // 00:00 Paris, 1 July 2026
  const now = on - 60_000;
  const at = (nowMs: number, over: Partial<DecideInput> = {}) =>
    decide(base({ nowMs, deadlineMs: null, onSaleMs: on, ...over }));
  assert.equal(at(now), { kind: 'early', ticket, prizeEur: 150, onSaleMs: on });
  assert.is(at(now, { result: win(25000) }).kind, 'early', 'nor sent to a payment centre');
  assert.is(at(on).kind, 'win');
  assert.is(at(now, { onSaleMs: undefined }).kind, 'win');
  // Without trusted time it is not called early: the win is withheld for the clock (withheld()).
  assert.is(at(1000).kind, 'win');
  const v = at(now);
  assert.equal(verdictScreen(v, 'fr'), ['NON PAYABLE', 'En vente le', '01/07/2026 1-2-3', 'NON PAYABLE']);
  assert.equal(verdictScreen(v, 'en'), ['NOT PAYABLE', 'On sale from', '01/07/2026 1-2-3', 'NOT PAYABLE']);
});

test('decide: invalid, lose, paid, expired, unknown emission, centre, payable', () => {
  assert.equal(decide(base({ result: { status: 'invalid', prizeEur: 0, reason: 'E_SIGNATURE', ticket } })), {
    kind: 'invalid',
    reason: 'E_SIGNATURE',
  });
  assert.equal(decide(base({ result: { status: 'lose', prizeEur: 0, reason: null, ticket } })).kind, 'lose');
  // A losing ticket loses even after the deadline or with an unknown emission.
  assert.equal(
    decide(base({ result: { status: 'lose', prizeEur: 0, reason: null, ticket }, deadlineMs: undefined })).kind,
    'lose',
  );
  const paid = { prizeEur: 150, paidAtMs: 500, deviceId: 'X' };
  assert.equal(decide(base({ paid })), { kind: 'already-paid', ticket, prizeEur: 150, paid });
  assert.equal(decide(base({ paid, nowMs: 5000 })).kind, 'already-paid', 'paid says so even after the deadline');
  assert.equal(decide(base({ nowMs: 2000 })), { kind: 'expired', ticket, prizeEur: 150, deadlineMs: 2000 });
  assert.equal(decide(base({ nowMs: 1999 })).kind, 'win');
  assert.equal(decide(base({ deadlineMs: undefined })), { kind: 'invalid', reason: 'E_EMISSION' });
  assert.equal(decide(base({ result: win(300) })).kind, 'win', 'the limit itself is payable');
  assert.equal(decide(base({ result: win(500) })), { kind: 'centre', ticket, prizeEur: 500, idRequired: false });
  assert.equal(decide(base({ result: win(25000) })), { kind: 'centre', ticket, prizeEur: 25000, idRequired: true });
  assert.equal(decide(base({ result: win(ID_REQUIRED_FROM_EUR), payoutLimitEur: 1000 })).kind, 'centre');
  assert.equal((decide(base({ result: win(5000), payoutLimitEur: 0 })) as { idRequired: boolean }).idRequired, true);
  assert.equal(decide(base({ result: win(2500), payoutLimitEur: 0 })), {
    kind: 'centre',
    ticket,
    prizeEur: 2500,
    idRequired: false,
  });
  assert.equal(
    decide(base({ result: { status: 'win', prizeEur: 150, reason: null } })).kind,
    'invalid',
    'no ticket id',
  );
});

test('screens: 4 × 20, customer line, French amounts, both languages', () => {
  const all = [
    verdictScreen({ kind: 'win', ticket, prizeEur: 150 }, 'fr'),
    verdictScreen({ kind: 'centre', ticket, prizeEur: 250000, idRequired: true }, 'fr'),
    verdictScreen({ kind: 'centre', ticket, prizeEur: 500, idRequired: false }, 'en'),
    verdictScreen({ kind: 'lose', ticket }, 'fr'),
    verdictScreen({ kind: 'invalid', reason: 'E_PRIZE_NOT_IN_TABLE' }, 'fr'),
    verdictScreen({ kind: 'invalid', reason: 'E_EMISSION' }, 'en'),
    verdictScreen({ kind: 'expired', ticket, prizeEur: 5, deadlineMs: Date.UTC(2026, 6, 15, 22) }, 'fr'),
    verdictScreen(
      {
        kind: 'already-paid',
        ticket,
        prizeEur: 5,
        paid: { prizeEur: 5, paidAtMs: Date.UTC(2026, 0, 2, 9, 5), deviceId: 'SPH-7' },
      },
      'fr',
    ),
    readyScreen('fr'),
    bootScreen('en', 'ab'.repeat(32)),
    paidScreen(2500, 'fr'),
  ];
  for (const s of all) {
    assert.is(s.length, ROWS);
    for (const l of s) assert.ok(l.length <= COLUMNS, l);
  }
  assert.equal(all[0], ['GAGNANT', '1-2-3', 'OK payer  C annuler', '150 €']);
  assert.equal(all[1], ['GAGNANT', 'Centre de paiement,', "pièce d'identité", '250 000 €']);
  assert.equal(all[2], ['WINNER', 'Payable at a payment', 'centre', '€500']);
  assert.equal(all[4], ['NON VALIDE', 'gain hors barème', '', 'NON VALIDE']);
  assert.equal(all[6][0], 'TICKET EXPIRÉ');
  assert.equal(all[6][1], 'Limite 15/07/2026', 'the last claimable day (the deadline is the next Paris midnight)');
  assert.equal(all[7], ['DÉJÀ PAYÉ', 'le 02/01/2026 10:05', 'par SPH-7', 'DÉJÀ PAYÉ']);
  assert.equal(all[10], ['PAYÉ', 'Paiement enregistré', '', '2 500 €']);
  assert.equal(wrap('a '.repeat(30).trim(), 2).length, 2);
  assert.equal(wrap('x'.repeat(45), 3), ['x'.repeat(20), 'x'.repeat(20), 'x'.repeat(5)]);
});

test('signals: distinct beep patterns and colours', () => {
  const seen = new Set(Object.values(BEEPS).map((t) => JSON.stringify(t)));
  assert.is(seen.size, Object.keys(BEEPS).length);
  assert.is(LEDS.win, 'green');
  assert.is(LEDS.lose, 'red');
  assert.is(LEDS.refused, 'red');
});

test('config: encode/decode round trip, defaults, corruption, production refuses key 0', () => {
  const cfg = { ...defaultConfig(false), lang: 'en' as const, deviceId: 'Boutique 12' };
  const b = encodeConfig(cfg, 7);
  const d = decodeConfig(b, false);
  assert.ok(!('error' in d));
  if (!('error' in d)) {
    assert.equal(d.config, cfg);
    assert.is(d.seq, 7);
  }
  for (let i = 0; i < b.length; i += 7) {
    const bad = b.slice();
    bad[i] ^= 0x10;
    assert.ok('error' in decodeConfig(bad, false), `byte ${i}`);
  }
  assert.ok('error' in decodeConfig(new Uint8Array(0), false));
  assert.ok('error' in decodeConfig(b.subarray(0, b.length - 1), false));
  assert.ok('error' in decodeConfig(b, true), 'a production build refuses a config trusting key 0');
  assert.equal(defaultConfig(true).keys, []);
  assert.is(keyRingOf(cfg, true).size, 0);
  assert.is(keyRingOf(cfg, false).size, 1);
  assert.is(defaultConfig(false).payoutLimitEur, 300);
  assert.ok(configProblems({ ...cfg, emissions: [{ emission: 1, closingDate: '2026-02-30' }] }, false).length > 0);
  assert.ok(configProblems({ ...cfg, payoutLimitEur: -1 }, false).length > 0);
  assert.ok(configProblems('nope', false).length > 0);
  assert.throws(() => encodeConfig({ ...cfg, lang: 'de' as never }));
  const text = JSON.stringify({ s: '€ é 😀 a' });
  assert.is(JSON.parse(asciiText(asciiBytes(text))!).s, '€ é 😀 a');
  assert.is(asciiText(new Uint8Array([0x41, 0xc3])), null);
});

test('config on flash: defaults when empty, newest record wins, a torn rewrite keeps the old one', () => {
  const chip = new NorFlash();
  const flash = partitionOf(chip, 'config');
  assert.match(loadConfig(flash, false).source, /^defaults/);
  const a = { ...defaultConfig(false), payoutLimitEur: 100 };
  storeConfig(flash, a, false);
  assert.is(loadConfig(flash, false).config.payoutLimitEur, 100);
  storeConfig(flash, { ...a, payoutLimitEur: 200 }, false);
  assert.is(loadConfig(flash, false).config.payoutLimitEur, 200);
  chip.cutAtOp(2); // the write after the erase
  assert.throws(() => storeConfig(flash, { ...a, payoutLimitEur: 999 }, false));
  chip.powerOn();
  assert.is(loadConfig(flash, false).config.payoutLimitEur, 200);
});

const CONFIG_AT = LAYOUT.config.offset;

test('config on flash: both sectors hold the newest record, so a cut or one damaged sector never brings back an older one nor the defaults', () => {
  const a = { ...defaultConfig(false), payoutLimitEur: 100 };
  const fresh = () => {
    const chip = new NorFlash();
    const flash = partitionOf(chip, 'config');
    storeConfig(flash, a, false);
    storeConfig(flash, { ...a, payoutLimitEur: 200 }, false);
    return { chip, flash };
  };
  const { flash: f0 } = fresh();
  const bl = f0.blockLength;
  // One flipped bit in either sector's record: the other holds the same record.
  for (const s of [0, 1])
    for (const at of [0, 7, 20, 60]) {
      const { chip, flash } = fresh();
      chip.bytes[CONFIG_AT + s * bl + at] ^= 4;
      const l = loadConfig(flash, false);
      assert.is(l.config.payoutLimitEur, 200, `sector ${s} byte ${at}: ${l.source}`);
    }
  // A cut at each operation of a store: the old or the new record, whole, never the defaults.
  for (let n = 1; n <= 4; n++) {
    const { chip, flash } = fresh();
    chip.cutAtOp(n);
    assert.throws(() => storeConfig(flash, { ...a, payoutLimitEur: 300 }, false));
    chip.powerOn();
    const l = loadConfig(flash, false);
    assert.ok([200, 300].includes(l.config.payoutLimitEur), `cut at ${n}: ${l.source}`);
    assert.not.ok(l.invalid);
  }
  // Nothing valid: blank is the defaults; a torn first store or damage in both is `damaged`.
  const blank = new NorFlash();
  assert.not.ok(loadConfig(partitionOf(blank, 'config'), false).invalid);
  const torn = new NorFlash();
  torn.cutAtOp(2);
  assert.throws(() => storeConfig(partitionOf(torn, 'config'), a, false));
  torn.powerOn();
  const t = loadConfig(partitionOf(torn, 'config'), false);
  assert.ok(t.invalid, t.source);
  const { chip, flash } = fresh();
  chip.bytes[CONFIG_AT + 30] ^= 1;
  chip.bytes[CONFIG_AT + bl + 30] ^= 1;
  assert.ok(loadConfig(flash, false).invalid);
});

test('deadlines: closing + 30 days, next working day, end at Paris midnight', () => {
  // 2026-04-06 + 30 = 2026-05-06 (Wednesday): claimable through that day, Paris time (CEST).
  assert.is(claimEndMs('2026-04-06'), Date.UTC(2026, 4, 6, 22));
  // 2026-04-02 + 30 = 2026-05-02 Saturday: a working day for retail.
  assert.is(claimEndMs('2026-04-02'), Date.UTC(2026, 4, 2, 22));
  // 2026-04-01 + 30 = 2026-05-01 (holiday), 05-02 Saturday.
  assert.is(claimEndMs('2026-04-01'), Date.UTC(2026, 4, 2, 22));
  // 2025-12-02 + 30 = 2026-01-01 (holiday) → 01-02 (Friday), CET.
  assert.is(claimEndMs('2025-12-02'), Date.UTC(2026, 0, 2, 23));
  assert.equal([...deadlines([{ emission: 4, closingDate: '2026-04-06' }])], [[4, Date.UTC(2026, 4, 6, 22)]]);
});

test('Paris time for the screens', () => {
  assert.is(frenchDate(Date.UTC(2026, 6, 14, 22, 30)), '15/07/2026');
  assert.is(frenchDateTime(Date.UTC(2026, 0, 1, 23, 59)), '02/01/2026 00:59');
  assert.is(frenchDateTime(Date.UTC(2026, 2, 29, 1, 0)), '29/03/2026 03:00');
});

test.run();
