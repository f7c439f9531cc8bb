// Issue #30's attacks on the fleet link, end to end: the real firmware in simulated devices, a registry
// with its own key (the devices provisioned with its public key), and a man in the middle of a device's
// network (hw-sim/attacker.ts). Each attack paid twice on the firmware before signed answers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator } from '../../hw-sim/sim.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { transmit } from '../../hw-sim/scanners/index.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { attacker, type Attack } from '../../hw-sim/attacker.ts';
import { publicKeyOf } from '../../src/crypto/ed25519.ts';
import { fromHex } from '../../src/hex.ts';
import { DEV_REGISTRY_SEED_HEX } from '../../src/registry/protocol.ts';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../host/registry/embedded.ts';
import '../../hw-sim/node-host.ts';

const REGISTRY_SEED = '5e'.repeat(32);
let reg: EmbeddedRegistry;
const sims: Simulator[] = [];
const logs = new Map<Simulator, string[]>();
const logOf = (s: Simulator) => logs.get(s) ?? [];
test.before(async () => {
  reg = await startEmbeddedRegistry({ registrySeedHex: REGISTRY_SEED });
});
test.after.each(() => {
  for (const s of sims.splice(0)) s.dispose();
});
test.after(async () => {
  await reg.close();
});

const CLOCK = Date.UTC(2027, 0, 12, 10, 0, 0);
const code = (number: number, prize: number) => ticketCode({ emission: 1, block: 6, number, prize });

async function device(
  id: string,
  opts: { chip?: NorFlash; registryKey?: Uint8Array; clockMs?: number; url?: string } = {},
): Promise<Simulator> {
  const lines: string[] = [];
  const sim = new Simulator({
    events: { log: (l) => void lines.push(l) },
    registry: opts.url ?? reg.url,
    deviceId: id,
    clockMs: opts.clockMs ?? CLOCK,
    chip: opts.chip,
    seed: id,
    registryKey: opts.registryKey ?? publicKeyOf(fromHex(REGISTRY_SEED)),
  });
  sims.push(sim);
  logs.set(sim, lines);
  sim.configure({ deviceId: id, syncIntervalMs: 5000, registryTimeoutMs: 2000 });
  await sim.boot();
  await sim.run(500);
  return sim;
}

async function pay(sim: Simulator, text: string): Promise<string> {
  const done = sim.transmit(transmit('serial', text, {}, sim.rng));
  await sim.run(done - sim.now + 300);
  await sim.press('OK');
  await sim.run(3500);
  return sim.screen.join(' | ');
}

for (const attack of ['rewrite', 'unsigned', 'resign', 'fake', 'replay', 'other-ticket'] as Attack[]) {
  test(`a man in the middle (${attack}) never makes a second till pay a ticket paid elsewhere`, async () => {
    const n = 10 + ['rewrite', 'unsigned', 'resign', 'fake', 'replay', 'other-ticket'].indexOf(attack) * 2;
    const a = await device(`A-${attack}`.slice(0, 16));
    const b = await device(`B-${attack}`.slice(0, 16));
    assert.match(await pay(a, code(n, 150)), /PAYÉ/);
    // replay: the man in the middle keeps b's genuine answer for another ticket, then gives it again.
    const seed =
      attack === 'other-ticket'
        ? fromHex(REGISTRY_SEED)
        : attack === 'resign'
          ? fromHex(DEV_REGISTRY_SEED_HEX)
          : undefined;
    b.network!.mitm = attacker(attack, seed);
    if (attack === 'replay') assert.match(await pay(b, code(n + 1, 30)), /PAYÉ/);
    if (attack === 'other-ticket') b.network!.mitm = attacker(attack, seed);
    const shown = await pay(b, code(n, 150));
    assert.not.match(shown, /PAYÉ/);
    assert.match(shown, /réponse non signée/);
    assert.equal(
      b.ledger().filter((p) => p.number === n),
      [],
    );
    assert.ok(logOf(b).some((l) => l.includes('registry refused the claim: forged')));
  });
}

test('a fake registry answering syncs cannot hide an offline double payment: the entry waits, then the conflict is recorded', async () => {
  const a = await device('SYNC-A');
  const b = await device('SYNC-B');
  a.network!.state.up = false;
  b.network!.state.up = false;
  const c = code(40, 30);
  assert.match(await pay(a, c), /hors ligne/);
  assert.match(await pay(b, c), /hors ligne/);
  a.network!.state.up = true;
  await a.run(12_000);
  b.network!.state.up = true;
  b.network!.mitm = attacker('fake', fromHex(DEV_REGISTRY_SEED_HEX));
  await b.run(12_000);
  assert.match(b.screen.join(' | '), /1 à transmettre/);
  b.network!.mitm = attacker('rewrite'); // conflict → granted, the registry's signature kept
  await b.run(12_000);
  assert.match(b.screen.join(' | '), /1 à transmettre/);
  b.network!.mitm = null;
  await b.run(12_000);
  assert.not.match(b.screen.join(' | '), /à transmettre/);
  const conflicts = (await reg.report()).report.conflicts.filter((x) => x.number === 40);
  assert.equal(conflicts.length, 1);
  assert.equal(conflicts[0].device_id, 'SYNC-B');
});

