// `saphir ledger export --to URL`: a technician's laptop carries a device's offline payments to the
// registry; the device signs the batch itself (service command OUTBOX) and marks what was heard.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator } from '../../hw-sim/sim.ts';
import { portLink } from '../flash/harness.ts';
import { transmit } from '../../hw-sim/scanners/index.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { ServiceClient } from '../../host/flash-client.ts';
import { pushOutbox } from '../../host/commands/ledger.ts';
import { startEmbeddedRegistry } from '../../host/registry/embedded.ts';
import '../../hw-sim/node-host.ts';

test('offline payments reach the registry through the service port, once; the device marks them heard', async () => {
  const reg = await startEmbeddedRegistry();
  const sim = new Simulator({ registry: reg.url, deviceId: 'CAISSE-8', clockMs: Date.UTC(2027, 0, 12, 10) });
  try {
    sim.configure({ deviceId: 'CAISSE-8', syncIntervalMs: 3_600_000 });
    await sim.boot();
    await sim.run(500);
    sim.network!.state.up = false;
    for (const n of [1, 2]) {
      const end = sim.transmit(
        transmit('serial', ticketCode({ emission: 1, block: 6, number: n, prize: 30 }), {}, sim.rng),
      );
      await sim.run(end - sim.now + 300);
      await sim.press('OK');
      await sim.run(12_000);
    }
    assert.match(
      sim.screen.join(' '),
      /2 à transmettre/,
      sim.screens
        .slice(-8)
        .map((x) => x.lines.join(' / '))
        .join('\n'),
    );
    // The device's service port in this process; REBOOT does nothing here.
    const { link } = portLink(sim.serviceHost({ reboot: () => {} }));
    const client = new ServiceClient(link, 115200);
    const out: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => (out.push(String(s)), true)) as typeof process.stdout.write;
    try {
      assert.is(await pushOutbox(client, reg.url, 'fr'), 0);
      assert.is(await pushOutbox(client, reg.url, 'en'), 0);
    } finally {
      process.stdout.write = write;
    }
    assert.match(out[0], /2 paiement\(s\) hors ligne transmis/);
    assert.match(out[1], /0 offline payment\(s\) sent/);
    const r = await reg.report();
    assert.equal(
      r.holders.map((h) => [h.number, h.device_id]),
      [
        [1, 'CAISSE-8'],
        [2, 'CAISSE-8'],
      ],
    );
    // The device itself has nothing left to send.
    await sim.reboot();
    await sim.run(500);
    assert.not.match(sim.screen.join(' '), /à transmettre/);
  } finally {
    sim.dispose();
    await reg.close();
  }
});

test.run();
