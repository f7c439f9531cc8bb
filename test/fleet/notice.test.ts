// Operator notices end to end: the real firmware in a simulated device (QuickJS), a registry on PGlite
// publishing notices, the device fetching them with its sync; and the service port's NOTICE.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator } from '../../hw-sim/sim.ts';
import { transmit } from '../../hw-sim/scanners/index.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../host/registry/embedded.ts';
import { DEV_OPERATOR_SEED_HEX, signNotice, signedNoticeText, type Notice } from '../../src/notice.ts';
import { nobleSign } from '../../src/crypto/ed25519.ts';
import { fromHex } from '../../src/hex.ts';
import '../../hw-sim/node-host.ts';

let reg: EmbeddedRegistry;
const sims: Simulator[] = [];
test.before(async () => {
  reg = await startEmbeddedRegistry();
});
test.after.each(() => {
  for (const s of sims.splice(0)) s.dispose();
});
test.after(async () => {
  await reg.close();
});

const CLOCK = Date.UTC(2026, 5, 15, 10, 0, 0); // Monday 15 June 2026
const code = (emission: number, number: number, prize = 30) => ticketCode({ emission, block: 2, number, prize });
const base: Notice = {
  version: 1,
  payout_limit_eur: 300,
  offline_limit_eur: 150,
  id_threshold_eur: 5000,
  emissions: [
    { number: 3, name: 'SAPHIR 3', on_sale: '2026-01-05' },
    { number: 4, name: 'SAPHIR 4', on_sale: '2026-02-02' },
  ],
  holidays: [],
};
const signed = (n: Notice, seed = fromHex(DEV_OPERATOR_SEED_HEX)) =>
  signedNoticeText(signNotice(n, (m) => nobleSign(m, seed)));
const closing = (version: number, closes: Record<number, string>, holidays: string[] = []): Notice => ({
  ...base,
  version,
  emissions: base.emissions.map((e) => (closes[e.number] ? { ...e, closes: closes[e.number] } : e)),
  holidays,
});

async function device(id: string, department = ''): Promise<{ sim: Simulator; log: string[] }> {
  const log: string[] = [];
  const sim = new Simulator({
    registry: reg.url,
    deviceId: id,
    clockMs: CLOCK,
    seed: id,
    events: { log: (l) => log.push(l) },
  });
  sims.push(sim);
  // Emission 3 is not in the configuration: the notice brings it.
  sim.configure({
    deviceId: id,
    syncIntervalMs: 1000,
    registryTimeoutMs: 2000,
    emissions: [{ emission: 1, closingDate: '2027-06-30' }],
    department,
  });
  await sim.boot();
  await sim.run(11000); // the first heartbeat sync, 10 sync intervals after boot
  return { sim, log };
}

async function scan(sim: Simulator, text: string): Promise<string> {
  const done = sim.transmit(transmit('serial', text, {}, sim.rng));
  await sim.run(done - sim.now + 300);
  const shown = sim.screen.join(' | ');
  await sim.press('C');
  await sim.run(2000);
  return shown;
}

const at = (iso: string) => Date.parse(iso);

test('a closing notice through the registry: payable while on sale, then TICKET EXPIRÉ from day 31', async () => {
  await reg.publishNotice(signed(base));
  const { sim, log } = await device('CAISSE-N1');
  assert.ok(
    log.some((l) => /notice 1 applied \(registry\)/.test(l)),
    log.join('\n'),
  );
  // On sale, no deadline: payable, even far ahead.
  assert.match(await scan(sim, code(3, 10)), /GAGNANT/);
  await reg.publishNotice(signed(closing(2, { 3: '2026-06-15' })));
  await sim.run(12000);
  assert.ok(
    log.some((l) => /notice 2 applied/.test(l)),
    log.join('\n'),
  );
  // Day 30 (15 July, a Wednesday): still payable; day 31: expired.
  sim.setClock(at('2026-07-15T21:00:00Z')); // 23:00 Paris
  assert.match(await scan(sim, code(3, 11)), /GAGNANT/);
  sim.setClock(at('2026-07-15T22:00:00Z')); // 00:00 Paris, 16 July
  assert.match(await scan(sim, code(3, 11)), /TICKET EXPIRÉ.*15\/07\/2026/);
  // Emission 4 is still on sale: payable.
  assert.match(await scan(sim, code(4, 12)), /GAGNANT/);
  // A reboot reads the notice from flash.
  await sim.reboot();
  await sim.run(500);
  assert.match(await scan(sim, code(3, 11)), /TICKET EXPIRÉ/);
});