test('a device rolled back to an older flash image meets DÉJÀ PAYÉ for a ticket it paid and confirmed; the report says regrant', async () => {
  const chip = new NorFlash();
  const a = await device('ROLLBACK-1', { chip });
  const before = new NorFlash({ bytes: chip.bytes.slice() }); // the image before the payment
  assert.match(await pay(a, code(50, 150)), /PAYÉ/);
  await a.run(6000); // the confirmation goes out (outbox → sync)
  assert.not.match(a.screen.join(' | '), /à transmettre/);
  a.dispose();
  // An hour later (a rolled-back device replaying the very same requests to the ms would be refused as replays).
  const old = await device('ROLLBACK-1', { chip: before, clockMs: CLOCK + 3600_000 });
  const shown = await pay(old, code(50, 150));
  assert.match(shown, /DÉJÀ PAYÉ/);
  assert.match(shown, /par ROLLBACK-1/);
  assert.equal(old.ledger().length, 0);
  const r = await reg.report();
  const regrants = r.report.regrants.filter((x) => x.number === 50);
  assert.equal(regrants.length, 1);
  assert.equal(regrants[0].device_id, 'ROLLBACK-1');
  assert.equal(r.holders.filter((h) => h.number === 50).length, 1);
});

test('a clone (same id, same key) meets DÉJÀ PAYÉ once the original confirmed its payment; the report says regrant', async () => {
  const a = await device('CLONE-1');
  const twin = await device('CLONE-1', { clockMs: CLOCK + 60_000 });
  assert.match(await pay(a, code(60, 150)), /PAYÉ/);
  await a.run(6000); // the confirmation goes out
  const shown = await pay(twin, code(60, 150));
  assert.match(shown, /DÉJÀ PAYÉ/);
  assert.equal(twin.ledger().length, 0);
  const regrants = (await reg.report()).report.regrants.filter((x) => x.number === 60);
  assert.equal(regrants.length, 1);
  assert.equal(regrants[0].device_id, 'CLONE-1');
});

test('the confirmation of a granted claim goes on its own (POST /v1/confirm), retried from the outbox until answered; then DÉJÀ PAYÉ for a clone', async () => {
  const a = await device('CONFIRM-1');
  const paths: string[] = [];
  let drop = true;
  a.network!.mitm = {
    rewrite(path, _request, answer) {
      paths.push(path);
      // The first confirm's answer is lost: the entry stays in the outbox and goes again.
      if (path === '/v1/confirm' && drop) {
        drop = false;
        return { status: 0, body: '' };
      }
      return answer;
    },
  };
  assert.match(await pay(a, code(90, 150)), /PAYÉ/);
  await a.run(12_000);
  assert.equal(paths, ['/v1/claim', '/v1/confirm', '/v1/confirm']);
  assert.not.match(a.screen.join(' | '), /à transmettre/);
  const twin = await device('CONFIRM-1', { clockMs: CLOCK + 60_000 });
  assert.match(await pay(twin, code(90, 150)), /DÉJÀ PAYÉ/);
  assert.equal(twin.ledger().length, 0);
});

test('a till whose RTC is 3 days back claims with its trusted time: not refused stale', async () => {
  // A registry that refuses stale requests (a day), in the file's one's place (its thread taken again,
  // emptied: host/registry/embedded.ts); the file's one comes back after, emptied.
  await reg.close();
  const fresh = await startEmbeddedRegistry({ registrySeedHex: REGISTRY_SEED, freshnessMs: 24 * 3600_000 });
  try {
    const a = await device('RTC-BACK', { clockMs: Date.now(), url: fresh.url });
    a.setClock(a.clock - 3 * 86400_000);
    await a.run(500);
    const shown = await pay(a, code(70, 30));
    assert.match(shown, /PAYÉ/);
    assert.not.match(shown, /refusé/);
  } finally {
    await fresh.close();
    reg = await startEmbeddedRegistry({ registrySeedHex: REGISTRY_SEED });
  }
});

test('a nonce never repeats across a power cut: the same RTC and uptime after a reboot is not a replay', async () => {
  const chip = new NorFlash();
  const a = await device('NONCE-1', { chip });
  assert.match(await pay(a, code(80, 30)), /PAYÉ/);
  a.powerCut();
  a.dispose();
  // The same device, its RTC set back to the same reading, the same steps after boot.
  const b = await device('NONCE-1', { chip });
  const shown = await pay(b, code(81, 30));
  assert.match(shown, /PAYÉ/);
  assert.not.ok(logOf(b).some((l) => l.includes('replay')));
});

test.run();
