// Devices of one fleet and the registry, end to end: the real firmware bundle in two simulated devices
// (QuickJS), their network on virtual time, and a registry on PGlite in a worker thread.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator } from '../../hw-sim/sim.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { transmit } from '../../hw-sim/scanners/index.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../host/registry/embedded.ts';
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

const CLOCK = Date.UTC(2027, 0, 12, 10, 0, 0);
const code = (number: number, prize: number) => ticketCode({ emission: 1, block: 5, number, prize });

async function device(id: string, opts: { offlineLimitEur?: number; chip?: NorFlash } = {}): Promise<Simulator> {
  const sim = new Simulator({ registry: reg.url, deviceId: id, clockMs: CLOCK, chip: opts.chip, seed: id });
  sims.push(sim);
  sim.configure({ deviceId: id, offlineLimitEur: opts.offlineLimitEur, syncIntervalMs: 5000, registryTimeoutMs: 2000 });
  await sim.boot();
  await sim.run(500);
  return sim;
}

async function scan(sim: Simulator, text: string): Promise<string[]> {
  const done = sim.transmit(transmit('serial', text, {}, sim.rng));
  await sim.run(done - sim.now + 300);
  return sim.screen;
}

async function ok(sim: Simulator): Promise<string[]> {
  await sim.press('OK');
  await sim.run(3500);
  return sim.screen;
}

const text = (lines: string[]) => lines.join(' | ');

test('paid on one device: DÉJÀ PAYÉ on the other, with where and when; nothing paid twice', async () => {
  const a = await device('CAISSE-1');
  const b = await device('CAISSE-2');
  const c = code(1, 30);
  assert.match(text(await scan(a, c)), /GAGNANT/);
  assert.match(text(await ok(a)), /PAYÉ/);
  assert.match(text(await scan(b, c)), /GAGNANT/); // b's own ledger has never seen it
  const shown = text(await ok(b));
  assert.match(shown, /DÉJÀ PAYÉ/);
  assert.match(shown, /par CAISSE-1/);
  assert.equal(a.ledger().length, 1);
  assert.equal(b.ledger().length, 0);
  const r = await reg.report();
  assert.equal(r.counts.payments, 1);
});

test('both offline pay the same ticket (under the offline limit); back online: one conflict, nothing lost or counted twice', async () => {
  const a = await device('CAISSE-3');
  const b = await device('CAISSE-4');
  a.network!.state.up = false;
  b.network!.state.up = false;
  const c = code(2, 30);
  for (const s of [a, b]) {
    await scan(s, c);
    const shown = text(await ok(s));
    assert.match(shown, /PAYÉ/);
    assert.match(shown, /hors ligne/);
    await s.run(9000);
    assert.match(text(s.screen), /1 à transmettre/);
  }
  // The waiting payment survives a reboot (it is on flash), then goes out when the network is back.
  await a.reboot();
  await a.run(500);
  assert.match(text(a.screen), /1 à transmettre/);
  a.network!.state.up = true;
  b.network!.state.up = true;
  await a.run(12_000);
  await b.run(12_000);
  assert.not.match(text(a.screen), /à transmettre/);
  assert.not.match(text(b.screen), /à transmettre/);
  const r = await reg.report();
  const conflicts = r.report.conflicts.filter((x) => x.number === 2);
  assert.equal(conflicts.length, 1);
  assert.equal(new Set([conflicts[0].device_id, conflicts[0].first_device_id]), new Set(['CAISSE-3', 'CAISSE-4']));
  const perDevice = r.report.per_device.filter((d) => d.device_id === 'CAISSE-3' || d.device_id === 'CAISSE-4');
  assert.equal(
    perDevice.reduce((n, d) => n + Number(d.payments), 0),
    1,
  );
  // Both devices hold their own payment: nothing lost.
  assert.equal(a.ledger().length, 1);
  assert.equal(b.ledger().length, 1);
});

test('offline above the offline limit: not paid now ("payer plus tard"), nothing recorded', async () => {
  const a = await device('CAISSE-5', { offlineLimitEur: 100 });
  a.network!.state.up = false;
  await scan(a, code(3, 150));
  const shown = text(await ok(a));
  assert.match(shown, /réseau indisponible/);
  assert.match(shown, /payer plus tard/);
  assert.equal(a.ledger().length, 0);
  // Online again: the same ticket is paid through the registry.
  a.network!.state.up = true;
  await a.run(9000);
  await scan(a, code(3, 150));
  assert.match(text(await ok(a)), /PAYÉ/);
  assert.equal(a.ledger().length, 1);
});

test('a forged ticket never reaches the registry; a lossy network still pays each ticket once in the fleet', async () => {
  const a = await device('CAISSE-6');
  const b = await device('CAISSE-7');
  assert.match(
    text(await scan(a, ticketCode({ emission: 1, block: 5, number: 9, prize: 150, key: 'other' }))),
    /NON VALIDE/,
  );
  a.network!.state = { up: true, latencyMs: 200, loss: 0.3 };
  b.network!.state = { up: true, latencyMs: 200, loss: 0.3 };
  for (let n = 100; n < 110; n++) {
    for (const s of [a, b]) {
      await scan(s, code(n, 15));
      await ok(s);
      await s.run(9000);
    }
  }
  a.network!.state = { up: true, latencyMs: 20, loss: 0 };
  b.network!.state = { up: true, latencyMs: 20, loss: 0 };
  await a.run(30_000);
  await b.run(30_000);
  const r = await reg.report();
  const mine = (d: Record<string, unknown>) => d.device_id === 'CAISSE-6' || d.device_id === 'CAISSE-7';
  // Every ticket has exactly one holder; a device paid a ticket the other held only offline (a conflict).
  const held = r.report.per_device.filter(mine).reduce((n, d) => n + Number(d.payments), 0);
  assert.equal(held, 10);
  const paidOnDevices = a.ledger().length + b.ledger().length;
  const conflicts = r.report.conflicts.filter((c) => Number(c.number) >= 100 && Number(c.number) < 110).length;
  assert.equal(paidOnDevices, 10 + conflicts);
});

test('an embedded registry closed, then another started in this process: emptied, with its own options, on a new address; the closed one refuses', async () => {
  const fleet = async (url: string) => ((await (await fetch(`${url}/health`)).json()) as { fleet: string }).fleet;
  const a = await startEmbeddedRegistry({ freshnessMs: 1234 });
  await a.addDevice('KEPT-1', '11'.repeat(32));
  assert.is((await a.report()).counts.devices, 1);
  assert.is.not(await fleet(a.url), 'development', 'a device enrolled');
  await a.close();
  let refused = false;
  await fetch(`${a.url}/health`).catch(() => (refused = true));
  assert.ok(refused, 'the closed registry does not answer');
  // (The same thread and database, kept by embedded.ts: ~0.05 s of CPU instead of ~1.3 s.) With its own options.
  const b = await startEmbeddedRegistry({ production: true });
  try {
    assert.is(await fleet(b.url), 'production', 'the enrolled device went with the tables; the new options hold');
    assert.equal((await b.report()).counts, { payments: 0, conflicts: 0, devices: 0 });
  } finally {
    await b.close();
  }
});

test.run();
