// The real bundle in QuickJS and QuickJS-ng, driven through a HAL Device: boot, every outcome, pay,
// double pay, reboot, expiry, payout limit, bad input, exceptions.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BEEPS } from '../../src/signals.ts';
import { boot, bundleText, chipWith, flat, ledgerEntries, testConfig, ticket, writeConfig } from './harness.ts';
import { TestDevice } from './test-device.ts';
import { QjsDevice, type QjsVariant } from '../../hw-sim/qjs-host.ts';
import { transmit } from '../../hw-sim/scanners/index.ts';
import { seededRng } from '../../hw-sim/rng.ts';
import { REASON_TEXT } from '../../src/i18n.ts';
import type { Reason } from '../../src/sph1/check.ts';
import { loadVectors } from '../helpers.ts';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const lastTones = (td: TestDevice) => td.tones[td.tones.length - 1];
const lastLed = (td: TestDevice) => td.leds[td.leds.length - 1];

for (const variant of ['quickjs', 'quickjs-ng'] as QjsVariant[]) {
  const name = (s: string) => `${variant}: ${s}`;

  test(name('boot shows product, version and image hash, confirms the image, then READY'), async () => {
    const { td, vm } = await boot(chipWith(), variant);
    try {
      assert.equal(vm.faults, []);
      const first = flat(td.screens[0]);
      assert.match(first, /SAPHIR/);
      assert.match(first, /v\d+\.\d+\.\d+/);
      assert.match(first, /c0ffee001122/);
      assert.match(flat(td.screen), /PRÊT/);
      assert.is(td.confirmed, 1);
      assert.ok(td.kicks >= 1);
      td.time.advance(1000);
      assert.ok(td.lastKick >= 900, 'the idle loop kicks the watchdog');
      assert.ok(td.watchdogMs > 0);
    } finally {
      vm.dispose();
    }
  });

  test(name('a scan of every outcome'), async () => {
    const { td, vm } = await boot(chipWith(), variant);
    try {
      td.scanSerial(ticket({ number: 1 }));
      assert.match(flat(td.screen), /^PERDANT/);
      assert.is(td.screen[3], 'PERDANT');
      assert.ok(same(lastTones(td), BEEPS.lose));
      assert.is(lastLed(td), 'red');

      td.scanSerial(ticket({ number: 2, prizeEur: 150 }));
      assert.match(flat(td.screen), /^GAGNANT/);
      assert.is(td.screen[3], '150 €', 'the amount on the customer line');
      assert.ok(same(lastTones(td), BEEPS.win));
      assert.is(lastLed(td), 'green');
      td.press('C');
      assert.match(flat(td.screen), /annulé/);
      assert.equal(ledgerEntries(td.chip), []);

      td.scanSerial(ticket({ number: 3, prizeEur: 500 }));
      assert.match(flat(td.screen), /GAGNANT \| Payable en centre de \| paiement \| 500 €/);
      td.scanSerial(ticket({ number: 4, prizeEur: 25000 }));
      assert.match(flat(td.screen), /GAGNANT \| Centre de paiement, \| pièce d'identité \| 25 000 €/);
      td.press('OK');
      assert.equal(ledgerEntries(td.chip), [], 'above the limit, OK pays nothing');

      td.scanSerial(ticket({ number: 5, prizeEur: 150, emission: 9 }));
      assert.match(flat(td.screen), /^TICKET EXPIRÉ \| Limite \d\d\/\d\d\/2026/);
      assert.ok(same(lastTones(td), BEEPS.refused));
      assert.is(lastLed(td), 'red');

      td.scanSerial(ticket({ number: 6, prizeEur: 150, keyId: 7 }));
      assert.match(flat(td.screen), /^NON VALIDE \| clé de signature \| inconnue/);
      assert.ok(same(lastTones(td), BEEPS.refused));

      td.scanSerial(ticket({ number: 7, prizeEur: 150, emission: 77 }));
      assert.match(flat(td.screen), /^NON VALIDE \| émission inconnue/);
      assert.equal(vm.faults, []);
      assert.equal(ledgerEntries(td.chip), []);
    } finally {
      vm.dispose();
    }
  });

  test(name('pay: OK records, then PAYÉ; a second scan says DÉJÀ PAYÉ; reboot keeps the ledger'), async () => {
    const chip = chipWith();
    const code = ticket({ number: 42, block: 3, prizeEur: 150 });
    let b = await boot(chip, variant);
    try {
      b.td.scanSerial(code);
      assert.match(flat(b.td.screen), /^GAGNANT/);
      b.td.press('OK');
      assert.match(flat(b.td.screen), /^PAYÉ/);
      assert.is(b.td.screen[3], '150 €');
      assert.ok(same(lastTones(b.td), BEEPS.paid));
      const paid = ledgerEntries(chip);
      assert.is(paid.length, 1);
      assert.equal(
        { ...paid[0], paidAtMs: 0 },
        { emission: 1, block: 3, number: 42, prizeEur: 150, paidAtMs: 0, deviceId: 'SPH-000042' },
      );
      b.td.press('OK');
      assert.match(flat(b.td.screen), /PRÊT/);
      b.td.scanSerial(code);
      assert.match(flat(b.td.screen), /^DÉJÀ PAYÉ \| le \d\d\/\d\d\/2026 \d\d:\d\d \| par SPH-000042/);
      assert.ok(same(lastTones(b.td), BEEPS.refused));
      b.td.press('OK');
      assert.is(ledgerEntries(chip).length, 1, 'never paid twice');
    } finally {
      b.vm.dispose();
    }
    b = await boot(chip, variant, new TestDevice({ chip, deviceId: 'Caisse n°7 — entrée principale' }));
    try {
      b.td.scanSerial(code);
      assert.match(flat(b.td.screen), /^DÉJÀ PAYÉ .* par SPH-000042/);
      b.td.press('OK');
      assert.is(ledgerEntries(chip).length, 1);
      // A device id that is not printable ASCII is made so for the ledger, not refused.
      b.td.scanSerial(ticket({ number: 43, prizeEur: 10 }));
      b.td.press('OK');
      assert.match(flat(b.td.screen), /^PAYÉ/);
      assert.is(ledgerEntries(chip)[1].deviceId, 'Caisse n?7 ? ent');
    } finally {
      b.vm.dispose();
    }
  });

  test(name('bad input of any kind: a clear screen, back to ready, ledger untouched'), async () => {
    const { td, vm } = await boot(chipWith(), variant);
    try {
      const good = ticket({ number: 9, prizeEur: 150 });
      const cases: [string, RegExp][] = [
        ['hello world', /NON VALIDE \| pas un code SAPHIR/],
        ['SPH1:abc', /NON VALIDE \| code illisible/],
        [good.slice(0, 5 + 150), /NON VALIDE \| longueur du code/],
        [good.slice(0, 100), /NON VALIDE \| code illisible/],
        [good.slice(0, -3) + 'AAA', /NON VALIDE/],
        ['\u00ff\u00fe\u0001garbage', /NON VALIDE/],
      ];
      for (const [text, re] of cases) {
        td.scanSerial(text);
        assert.match(flat(td.screen), re, JSON.stringify(text));
        td.press('OK');
        assert.match(flat(td.screen), /PRÊT/);
      }
      // Half a code, then silence: the decoder times out and the scan is refused.
      const half = good.slice(0, 80);
      td.serials[0].push(Uint8Array.from(half, (c) => c.charCodeAt(0)));
      td.time.advance(2000);
      assert.match(flat(td.screen), /NON VALIDE \| lecture incomplète/);
      td.time.advance(10000);
      assert.match(flat(td.screen), /PRÊT/, 'back to ready by itself');
      assert.equal(ledgerEntries(td.chip), []);
      assert.equal(vm.faults, []);
    } finally {
      vm.dispose();
    }
  });

  test(name('an exception inside the app is caught, logged and shown; the app goes on'), async () => {
    const chip = chipWith();
    const td = new TestDevice({ chip });
    const { vm } = await boot(chip, variant, td);
    try {
      td.throwOnce = 'led';
      td.scanSerial(ticket({ number: 11 }));
      assert.match(flat(td.screen), /^ERREUR \| led failure/);
      assert.ok(
        td.logs.some((l) => /error: .*led failure/.test(l)),
        td.logs.join('\n'),
      );
      assert.ok(same(lastTones(td), BEEPS.error));
      td.time.advance(10000);
      assert.match(flat(td.screen), /PRÊT/);
      td.scanSerial(ticket({ number: 12 }));
      assert.match(flat(td.screen), /^PERDANT/);
      assert.equal(vm.faults, [], 'nothing escaped the app');
    } finally {
      vm.dispose();
    }
  });

  test(name('English by configuration; the test key is trusted only when configured'), async () => {
    const chip = chipWith(testConfig({ lang: 'en' }));
    let b = await boot(chip, variant);
    try {
      b.td.scanSerial(ticket({ number: 13, prizeEur: 150 }));
      assert.match(flat(b.td.screen), /^WINNER .* €150$/);
      b.td.scanSerial('nope');
      assert.match(flat(b.td.screen), /^NOT VALID \| not a SAPHIR code/);
    } finally {
      b.vm.dispose();
    }
    writeConfig(chip, testConfig({ keys: [] }));
    b = await boot(chip, variant);
    try {
      b.td.scanSerial(ticket({ number: 14, prizeEur: 150 }));
      assert.match(flat(b.td.screen), /^NON VALIDE \| clé de signature \| inconnue/);
    } finally {
      b.vm.dispose();
    }
  });
}

test('the same verdicts through a keyboard-wedge scanner (French layout) and a HID POS scanner', async () => {
  const { td, vm } = await boot(chipWith());
  try {
    const play = (
      via: 'hid-keyboard' | 'hid-pos',
      code: string,
      options: Record<string, string | number | boolean> = {},
    ) => {
      const tx = transmit(via, code, options, seededRng(1));
      let t = 0;
      for (const d of tx.deliveries) {
        td.time.advance(d.t - t);
        t = d.t;
        if (d.input === 'hid-keyboard') td.hid('keyboard').push(d.data);
        else if (d.input === 'hid-pos') td.hid('pos').push(d.data);
      }
    };
    play('hid-keyboard', ticket({ number: 31, prizeEur: 150 }), { layout: 'fr' });
    assert.match(flat(td.screen), /^GAGNANT .* 150 €$/);
    td.press('C');
    play('hid-keyboard', ticket({ number: 32 }), { layout: 'us' });
    assert.match(flat(td.screen), /^PERDANT/);
    play('hid-pos', ticket({ number: 33, prizeEur: 25000 }));
    assert.match(flat(td.screen), /^GAGNANT .* 25 000 €$/);
    play('hid-pos', 'NOT A TICKET');
    assert.match(flat(td.screen), /^NON VALIDE/);
    assert.equal(vm.faults, []);
  } finally {
    vm.dispose();
  }
});

test('every invalid SPH1 vector: NON VALIDE with its reason in words, nothing recorded', async () => {
  const { td, vm } = await boot(chipWith());
  try {
    const invalid = loadVectors().vectors.filter((v) => v.expect.status === 'invalid');
    assert.ok(invalid.length >= 15);
    for (const v of invalid) {
      td.scanSerial(v.code);
      const words = REASON_TEXT.fr[v.expect.reason as Reason];
      assert.is(td.screen[0], 'NON VALIDE', v.name);
      assert.is(td.screen.slice(1, 3).join(' ').trim(), words, v.name);
      assert.is(td.screen[3], 'NON VALIDE');
      td.press('OK');
      td.press('OK');
    }
    assert.equal(ledgerEntries(td.chip), []);
    assert.equal(vm.faults, []);
  } finally {
    vm.dispose();
  }
});

test('a hung app is interrupted (the watchdog reset)', async () => {
  const td = new TestDevice({ chip: chipWith() });
  const vm = await QjsDevice.start({ bundle: await bundleText(), device: td.device, deadlineMs: 300 });
  try {
    const t = Date.now();
    vm.eval('for (;;) {}');
    assert.ok(Date.now() - t < 5000);
    assert.is(vm.faults.length, 1);
    assert.is(vm.faults[0].kind, 'interrupted');
  } finally {
    vm.dispose();
  }
});

test('a reset (dispose) from inside a HAL call takes effect when the call returns', async () => {
  const td = new TestDevice();
  // eslint-disable-next-line prefer-const -- declared before the Log class that reads it
  let vm: QjsDevice | undefined;
  (td.device as unknown as { Log: unknown }).Log = class {
    write(l: string) {
      if (l === 'reset me') vm!.dispose();
    }
  };
  vm = await QjsDevice.start({
    bundle: `new device.Timers({}).set(() => { new device.Log({}).write('reset me'); new device.TextDisplay({}).show(['after']); }, 10);`,
    device: td.device,
  });
  td.time.advance(20);
  assert.is(vm.alive, false);
  assert.equal(td.screens, [], 'no HAL call goes through after the reset');
  td.time.advance(20);
  const other = await QjsDevice.start({ bundle: 'globalThis.x = 6 * 7', device: new TestDevice().device });
  assert.is(other.eval('x'), 42, 'the shared engine still works');
  other.dispose();
});

test.run();
