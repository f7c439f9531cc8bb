// The real bundle in QuickJS and QuickJS-ng, driven through a HAL Device: boot, every outcome, pay,
// double pay, reboot, expiry, payout limit, bad input, exceptions.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BEEPS } from '../../src/signals.ts';
import {
  bareDevice,
  boot,
  bundleText,
  chipWith,
  flat,
  lastTones,
  ledgerEntries,
  scanSerial,
  serialBytes,
  testConfig,
  ticket,
  writeConfig,
} from './harness.ts';
import { QjsDevice, type QjsVariant } from '../../hw-sim/qjs-host.ts';
import { ABSENT_INTRINSICS } from '../../tools/build.ts';
import { Simulator, bootChip } from '../../hw-sim/sim.ts';
import { installImage } from '../../rom/bootloader.ts';
import { transmit } from '../../hw-sim/scanners/index.ts';
import { seededRng } from '../../hw-sim/rng.ts';
import { REASON_TEXT } from '../../src/i18n.ts';
import type { Reason } from '../../src/sph1/check.ts';
import { loadVectors } from '../helpers.ts';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

for (const variant of ['quickjs', 'quickjs-ng'] as QjsVariant[]) {
  const name = (s: string) => `${variant}: ${s}`;

  test(name('boot shows product, version and image hash, confirms the image, then READY'), async () => {
    // Through the bootloader: the bundle as a confirmed image in slot A, the next one on trial in slot B.
    const sim = new Simulator({ chip: chipWith(), bundle: await bundleText(), variant, deviceId: 'SPH-000042' });
    try {
      sim.provisionImage();
      assert.ok(installImage(bootChip(sim.chip), sim.updateImage('next')).ok);
      await sim.boot();
      assert.equal(sim.faults, []);
      assert.match(sim.bootMode, /slot B v0\.2\.0/);
      const first = flat(sim.screens[0].lines);
      assert.match(first, /SAPHIR/);
      assert.match(first, /v\d+\.\d+\.\d+/);
      assert.match(first, new RegExp(sim.imageHash.slice(0, 12)));
      assert.match(flat(sim.screen), /PRÊT/);
      assert.is(sim.confirms, 1);
      assert.not.ok(sim.pendingConfirm);
      const p = sim.periph!;
      assert.ok(p.kicks >= 1);
      await sim.run(1000);
      assert.ok(p.lastKick >= 900, 'the idle loop kicks the watchdog');
      assert.ok(p.watchdogTimeoutMs > 0);
    } finally {
      sim.dispose();
    }
  });

  test(name('a scan of every outcome'), async () => {
    const sim = await boot(chipWith(), { variant });
    try {
      await scanSerial(sim, ticket({ number: 1 }));
      assert.match(flat(sim.screen), /^PERDANT/);
      assert.is(sim.screen[3], 'PERDANT');
      assert.ok(same(lastTones(sim), BEEPS.lose));
      assert.is(sim.led, 'red');

      await scanSerial(sim, ticket({ number: 2, prizeEur: 150 }));
      assert.match(flat(sim.screen), /^GAGNANT/);
      assert.is(sim.screen[3], '150 €', 'the amount on the customer line');
      assert.ok(same(lastTones(sim), BEEPS.win));
      assert.is(sim.led, 'green');
      await sim.press('C');
      assert.match(flat(sim.screen), /annulé/);
      assert.equal(ledgerEntries(sim.chip), []);

      await scanSerial(sim, ticket({ number: 3, prizeEur: 500 }));
      assert.match(flat(sim.screen), /GAGNANT \| Payable en centre de \| paiement \| 500 €/);
      await scanSerial(sim, ticket({ number: 4, prizeEur: 25000 }));
      assert.match(flat(sim.screen), /GAGNANT \| Centre de paiement, \| pièce d'identité \| 25 000 €/);
      await sim.press('OK');
      assert.equal(ledgerEntries(sim.chip), [], 'above the limit, OK pays nothing');

      await scanSerial(sim, ticket({ number: 5, prizeEur: 150, emission: 9 }));
      assert.match(flat(sim.screen), /^TICKET EXPIRÉ \| Limite \d\d\/\d\d\/2026/);
      assert.ok(same(lastTones(sim), BEEPS.refused));
      assert.is(sim.led, 'red');

      await scanSerial(sim, ticket({ number: 6, prizeEur: 150, keyId: 7 }));
      assert.match(flat(sim.screen), /^NON VALIDE \| clé de signature \| inconnue/);
      assert.ok(same(lastTones(sim), BEEPS.refused));

      await scanSerial(sim, ticket({ number: 7, prizeEur: 150, emission: 77 }));
      assert.match(flat(sim.screen), /^NON VALIDE \| émission inconnue/);
      assert.equal(sim.faults, []);
      assert.equal(ledgerEntries(sim.chip), []);
    } finally {
      sim.dispose();
    }
  });

  test(name('pay: OK records, then PAYÉ; a second scan says DÉJÀ PAYÉ; reboot keeps the ledger'), async () => {
    const chip = chipWith();
    const code = ticket({ number: 42, block: 3, prizeEur: 150 });
    let b = await boot(chip, { variant });
    try {
      await scanSerial(b, code);
      assert.match(flat(b.screen), /^GAGNANT/);
      await b.press('OK');
      assert.match(flat(b.screen), /^PAYÉ/);
      assert.is(b.screen[3], '150 €');
      assert.ok(same(lastTones(b), BEEPS.paid));
      const paid = ledgerEntries(chip);
      assert.is(paid.length, 1);
      assert.equal(
        { ...paid[0], paidAtMs: 0 },
        { emission: 1, block: 3, number: 42, prizeEur: 150, paidAtMs: 0, deviceId: 'SPH-000042' },
      );
      await b.press('OK');
      assert.match(flat(b.screen), /PRÊT/);
      await scanSerial(b, code);
      assert.match(flat(b.screen), /^DÉJÀ PAYÉ \| le \d\d\/\d\d\/2026 \d\d:\d\d \| par SPH-000042/);
      assert.ok(same(lastTones(b), BEEPS.refused));
      await b.press('OK');
      assert.is(ledgerEntries(chip).length, 1, 'never paid twice');
    } finally {
      b.dispose();
    }
    b = await boot(chip, { variant, deviceId: 'Caisse n°7 — entrée principale' });
    try {
      await scanSerial(b, code);
      assert.match(flat(b.screen), /^DÉJÀ PAYÉ .* par SPH-000042/);
      await b.press('OK');
      assert.is(ledgerEntries(chip).length, 1);
      // A device id that is not printable ASCII is made so for the ledger, not refused.
      await scanSerial(b, ticket({ number: 43, prizeEur: 10 }));
      await b.press('OK');
      assert.match(flat(b.screen), /^PAYÉ/);
      assert.is(ledgerEntries(chip)[1].deviceId, 'Caisse n?7 ? ent');
    } finally {
      b.dispose();
    }
  });

  test(name('bad input of any kind: a clear screen, back to ready, ledger untouched'), async () => {
    const sim = await boot(chipWith(), { variant });
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
        await scanSerial(sim, text);
        assert.match(flat(sim.screen), re, JSON.stringify(text));
        await sim.press('OK');
        assert.match(flat(sim.screen), /PRÊT/);
      }
      // Half a code, then silence: the decoder times out and the scan is refused.
      const half = good.slice(0, 80);
      await serialBytes(
        sim,
        Uint8Array.from(half, (c) => c.charCodeAt(0)),
      );
      await sim.run(2000);
      assert.match(flat(sim.screen), /NON VALIDE \| lecture incomplète/);
      await sim.run(10000);
      assert.match(flat(sim.screen), /PRÊT/, 'back to ready by itself');
      assert.equal(ledgerEntries(sim.chip), []);
      assert.equal(sim.faults, []);
    } finally {
      sim.dispose();
    }
  });

  test(name('an exception inside the app is caught, logged and shown; the app goes on'), async () => {
    const chip = chipWith();
    const sim = await boot(chip, { variant });
    try {
      sim.periph!.failNext = 'led';
      await scanSerial(sim, ticket({ number: 11 }));
      assert.match(flat(sim.screen), /^ERREUR \| led failure/);
      assert.ok(
        sim.periph!.logs.some((l) => /error: .*led failure/.test(l)),
        sim.periph!.logs.join('\n'),
      );
      assert.ok(same(lastTones(sim), BEEPS.error));
      await sim.run(10000);
      assert.match(flat(sim.screen), /PRÊT/);
      await scanSerial(sim, ticket({ number: 12 }));
      assert.match(flat(sim.screen), /^PERDANT/);
      assert.equal(sim.faults, [], 'nothing escaped the app');
    } finally {
      sim.dispose();
    }
  });

  test(name('English by configuration; the test key is trusted only when configured'), async () => {
    const chip = chipWith(testConfig({ lang: 'en' }));
    let b = await boot(chip, { variant });
    try {
      await scanSerial(b, ticket({ number: 13, prizeEur: 150 }));
      assert.match(flat(b.screen), /^WINNER .* €150$/);
      await scanSerial(b, 'nope');
      assert.match(flat(b.screen), /^NOT VALID \| not a SAPHIR code/);
    } finally {
      b.dispose();
    }
    writeConfig(chip, testConfig({ keys: [] }));
    b = await boot(chip, { variant });
    try {
      await scanSerial(b, ticket({ number: 14, prizeEur: 150 }));
      assert.match(flat(b.screen), /^NON VALIDE \| clé de signature \| inconnue/);
    } finally {
      b.dispose();
    }
  });
}

