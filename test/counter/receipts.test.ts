// The retail counter around a payment (issue #32): receipts and claim slips on the HAL printer, paper
// out never undoing a payment, reprint as a marked copy, the ID threshold above any payout limit, the
// confirm tier and the big-win signal. The ESC/POS subset both ways in Node; the rest on the real bundle.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { escpos, parseEscpos, type ReceiptLine } from '../../src/print/escpos.ts';
import { decide } from '../../firmware/decide.ts';
import { configProblems, defaultConfig } from '../../src/config.ts';
import { claimSlip, paymentReceipt } from '../../firmware/receipt.ts';
import { BEEPS } from '../../src/signals.ts';
import type { Simulator } from '../../hw-sim/sim.ts';
import { boot, chipWith, flat, lastTones, ledgerEntries, scanSerial, testConfig, ticket } from '../firmware/harness.ts';
import { claimEndMs } from '../../firmware/deadline.ts';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const texts = (sim: Simulator) => sim.printer!.receipts.map((r) => r.text.join('\n'));

test('ESC/POS: every line, bold, centring and QR of a receipt reads back as written, cut at the end', () => {
  const latin = fc.string({ unit: fc.constantFrom(..."azAZ09 éèàçÉÀ€°-:/,.'*".split('')), maxLength: 40 });
  const line = fc.oneof(
    fc.record({ text: latin, bold: fc.boolean(), center: fc.boolean() }),
    fc.record({
      qr: fc.string({ unit: fc.constantFrom(...'0123456789-ABCZ'.split('')), minLength: 1, maxLength: 60 }),
    }),
  );
  fc.assert(
    fc.property(fc.array(line, { maxLength: 12 }), (generated: ReceiptLine[]) => {
      const lines = generated.map((l) => ({ ...l })); // fast-check's records have no prototype
      const back = parseEscpos(escpos(lines));
      assert.ok(back.cut, 'cut');
      assert.is(back.unknown, 0);
      assert.equal(back.lines, lines);
    }),
  );
  // Outside Windows-1252: '?', never a crash; garbage bytes are counted, not thrown.
  assert.equal(parseEscpos(escpos([{ text: 'a→b' }])).lines, [{ text: 'a?b', bold: false, center: false }]);
  const junk = parseEscpos(new Uint8Array([0x1b, 0x99, 0x01, 0x1d, 0x28, 0x6b, 0xff, 0xff, 0x31]));
  assert.ok(junk.unknown > 0 && !junk.cut);
});

test('receipts: what the payment receipt and the claim slip say, in French and English', () => {
  const facts = {
    lang: 'fr' as const,
    shop: 'TABAC DU PORT',
    deviceId: 'CAISSE-12',
    ticket: { game: 0x250, emission: 1, block: 3, number: 42, keyId: 0 },
    prizeEur: 150,
    atMs: Date.UTC(2027, 0, 15, 9, 5),
  };
  const r = parseEscpos(escpos(paymentReceipt(facts, 'k1-abc-1', false))).lines.map((l) =>
    'qr' in l ? `QR ${l.qr}` : l.text,
  );
  assert.ok(r.includes('TABAC DU PORT') && r.includes('REÇU DE PAIEMENT'), r.join('|'));
  assert.ok(r.includes('Ticket 1-3-42') && r.includes('Montant payé 150 €') && r.includes('Le 15/01/2027 10:05'));
  assert.ok(r.includes('Réf. registre') && r.includes('k1-abc-1') && r.includes('QR 1-3-42'));
  const plain = paymentReceipt(facts, '', false).map((l) => ('text' in l ? l.text : ''));
  assert.ok(!plain.some((t) => /registre|hors ligne/.test(t)), 'no registry: no registry line');
  assert.ok(paymentReceipt(facts, '', true).some((l) => 'text' in l && l.text === 'Payé hors ligne'));
  const slip = claimSlip({ ...facts, lang: 'en', prizeEur: 25000 }, claimEndMs('2027-06-30'), true).map((l) =>
    'text' in l ? l.text : '',
  );
  assert.ok(slip.includes('TAKE TO A PAYMENT CENTRE') && slip.includes('Prize €25,000'), slip.join('|'));
  assert.ok(slip.includes('Before 30/07/2027') && slip.includes('ID document required'), slip.join('|'));
  for (const l of [...paymentReceipt(facts, 'x'.repeat(20), true), ...claimSlip(facts, 0, true)])
    if ('text' in l) assert.ok(l.text.length <= 32, `fits 32 columns: ${l.text}`);
});

