// Binary, pipelined LEDGER pages: codec round trip, a large ledger through a real pty equals what the
// device holds, progress lines off a terminal, the JSON paging of older devices still read.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import {
  decodeLedgerPage,
  encodeLedgerPage,
  LEDGER_ENTRY_BYTES,
  type LedgerEntry,
} from '../../src/service/protocol.ts';
import { ServiceClient } from '../../host/flash-client.ts';
import { LAYOUT } from '../../rom/layout.ts';
import { Ledger } from '../../src/ledger/index.ts';
import { CMD } from '../../src/service/packet.ts';
import { flashDevice, portArgs, portLink, withPty, ptyTest } from './harness.ts';
import { saphirAsync } from '../cli/run-cli.ts';
import { Simulator } from '../../hw-sim/sim.ts';

const entry = fc.record({
  emission: fc.integer({ min: 0, max: 0xffff }),
  block: fc.integer({ min: 0, max: 0xffff }),
  number: fc.integer({ min: 0, max: 0xffffffff }),
  prizeEur: fc.integer({ min: 0, max: 0xffffffff }),
  paidAtMs: fc.integer({ min: 0, max: 2 ** 47 }),
  deviceId: fc.stringMatching(/^[\x20-\x7e]{0,16}$/),
});

test('binary page codec: round trip, 19 bytes an entry, truncation detected', async () => {
  fc.assert(
    fc.property(fc.array(entry, { maxLength: 60 }), fc.nat(70), fc.nat(70), (es: LedgerEntry[], a, n) => {
      const first = Math.min(a, es.length);
      const b = encodeLedgerPage(es, first, n);
      const d = decodeLedgerPage(b);
      assert.ok(d);
      assert.is(d!.total, es.length);
      assert.is(d!.first, first);
      assert.equal(
        d!.entries,
        es.slice(first, first + n).map((e) => ({ ...e })),
      );
      if (b.length > 12) assert.is(decodeLedgerPage(b.subarray(0, b.length - 1)), null);
    }),
    { numRuns: 300 },
  );
  const one = encodeLedgerPage(
    [{ emission: 1, block: 2, number: 3, prizeEur: 4, paidAtMs: 5, deviceId: 'SPH-1' }],
    0,
    1,
  );
  assert.is(one.length, 11 + 1 + 1 + 5 + LEDGER_ENTRY_BYTES);
});

function fill(dev: Simulator, n: number): void {
  const ledger = Ledger.open(dev.chip.partition(LAYOUT.ledger.offset, LAYOUT.ledger.size), { deviceId: dev.deviceId });
  for (let i = 0; i < n; i++)
    ledger.record({
      emission: 2,
      block: 9 + (i % 3),
      number: 50000 + i,
      prizeEur: 10 * ((i % 7) + 1),
      paidAtMs: Date.UTC(2026, 9, 1) + i * 60000,
    });
}

ptyTest(
  'saphir ledger export: 3 000 payments through a real pty, every one, progress every 10 % off a terminal',
  async () => {
    const dev = await flashDevice();
    fill(dev, 2995);
    await withPty(dev, 921600, async (pty) => {
      const r = await saphirAsync(['ledger', 'export', ...portArgs(pty, 921600), '--format', 'json', '--lang', 'en']);
      assert.is(r.code, 0, r.stderr);
      const got = JSON.parse(r.stdout) as { number: number; paid_at: string; device_id: string }[];
      const want = dev.ledger() as LedgerEntry[];
      assert.is(got.length, 3000);
      assert.equal(
        got.map((e) => e.number),
        want.map((e) => e.number),
      );
      assert.equal(
        got.map((e) => e.paid_at),
        want.map((e) => new Date(e.paidAtMs).toISOString()),
      );
      assert.match(r.stderr, /^10 %$[\s\S]*^50 %$[\s\S]*^100 %$/m);
      assert.match(r.stderr, /3000 payment\(s\) exported/);
      const quiet = await saphirAsync(['ledger', 'export', ...portArgs(pty, 921600), '--quiet', '--lang', 'en']);
      assert.is(quiet.code, 0);
      assert.not.match(quiet.stderr, /%/);
      assert.is(quiet.stdout.trim().split('\n').length, 3001);
    });
  },
);

test('a device that answers LEDGER in JSON only is still read, page by page', async () => {
  const dev = await flashDevice();
  fill(dev, 200);
  const { port, link } = portLink(dev.serviceHost());
  // An older device: it knows only the index, not the binary flag (LEDGER requests cut to the index).
  const legacy = new ServiceClient(link, 921600);
  const request = legacy.request.bind(legacy);
  legacy.request = (type, payload, opts) =>
    request(type, type === CMD.LEDGER && payload ? payload.subarray(0, 4) : payload, opts);
  const got = (await legacy.ledger()) as LedgerEntry[];
  assert.is(got.length, 205);
  assert.equal(
    got.map((e) => e.number),
    (dev.ledger() as LedgerEntry[]).map((e) => e.number),
  );
  port.close();
});

test.run();
