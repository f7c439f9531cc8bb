// The check journal and the X report read on the host: `saphir ledger export --journal` and `--report`
// through a real pty from the real firmware running in the simulator, giving what the device's own X
// report printed (src/report.ts on both sides). Two exports run as processes (an answer, a refusal); the
// others in this process (onPty: the same main, no start-up).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boot, chipWith, scanSerial, testConfig, ticket } from '../firmware/harness.ts';
import { onPty, portArgs, ptyTest, withPty } from '../flash/harness.ts';
import { saphirAsync } from '../cli/run-cli.ts';

// Each export reads the whole journal partition: 3.2 s of wire time at 921 600 baud. The tests are about the
// figures, not the line: the simulated device's UART is paced at 100 Mbaud (0.03 s, not 1 s at 3 Mbaud, a
// pty has no speed of its own), the CLI says the most it takes.
const BAUD = 4_000_000;
const LINE = 100_000_000;

ptyTest('ledger export --report and --journal over a pty equal the device X report and its verdicts', async () => {
  const sim = await boot(chipWith(testConfig({ payoutLimitEur: 300 })));
  try {
    for (const [n, prize, key] of [
      [1, 150, 'OK'],
      [2, 30, 'OK'],
      [3, 10, 'C'],
      [4, 0, 'C'],
      [5, 500, 'C'],
    ] as const) {
      await scanSerial(sim, ticket({ emission: 1, number: n, prizeEur: prize }));
      await sim.press(key);
      await sim.press('C');
    }
    for (const k of ['1', 'OK'] as const) await sim.press(k);
    const x = sim.printer!.last!.text.join('\n');
    assert.match(x, /Paiements 2: 180 €[\s\S]*Gains non payés 1: 10 €[\s\S]*Envoyés en centre 1/);
    await withPty(sim, LINE, async (pty) => {
      const r = await saphirAsync(['ledger', 'export', ...portArgs(pty, BAUD), '--report', '--format', 'json']);
      assert.is(r.code, 0, r.stderr);
      const rep = JSON.parse(r.stdout) as Record<string, number>;
      assert.equal(
        [rep.payments, rep.total_eur, rep.unpaid_wins, rep.unpaid_eur, rep.centre, rep.from_ms],
        [2, 180, 1, 10, 1, 0],
      );
      const text = await onPty(pty, BAUD, 'ledger export', '--report');
      assert.match(text.stdout, /Paiements : 2, 180 €[\s\S]*Gains affichés non payés : 1, 10 €/);
      const j = await onPty(pty, BAUD, 'ledger export', '--journal', '--lang', 'en');
      assert.is(j.code, 0, j.stderr);
      const lines = j.stdout.trim().split('\n');
      assert.is(lines[0], 'at,verdict,reason,emission,block,number,prize_eur');
      assert.equal(
        lines.slice(1).map((l) => l.split(',').slice(1, 2)[0]),
        ['win', 'paid', 'win', 'paid', 'win', 'lose', 'centre'],
      );
      assert.match(j.stderr, /7 journal entr/);
      const both = await onPty(pty, BAUD, 'ledger export', '--report', '--journal');
      assert.is(both.code, 2);
    });
  } finally {
    sim.dispose();
  }
});

ptyTest(
  'ledger export --report z gives the period the last Z closed, as that Z printed it, after the next period began',
  async () => {
    const sim = await boot(chipWith(testConfig({ payoutLimitEur: 300 })));
    const pay = async (n: number, prize: number, key: 'OK' | 'C' = 'OK') => {
      await scanSerial(sim, ticket({ emission: 1, number: n, prizeEur: prize }));
      await sim.press(key);
      await sim.press('C');
    };
    const closeZ = async () => {
      for (const k of ['2', 'OK', 'OK'] as const) await sim.press(k);
      const text = sim.printer!.last!.text.join('\n');
      assert.match(text, /RAPPORT Z/);
      await sim.press('C');
      await sim.run(2000); // the next second: the Z's own belongs to the closed period
      return text;
    };
    try {
      await withPty(sim, LINE, async (pty) => {
        const none = await saphirAsync(['ledger', 'export', ...portArgs(pty, BAUD), '--report', 'z']);
        assert.is(none.code, 1, none.stdout + none.stderr);
        assert.match(none.stderr, /aucun rapport Z sur cet appareil/);
        const bad = await onPty(pty, BAUD, 'ledger export', '--report', 'y');
        assert.is(bad.code, 2);
        assert.match(bad.stderr, /--report vaut x .* ou z/);
      });
      await pay(1, 150);
      await closeZ();
      await pay(2, 30);
      await pay(3, 10, 'C'); // shown, not paid in this period…
      await pay(4, 500, 'C');
      const z2 = await closeZ();
      assert.match(z2, /Paiements 1: 30 €[\s\S]*Gains non payés 1: 10 €[\s\S]*Envoyés en centre 1/);
      await pay(3, 10); // …paid in the next one: the closed Z keeps it unpaid
      await pay(5, 30);
      await withPty(sim, LINE, async (pty) => {
        const r = await onPty(pty, BAUD, 'ledger export', '--report', 'z', '--format', 'json');
        assert.is(r.code, 0, r.stderr);
        const z = JSON.parse(r.stdout) as Record<string, number>;
        assert.equal(
          [z.payments, z.total_eur, z.unpaid_wins, z.unpaid_eur, z.centre, z.scans],
          [1, 30, 1, 10, 1, 4],
          r.stdout,
        );
        assert.ok(z.from_ms > 0 && z.to_ms > z.from_ms, 'between the two Zs');
        const x = await onPty(pty, BAUD, 'ledger export', '--report', '--format', 'json');
        const cur = JSON.parse(x.stdout) as Record<string, number>;
        assert.equal([cur.payments, cur.total_eur, cur.from_ms], [2, 40, z.to_ms], 'x: the period after the last Z');
        const text = await onPty(pty, BAUD, 'ledger export', '--report', 'z', '--lang', 'en');
        assert.match(text.stdout, /^Z report: .* \(the period the last Z closed\)\nPayments: 1, €30/);
      });
    } finally {
      sim.dispose();
    }
  },
);

test.run();