test('the same verdicts through a keyboard-wedge scanner (French layout) and a HID POS scanner', async () => {
  const sim = await boot(chipWith());
  try {
    const play = async (
      via: 'hid-keyboard' | 'hid-pos',
      code: string,
      options: Record<string, string | number | boolean> = {},
    ) => {
      const end = sim.transmit(transmit(via, code, options, seededRng(1)));
      await sim.run(end - sim.now);
    };
    await play('hid-keyboard', ticket({ number: 31, prizeEur: 150 }), { layout: 'fr' });
    assert.match(flat(sim.screen), /^GAGNANT .* 150 €$/);
    await sim.press('C');
    await play('hid-keyboard', ticket({ number: 32 }), { layout: 'us' });
    assert.match(flat(sim.screen), /^PERDANT/);
    await play('hid-pos', ticket({ number: 33, prizeEur: 25000 }));
    assert.match(flat(sim.screen), /^GAGNANT .* 25 000 €$/);
    await play('hid-pos', 'NOT A TICKET');
    assert.match(flat(sim.screen), /^NON VALIDE/);
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
});

test('every invalid SPH1 vector: NON VALIDE with its reason in words, nothing recorded', async () => {
  const sim = await boot(chipWith());
  try {
    const invalid = loadVectors().vectors.filter((v) => v.expect.status === 'invalid');
    assert.ok(invalid.length >= 15);
    for (const v of invalid) {
      await scanSerial(sim, v.code);
      const words = REASON_TEXT.fr[v.expect.reason as Reason];
      assert.is(sim.screen[0], 'NON VALIDE', v.name);
      assert.is(sim.screen.slice(1, 3).join(' ').trim(), words, v.name);
      assert.is(sim.screen[3], 'NON VALIDE');
      await sim.press('OK');
      await sim.press('OK');
    }
    assert.equal(ledgerEntries(sim.chip), []);
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
});

test('a hung app is interrupted (the watchdog reset)', async () => {
  // The VM host's own deadline, shortened here (the Simulator's is VM_LIMITS.deadlineMs).
  const { periph } = bareDevice();
  const vm = await QjsDevice.start({ bundle: await bundleText(), device: periph.device, deadlineMs: 300 });
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
  const { periph, scheduler } = bareDevice();
  // eslint-disable-next-line prefer-const -- declared before the Log class that reads it
  let vm: QjsDevice | undefined;
  (periph.device as unknown as { Log: unknown }).Log = class {
    write(l: string) {
      if (l === 'reset me') vm!.dispose();
    }
  };
  vm = await QjsDevice.start({
    bundle: `new device.Timers({}).set(() => { new device.Log({}).write('reset me'); new device.TextDisplay({}).show(['after']); }, 10);`,
    device: periph.device,
  });
  scheduler.runUntil(20);
  assert.is(vm.alive, false);
  assert.equal(periph.screen, [], 'no HAL call goes through after the reset');
  scheduler.runUntil(40);
  const other = await QjsDevice.start({ bundle: 'globalThis.x = 6 * 7', device: bareDevice().periph.device });
  assert.is(other.eval('x'), 42, 'the shared engine still works');
  other.dispose();
});

test("the device's engine has none of the built-ins the build refuses (Date, Promise, Proxy, normalize); the firmware runs without them", async () => {
  const sim = new Simulator({ chip: chipWith(), bundle: await bundleText(), deviceId: 'SPH-000042' });
  try {
    await sim.boot();
    assert.match(sim.screen.join(' | '), /PRÊT/);
    const vm = sim.vm as QjsDevice;
    assert.is(
      vm.eval('[typeof Date, typeof Promise, typeof Proxy, typeof "".normalize, typeof Map].join()'),
      'undefined,undefined,undefined,undefined,function',
    );
  } finally {
    sim.dispose();
  }
  // tools/build.ts refuses code naming them, not the firmware's own words ('await-pay').
  for (const bad of [
    'Promise.resolve(1)',
    'new Proxy(o, h)',
    's.normalize()',
    'async function f(){}',
    'async()=>1',
    'await x',
  ])
    assert.ok(ABSENT_INTRINSICS.test(bad), bad);
  for (const fine of ['kind:"await-pay"', 'closingDate:1', 'promised', 'isAsync', 'normalizeKey(s)'])
    assert.not.ok(ABSENT_INTRINSICS.test(fine), fine);
});

test.run();