test('a deadline on a Sunday moves to Monday; a notice holiday moves it once more', async () => {
  // Emission 4 closes Friday 19 June: day 30 is Sunday 19 July.
  await reg.publishNotice(signed(closing(3, { 3: '2026-06-15', 4: '2026-06-19' })));
  const { sim } = await device('CAISSE-N2');
  sim.setClock(at('2026-07-20T12:00:00Z'));
  assert.match(await scan(sim, code(4, 20)), /GAGNANT/);
  sim.setClock(at('2026-07-20T22:00:00Z')); // 00:00 Paris, Tuesday 21
  assert.match(await scan(sim, code(4, 20)), /TICKET EXPIRÉ.*20\/07\/2026/);
  // The operator declares Monday 20 July a holiday (an overseas department's): payable on Tuesday 21.
  await reg.publishNotice(signed(closing(4, { 3: '2026-06-15', 4: '2026-06-19' }, ['2026-07-20'])));
  await sim.run(12000);
  assert.match(await scan(sim, code(4, 20)), /GAGNANT/);
});

test('a notice signed by another key is refused and said; the device keeps its notice', async () => {
  const { sim, log } = await device('CAISSE-N3');
  await sim.run(9000); // the screen of notice 4 applied, back to ready
  const before = log.filter((l) => /notice .* applied/.test(l)).length;
  await reg.publishNotice(signed(closing(99, { 3: '2026-06-01' }), new Uint8Array(32).fill(5)));
  await sim.run(12000);
  assert.ok(
    log.some((l) => /notice 99 from registry refused: signature/.test(l)),
    log.join('\n'),
  );
  assert.is(log.filter((l) => /notice .* applied/.test(l)).length, before);
  assert.ok(sim.screens.some((x) => /AVIS REFUSÉ.*n° 99/.test(x.lines.join(' | '))));
  // Asked again, the registry does not send it again (the device says it refused 99): said once.
  await sim.run(25000);
  assert.is(log.filter((l) => /notice 99 from registry refused/.test(l)).length, 1);
});

test('an emission going on sale on 1 July: not payable before 00:00 Paris that day (trusted time), then payable', async () => {
  const n: Notice = {
    ...closing(100, { 3: '2026-06-15' }),
    emissions: [base.emissions[0], { number: 4, name: 'SAPHIR 4', on_sale: '2026-07-01' }],
  };
  await reg.publishNotice(signed(n));
  const { sim, log } = await device('CAISSE-N4');
  assert.ok(
    log.some((l) => /notice 100 applied/.test(l)),
    log.join('\n'),
  );
  assert.match(await scan(sim, code(4, 30)), /NON PAYABLE \| En vente le \| 01\/07\/2026 4-2-30/);
  assert.match(await scan(sim, code(4, 30, 500)), /NON PAYABLE/, 'nor a claim slip for a payment centre');
  sim.setClock(at('2026-06-30T21:59:00Z')); // 23:59 Paris, 30 June
  assert.match(await scan(sim, code(4, 30)), /NON PAYABLE/);
  sim.setClock(at('2026-06-30T22:00:01Z')); // 00:00 Paris, 1 July
  assert.match(await scan(sim, code(4, 30)), /GAGNANT/);
});

test('department holidays: a deadline on a holiday of the device’s department moves, not on another’s', async () => {
  // Emission 4 closes Friday 19 June: day 30 is Sunday 19 July, moved to Monday 20 July. Monday 20 is
  // a holiday of 974 only, Tuesday 21 one of 971 only.
  await reg.publishNotice(
    signed({
      ...closing(101, { 3: '2026-06-15', 4: '2026-06-19' }),
      departments: [
        { code: '971', holidays: ['2026-07-21'] },
        { code: '974', holidays: ['2026-07-20'] },
      ],
    }),
  );
  const reunion = await device('CAISSE-974', '974');
  const guadeloupe = await device('CAISSE-971', '971');
  const paris = await device('CAISSE-75', '75');
  for (const d of [reunion, guadeloupe, paris])
    assert.ok(
      d.log.some((l) => /notice 101 applied/.test(l)),
      d.log.join('\n'),
    );
  const tuesday = at('2026-07-21T10:00:00Z');
  for (const d of [reunion, guadeloupe, paris]) d.sim.setClock(tuesday);
  assert.match(await scan(reunion.sim, code(4, 40)), /GAGNANT/);
  assert.match(await scan(guadeloupe.sim, code(4, 41)), /TICKET EXPIRÉ.*20\/07\/2026/);
  assert.match(await scan(paris.sim, code(4, 42)), /TICKET EXPIRÉ.*20\/07\/2026/);
  // 974's own deadline is Tuesday 21: expired from 00:00 Paris on Wednesday 22.
  reunion.sim.setClock(at('2026-07-21T22:00:00Z'));
  assert.match(await scan(reunion.sim, code(4, 40)), /TICKET EXPIRÉ.*21\/07\/2026/);
});

test.run();
