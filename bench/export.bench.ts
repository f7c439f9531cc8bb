// ledger_export_full_s: `ledger export` of a full ledger (25 908 payments, the partition's capacity)
// through a real socat pty at 115 200 baud, the device pacing its UART. ledger_export_line_s: the line
// time of its bytes (19-byte binary entries, 8N1). Target: full ≤ 1.3 × line.
import { exposeServicePort } from '../hw-sim/pty.ts';
import { ServiceClient } from '../host/flash-client.ts';
import { flashDevice } from '../test/flash/harness.ts';
import { LAYOUT } from '../rom/layout.ts';
import { MirroredLedger } from '../src/ledger/index.ts';
import { LEDGER_ENTRY_BYTES } from '../src/service/protocol.ts';

export default async function (): Promise<Record<string, number>> {
  const baud = 115200;
  const dev = await flashDevice();
  // The device's partition: the time mark, then two mirrored logs (src/ledger/mirror.ts).
  const ledger = MirroredLedger.open(dev.chip.partition(LAYOUT.ledger.offset, LAYOUT.ledger.size), {
    deviceId: dev.deviceId,
  });
  for (let i = ledger.count; i < ledger.capacity; i++) {
    ledger.record({
      emission: 3,
      block: 1 + (i % 500),
      number: i,
      prizeEur: 20,
      paidAtMs: Date.UTC(2026, 0, 1) + i * 1000,
    });
  }
  const n = ledger.count;
  const pty = await exposeServicePort(dev.serviceHost(), { baud });
  try {
    const c = await ServiceClient.open(pty.path, { baud });
    try {
      await c.identify();
      const t0 = performance.now();
      const got = await c.ledger();
      const s = (performance.now() - t0) / 1000;
      if (got.length !== n) throw new Error(`exported ${got.length} of ${n}`);
      return {
        ledger_export_payments: n,
        ledger_export_full_s: Math.round(s * 100) / 100,
        ledger_export_line_s: Math.round(((n * LEDGER_ENTRY_BYTES * 10) / baud) * 100) / 100,
      };
    } finally {
      await c.close();
    }
  } finally {
    await pty.close();
  }
}
