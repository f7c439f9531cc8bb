// 10 000 scans in a row do not grow the VM heap (the real bundle in QuickJS).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import '../../hw-sim/function-source.ts';
import { boot, chipWith, flat, scanSerial, ticket } from './harness.ts';

test('10 000 scans of every kind do not grow the heap', async () => {
  const sim = await boot(chipWith());
  try {
    // Mostly scans that stop before the signature (cheap), every 100th a fully verified ticket.
    const verified = [
      ticket({ number: 1 }),
      ticket({ number: 2, prizeEur: 150 }),
      ticket({ number: 3, prizeEur: 500 }),
    ];
    const cheap = [
      'hello',
      'SPH1:%%%',
      'SPH1:' + 'A'.repeat(30),
      ticket({ number: 4, keyId: 9 }),
      ticket({ number: 5, prizeEur: 150, keyId: 3 }),
    ];
    const scan = async (i: number) => {
      if (i % 100 === 0) await scanSerial(sim, verified[(i / 100) % verified.length]);
      else await scanSerial(sim, cheap[i % cheap.length]);
      if (i % 7 === 0) await sim.press('C');
      if (i % 97 === 0) await sim.run(10000);
    };
    for (let i = 0; i < 1000; i++) await scan(i);
    const samples: number[] = [];
    for (let i = 1000; i < 10000; i++) {
      await scan(i);
      if (i % 500 === 0) samples.push(sim.heapDevice());
    }
    const early = Math.max(...samples.slice(0, 4));
    const late = Math.max(...samples.slice(-4));
    assert.ok(late - early < 16 * 1024, `heap grew by ${late - early} bytes: ${samples.join(', ')}`);
    // The text path stays within the device's budget (the camera path is compiled on the first frame only;
    // the heap as the device has it, without the debug line tables it strips: qjs-host.ts heapDevice).
    assert.ok(late < 512 * 1024, `text-path heap ${late} bytes`);
    assert.equal(sim.faults, []);
    await scanSerial(sim, verified[0]);
    assert.match(flat(sim.screen), /^PERDANT/);
  } finally {
    sim.dispose();
  }
});

test.run();
