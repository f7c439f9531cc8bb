// Update campaigns over the fleet (docs/registry.md, "Update campaigns"): simulated devices running the real
// firmware hear of a campaign in their sync's answer, download the image in chunks (the firmware asks, the
// ROM's streaming writer programs the inactive slot), restart into it on trial when idle, confirm, and the
// registry moves the campaign phase by phase; a failure at --max-failures stops it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator } from '../../hw-sim/sim.ts';
import { readBootState } from '../../rom/bootloader.ts';
import { bootChip } from '../../hw-sim/sim.ts';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../host/registry/embedded.ts';
import type { CampaignStatus } from '../../host/registry/campaigns.ts';
import '../../hw-sim/node-host.ts';
import { LONG } from '../helpers.ts';

const CLOCK = Date.UTC(2027, 0, 12, 10, 0, 0);
const SYNC_MS = 2000;

let reg: EmbeddedRegistry;
let sims: Simulator[] = [];
test.before(async () => {
  reg = await startEmbeddedRegistry();
});
test.before.each(async () => {
  await reg.reset();
});
test.after.each(() => {
  for (const s of sims.splice(0)) s.dispose();
});
test.after(async () => {
  await reg?.close();
});

/** `n` devices provisioned with the base image (0.1.0, counter 1), configured for the registry, booted. */
async function fleet(n: number): Promise<Simulator[]> {
  sims = [];
  for (let i = 1; i <= n; i++) {
    const id = `CAISSE-${String(i).padStart(2, '0')}`;
    const sim = new Simulator({ registry: reg.url, deviceId: id, clockMs: CLOCK, ledgerSectors: 8 });
    sim.provisionImage();
    sim.configure({ deviceId: id, syncIntervalMs: SYNC_MS, lang: 'fr' });
    await sim.boot();
    sims.push(sim);
  }
  return sims;
}

/** Runs every device `ms` of virtual time, in slices of `slice` (devices one after the other each slice). */
async function run(ms: number, slice = 1000): Promise<void> {
  for (let t = 0; t < ms; t += slice) for (const s of sims) if (s.on) await s.run(slice);
}

async function until(cond: (c: CampaignStatus) => boolean, name: string, maxMs: number): Promise<CampaignStatus> {
  let c = await reg.campaign({ verb: 'status', name });
  for (let t = 0; t < maxMs && !cond(c); t += 5000) {
    await run(5000);
    c = await reg.campaign({ verb: 'status', name });
  }
  return c;
}

/** The three-phase campaign's fleet: 4 devices in npm test (phases 1, 1, 2), 10 in the long tier (1, 1, 8). */
const FLEET = LONG ? 10 : 4;

test(`a three-phase campaign on ${FLEET} devices: phase by phase, and one failure stops it before phase 3`, async () => {
  const devices = await fleet(FLEET);
  // Every device says who it is (its first heartbeat, 10 sync intervals after boot).
  await run(10 * SYNC_MS + 2000);
  const image = devices[0].updateImage('next');
  // Planted failure: CAISSE-02's network rewrites one digit in the middle of every whole chunk but the
  // first (a broken proxy; the code, never the header or the TLV area at the image's end, whatever the
  // image's size): its ROM finds the slot does not hash to the signed SHA-256 and reports the download failed.
  devices[1].network!.mitm = {
    rewrite: (path, req, a) =>
      path === '/v1/chunk' &&
      a.status === 200 &&
      a.body.length === 8192 &&
      (JSON.parse(req) as { offset: number }).offset > 0
        ? { ...a, body: a.body.slice(0, 4096) + (a.body[4096] === '0' ? '1' : '0') + a.body.slice(4097) }
        : a,
  };
  const phases = LONG ? [1, 10, 100] : [25, 50, 100];
  const c0 = await reg.campaign({ verb: 'create', name: 'v0.2', image, phases, maxFailures: 1 });
  assert.equal(
    c0.per_phase.map((p) => p.devices),
    [1, 1, FLEET - 2],
  );
  const c = await until((x) => x.state !== 'running', 'v0.2', 240_000);
  assert.is(c.state, 'stopped');
  const by = Object.fromEntries(c.devices.map((d) => [d.device_id, d]));
  assert.is(by['CAISSE-01'].state, 'confirmed');
  assert.is(by['CAISSE-02'].state, 'failed');
  assert.match(String(by['CAISSE-02'].detail), /^hash/, String(by['CAISSE-02'].detail));
  // Phase 3 never started: none of its devices was offered the image, and they still run 0.1.0 from slot A.
  for (const d of c.devices.filter((x) => x.phase === 3)) assert.is(d.state, 'pending', d.device_id);
  assert.is(devices[0].booted?.version, '0.2.0');
  assert.is(devices[0].pendingConfirm, false);
  assert.is(readBootState(bootChip(devices[0].chip)).minCounter, 2);
  assert.is(devices[1].booted?.version, '0.1.0');
  for (const d of devices.slice(2)) assert.is(d.booted?.version, '0.1.0');
});

test('a power cut in the middle of a download: the device resumes from the chunks it held, then confirms', async () => {
  const logs: string[] = [];
  const [d] = await fleet(1);
  d.events.log = (l) => logs.push(l);
  await run(10 * SYNC_MS + 2000);
  await reg.campaign({ verb: 'create', name: 'cut', image: d.updateImage('next'), phases: [100], maxFailures: 1 });
  const chunks = () => d.network!.sent.filter((x) => x.path === '/v1/chunk').length;
  assert.ok(await d.runUntil(() => chunks() >= 12, 60_000), 'the download started');
  // The power goes in the middle of a flash operation of the next chunk (its erase or its program).
  d.cutAfterFlashOps(2);
  await d.runUntil(() => !d.on, 5000);
  assert.not.ok(d.on);
  const before = chunks();
  await d.boot();
  const c = await until((x) => x.state !== 'running', 'cut', 120_000);
  assert.is(c.state, 'done');
  const resumed = logs.map((l) => /update cut: from (\d+)/.exec(l)).filter(Boolean);
  assert.is(resumed.length, 2, logs.join('\n'));
  assert.ok(Number(resumed[1]![1]) >= 8 * 4096, `resumed from ${resumed[1]![1]}`);
  const total = Math.ceil(d.updateImage('next').length / 4096);
  assert.ok(chunks() - before <= total - 8, `${chunks() - before} chunks after the cut, of ${total}`);
  assert.equal([d.booted?.version, d.booted?.slot, d.pendingConfirm], ['0.2.0', 1, false]);
});

test.run();