test('ID threshold: from it the winner goes to a payment centre with an ID, whatever the payout limit', () => {
  const t = { game: 0x250, emission: 1, block: 2, number: 3, keyId: 0 };
  const win = (prizeEur: number) => ({ status: 'win' as const, prizeEur, reason: null, ticket: t });
  const at = { nowMs: 1, deadlineMs: 2, payoutLimitEur: 300000 };
  assert.equal(decide({ ...at, result: win(25000) }), { kind: 'centre', ticket: t, prizeEur: 25000, idRequired: true });
  assert.equal(decide({ ...at, result: win(2500) }).kind, 'win');
  assert.equal(decide({ ...at, result: win(2500), idThresholdEur: 2500 }).kind, 'centre');
  assert.equal(decide({ ...at, result: win(500), idThresholdEur: 2500 }).kind, 'win');
  // The configuration refuses a till limit above the threshold.
  const cfg = { ...defaultConfig(false), payoutLimitEur: 6000 };
  assert.ok(configProblems(cfg, false).some((p) => /payoutLimitEur: above the ID threshold of 5000/.test(p)));
  assert.equal(configProblems({ ...cfg, payoutLimitEur: 5000 }, false), []);
  assert.ok(configProblems({ ...cfg, payoutLimitEur: 300, shop: 'é' }, false).some((p) => /^shop/.test(p)));
});

async function counter(over: Parameters<typeof testConfig>[0], f: (sim: Simulator) => Promise<void>, printer = true) {
  const chip = chipWith(testConfig({ shop: 'TABAC', ...over }));
  const sim = await boot(chip, { printer });
  try {
    await f(sim);
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
  return chip;
}

test('a payment prints its receipt; paper out never undoes it: PAYÉ, recorded, "reçu non imprimé", then a marked copy', async () => {
  const chip = await counter({}, async (sim) => {
    await scanSerial(sim, ticket({ emission: 1, number: 11, prizeEur: 150 }));
    await sim.press('OK');
    assert.equal(sim.screen, ['PAYÉ', 'Paiement enregistré', '', '150 €']);
    assert.is(sim.printer!.receipts.length, 1);
    assert.match(texts(sim)[0], /REÇU DE PAIEMENT[\s\S]*Ticket 1-0-11[\s\S]*Montant payé 150 €/);
    sim.printer!.state = 'paper-out';
    await scanSerial(sim, ticket({ emission: 1, number: 12, prizeEur: 30 }));
    await sim.press('OK');
    assert.equal(sim.screen, ['PAYÉ', 'reçu non imprimé', 'réimpr.: 0 puis OK', '30 €']);
    assert.ok(same(lastTones(sim), BEEPS.paid), 'the paid chirp all the same');
    assert.match(sim.periph!.logs.join('\n'), /printer: printer: paper out/);
    assert.is(sim.printer!.receipts.length, 1);
    sim.printer!.state = 'ok';
    await sim.press('C'); // back to ready
    await sim.press('0');
    await sim.press('OK');
    assert.is(sim.printer!.receipts.length, 2);
    assert.match(texts(sim)[1], /^\s*\*\*\*\* DUPLICATA \*\*\*\*[\s\S]*Ticket 1-0-12[\s\S]*Montant payé 30 €/);
    // A fault thrown by the HAL (not only paper out) is the same.
    sim.periph!.failNext = 'printer';
    await scanSerial(sim, ticket({ emission: 1, number: 13, prizeEur: 5 }));
    await sim.press('OK');
    assert.match(flat(sim.screen), /^PAYÉ \| reçu non imprimé/);
  });
  assert.equal(
    ledgerEntries(chip).map((p) => p.number),
    [11, 12, 13],
  );
});

test('a device without a printer pays as before, and 0 OK does nothing', async () => {
  const chip = await counter(
    {},
    async (sim) => {
      assert.is(sim.printer, undefined);
      await scanSerial(sim, ticket({ emission: 1, number: 11, prizeEur: 150 }));
      await sim.press('OK');
      assert.equal(sim.screen, ['PAYÉ', 'Paiement enregistré', '', '150 €']);
      await sim.press('C');
      await sim.press('0');
      await sim.press('OK');
      assert.match(flat(sim.screen), /PRÊT/);
    },
    false,
  );
  assert.is(ledgerEntries(chip).length, 1);
});

test('from the ID threshold: never paid, a claim slip with the deadline and the ID; paper out says it on screen', async () => {
  const chip = await counter({ payoutLimitEur: 5000 }, async (sim) => {
    await scanSerial(sim, ticket({ emission: 1, number: 20, prizeEur: 25000 }));
    assert.equal(sim.screen[0], 'GAGNANT');
    assert.match(flat(sim.screen), /pièce/);
    assert.match(
      texts(sim)[0],
      /BON POUR CENTRE DE PAIEMENT[\s\S]*Gain 25 000 €[\s\S]*Avant le 30\/01\/2027[\s\S]*Pièce d'identité obligatoire/,
    );
    await sim.press('OK');
    sim.printer!.state = 'fault';
    await scanSerial(sim, ticket({ emission: 1, number: 21, prizeEur: 25000 }));
    assert.equal(sim.screen[0], 'GAGNANT');
    assert.equal(sim.screen[2], 'reçu non imprimé');
    await sim.press('OK');
  });
  assert.equal(ledgerEntries(chip), [], 'a centre win is never recorded as paid here');
});

test('confirm tier: OK asks "Espèces comptées ?", only a second OK pays; C or the timeout pays nothing', async () => {
  const chip = await counter({ confirmFromEur: 100, payWaitMs: 5000 }, async (sim) => {
    await scanSerial(sim, ticket({ emission: 1, number: 30, prizeEur: 150 }));
    await sim.press('OK');
    assert.match(flat(sim.screen), /^Espèces comptées \? \| 150 € \| OK confirmer/);
    await sim.press('C');
    assert.match(flat(sim.screen), /Paiement annulé/);
    await scanSerial(sim, ticket({ emission: 1, number: 30, prizeEur: 150 }));
    await sim.press('OK');
    await sim.run(6000); // the clerk walks away: the question times out, nothing paid
    assert.match(flat(sim.screen), /PRÊT/);
    await scanSerial(sim, ticket({ emission: 1, number: 30, prizeEur: 150 }));
    await sim.press('OK');
    await sim.press('OK');
    assert.match(flat(sim.screen), /^PAYÉ/);
    // Below the tier: one OK.
    await scanSerial(sim, ticket({ emission: 1, number: 31, prizeEur: 30 }));
    await sim.press('OK');
    assert.match(flat(sim.screen), /^PAYÉ/);
  });
  assert.equal(
    ledgerEntries(chip).map((p) => p.number),
    [30, 31],
  );
});

test('big win: from big-win-from the beeper plays the big-win pattern and the customer line is framed', async () => {
  await counter({ bigWinFromEur: 150 }, async (sim) => {
    await scanSerial(sim, ticket({ emission: 1, number: 40, prizeEur: 150 }));
    assert.ok(same(lastTones(sim), BEEPS.bigwin));
    assert.is(sim.screen[3], '** 150 € **');
    await sim.press('C');
    await scanSerial(sim, ticket({ emission: 1, number: 41, prizeEur: 30 }));
    assert.ok(same(lastTones(sim), BEEPS.win));
    assert.is(sim.screen[3], '30 €');
  });
  await counter({ bigWinFromEur: 0 }, async (sim) => {
    await scanSerial(sim, ticket({ emission: 1, number: 40, prizeEur: 150 }));
    assert.ok(same(lastTones(sim), BEEPS.win), '0: never');
  });
});

test.run();
