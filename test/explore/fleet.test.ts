// The fault explorer's fleet mode (docs/explorer.md, "Fleet mode"): schedules depend on (seed, index)
// only, a failing schedule is written as a fleet scenario the scenario checker accepts, and a seeded
// smoke on today's firmware and registry finds nothing (one schedule each in npm test, SMOKE in the long
// tier, which imports this file). Planted defects: fleet.long.ts.
import { test } from 'uvu';
import { createHash } from 'node:crypto';
import * as assert from 'uvu/assert';
import { fleetScenario, fleetScenarioYaml, makeFleetSchedule, runFleetOps } from '../../hw-sim/explore/fleet.ts';
import { exploreFleet } from '../../host/commands/sim-fleet.ts';
import { parseScenario, type Step } from '../../hw-sim/scenario.ts';
import { runScenario } from '../../hw-sim/runner.ts';
import { closeFleetRegistry, fleetRegistry } from '../../hw-sim/explore/fleet.ts';
import { FleetModel, FleetViolation, campaignProblem, type DeviceView } from '../../hw-sim/explore/fleet-model.ts';
import { claimEndMs } from '../../hw-sim/explore/deadline.ts';
import { readNoticeRecords, type NoticeRecord } from '../../hw-sim/explore/notice-reader.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { LAYOUT } from '../../rom/layout.ts';
import { parseNoticeText, storeNotice, type SignedNotice } from '../../src/notice.ts';
import { LONG } from '../helpers.ts';

/** Schedules of each seeded smoke: its seed's first in npm test, two in the long tier. */
const SMOKE = LONG ? 2 : 1;

// One registry for the file (a PGlite start each, ~1.3 s of CPU): emptied before each schedule, closed at the end.
const keepRegistry = true;
test.after(() => closeFleetRegistry());

test('a fleet schedule depends on (seed, index) only; it ends with everything back up and time to sync', () => {
  const a = makeFleetSchedule('s', 3);
  assert.equal(JSON.stringify(makeFleetSchedule('s', 3)), JSON.stringify(a));
  assert.not.equal(JSON.stringify(makeFleetSchedule('s', 4)), JSON.stringify(a));
  for (let i = 0; i < 30; i++) {
    const s = makeFleetSchedule('s', i);
    assert.ok(s.devices.length >= 2 && s.devices.length <= 4);
    const settle = s.ops[s.ops.length - 1];
    assert.is(settle.kind, 'settle');
    assert.ok(settle.steps.some((st) => st.kind === 'registry' && st.up));
    for (const d of s.devices)
      assert.ok(settle.steps.some((st) => st.kind === 'network' && st.on === d && st.up && st.loss === 0));
  }
  assert.is(makeFleetSchedule('s', 3, { devices: 4 }).devices.length, 4);
  // Every kind of operation comes up in a few schedules.
  const kinds = new Set(Array.from({ length: 40 }, (_, i) => makeFleetSchedule('k', i).ops.map((o) => o.kind)).flat());
  for (const k of ['pay', 'network-down', 'partition', 'registry-down', 'registry-up', 'cut-at-flash-op', 'power-cut'])
    assert.ok(kinds.has(k as never), k);
});

test('campaigns: a third of the schedules get one, the other operations unchanged; invariant 12 reads a campaign', () => {
  const withOne = Array.from({ length: 30 }, (_, i) => makeFleetSchedule('s', i)).filter((s) =>
    s.ops.some((o) => o.kind === 'campaign'),
  );
  assert.ok(withOne.length >= 5 && withOne.length <= 20, String(withOne.length));
  const d = (device_id: string, phase: number, state: string) => ({ device_id, phase, state });
  const c = (devices: ReturnType<typeof d>[]) => campaignProblem({ name: 'c', max_failures: 1, devices });
  assert.is(c([d('A', 1, 'confirmed'), d('B', 2, 'offered')]), null);
  assert.is(c([d('A', 1, 'failed'), d('B', 2, 'pending')]), null);
  assert.match(String(c([d('A', 1, 'failed'), d('B', 2, 'offered')])), /after 1 failure/);
  assert.match(String(c([d('A', 1, 'installed'), d('B', 2, 'offered')])), /while A \(phase 1\) is installed/);
});

test('campaign pause, resume and abort: after the create, lenient, written to YAML and read back', () => {
  const verbs = (s: ReturnType<typeof makeFleetSchedule>) =>
    s.ops.flatMap((o) => o.steps).filter((st) => st.kind === 'campaign') as (Step & { kind: 'campaign' })[];
  const all = Array.from({ length: 60 }, (_, i) => makeFleetSchedule('s', i));
  const later = all.filter((s) => verbs(s).length > 1);
  assert.ok(later.length >= 5, String(later.length));
  const seen = new Set<string>();
  for (const s of later) {
    const v = verbs(s);
    assert.is(v[0].verb, 'create');
    for (const x of v.slice(1)) {
      assert.ok(x.lenient, 'lenient');
      seen.add(x.verb);
    }
    assert.ok(
      ['pause,resume', 'pause,abort', 'abort'].includes(
        v
          .slice(1)
          .map((x) => x.verb)
          .join(','),
      ),
    );
    assert.is(s.ops[s.ops.length - 1].kind, 'settle');
    const back = parseScenario(
      fleetScenarioYaml(s, s.ops, { invariant: 9, step: fleetScenario(s).steps.length, message: 'test', expect: [] }),
      'fleet.yaml',
    ).steps.filter((st) => st.kind === 'campaign') as (Step & { kind: 'campaign' })[];
    assert.equal(
      back.map((x) => [x.verb, !!x.lenient]),
      v.map((x) => [x.verb, !!x.lenient]),
    );
  }
  assert.equal([...seen].sort(), ['abort', 'pause', 'resume']);
});

test('operator notices: drawn apart (the other operations unchanged), versions rising, through the YAML scenario and back', () => {
  const notices = (s: ReturnType<typeof makeFleetSchedule>) =>
    s.ops.flatMap((o) => o.steps).filter((st) => st.kind === 'notice') as (Step & { kind: 'notice' })[];
  const all = Array.from({ length: 60 }, (_, i) => makeFleetSchedule('s', i));
  const withSome = all.filter((s) => s.notices.length);
  assert.ok(withSome.length >= 20 && withSome.length <= 40, String(withSome.length));
  const kinds = new Set(withSome.flatMap((s) => s.ops.map((o) => o.kind)));
  for (const k of ['notice', 'notice-foreign', 'notice-older']) assert.ok(kinds.has(k as never), k);
  const closes = new Set<string>();
  for (const s of withSome) {
    // Without the notices, the same schedule.
    assert.equal(
      JSON.stringify(s.ops.filter((o) => !o.kind.startsWith('notice'))),
      JSON.stringify(makeFleetSchedule('s', s.index, { notices: false }).ops),
    );
    assert.is(s.ops[0].kind, 'boot');
    assert.is(s.ops[s.ops.length - 1].kind, 'settle');
    // The registry's versions rise in the order of the operations; foreign and older ones come after a genuine one.
    let latest = 0;
    let genuine = 0;
    for (const st of notices(s)) {
      const d = s.notices.find((n) => n.text === st.text)!;
      assert.ok(d, 'a drawn notice');
      const p = parseNoticeText(st.text!) as SignedNotice;
      assert.is(p.notice.version, d.version);
      assert.is(p.notice.emissions[0].closes, d.closes);
      closes.add(claimEndMs(d.closes) <= s.clockMs ? 'over' : 'open');
      assert.ok(genuine > 0 || !d.foreign, 'a foreign notice after a genuine one');
      if (st.via === 'registry') {
        assert.ok(d.version > latest, `version ${d.version} after ${latest}`);
        latest = d.version;
        if (!d.foreign) genuine = d.version;
      } else {
        assert.ok(st.lenient && st.on, 'pushed over one service port, lenient');
        if (!d.foreign) assert.ok(d.version <= genuine, `older: ${d.version} after ${genuine}`);
      }
    }
    const back = parseScenario(
      fleetScenarioYaml(s, s.ops, { invariant: 13, step: fleetScenario(s).steps.length, message: 'test', expect: [] }),
      'fleet.yaml',
    ).steps.filter((st) => st.kind === 'notice') as (Step & { kind: 'notice' })[];
    assert.equal(
      back.map((x) => [x.text, x.via, !!x.lenient, x.on]),
      notices(s).map((x) => [x.text, x.via, !!x.lenient, x.on]),
    );
  }
  assert.equal([...closes].sort(), ['open', 'over']);
});

test("invariants 13 and 14 on hand-made views: a foreign or older notice held, a payment or an offer after the notice's deadline, TICKET EXPIRÉ before it", () => {
  const s = [...Array(40).keys()].map((i) => makeFleetSchedule('s', i)).find((x) => x.notices.some((n) => n.foreign))!;
  const genuine = s.notices.filter((n) => !n.foreign);
  const foreign = s.notices.find((n) => n.foreign)!;
  const n1 = genuine[0];
  const end = claimEndMs(n1.closes);
  const record = (n: (typeof s.notices)[number], sector = 0): NoticeRecord => ({
    sector,
    version: n.version,
    text: n.text,
  });
  const model = () =>
    new FleetModel(s.tickets, ['A'], 150, { drawn: s.notices, closingDate: '2030-01-01', paySlackMs: 3000 });
  const view = (o: Partial<DeviceView>): DeviceView => ({ id: 'A', screens: [], screen: [], ...o });
  const step: Step = { kind: 'delay', line: 1, ms: 10 };
  const fails = (m: FleetModel, v: DeviceView, invariant: number, match: RegExp) => {
    try {
      m.observe(2, step, [v]);
    } catch (e) {
      assert.instance(e, FleetViolation);
      assert.is((e as FleetViolation).v.invariant, invariant, (e as FleetViolation).message);
      assert.match((e as FleetViolation).v.message, match);
      return;
    }
    assert.unreachable(`invariant ${invariant} did not fire`);
  };
  // The notice the operator signed, held: fine; a foreign one on flash: 14.
  model().observe(1, step, [view({ notices: [record(n1)] })]);
  fails(model(), view({ notices: [record(n1, 0), record(foreign, 1)] }), 14, /did not sign.*foreign key/);
  // Its text changed on flash (another closing date under the operator's signature): 14.
  const forged = { ...record(n1), text: n1.text.replace(n1.closes, '2020-01-01') };
  fails(model(), view({ notices: [forged] }), 14, /not as the operator signed it/);
  // The version held goes down: 14.
  const top = genuine.reduce((a, b) => (b.version > a.version ? b : a));
  const lower = genuine.find((n) => n.version < top.version);
  if (lower) {
    const m = model();
    m.observe(1, step, [view({ notices: [record(top)] })]);
    fails(m, view({ notices: [record(lower)] }), 14, /went down/);
  }
  // "AVIS n° N appliqué" of a version not above the one held: 14.
  {
    const m = model();
    m.observe(1, step, [view({ notices: [record(n1)] })]);
    fails(m, view({ notices: [record(n1)], screens: [[`AVIS n° ${n1.version}`, 'appliqué', '', '']] }), 14, /applied/);
  }
  // Deadlines by the notice held at the screen: PAYÉ (past the slack), an offer, TICKET EXPIRÉ before the end.
  const timed = (screen: string[], clockMs: number) => view({ timed: [{ screen, clockMs, records: [record(n1)] }] });
  const paid = ['PAYÉ', 'Paiement enregistré', '', '10,00 €'];
  const win = ['GAGNANT', '1-1-5', 'OK payer  C annuler', '10,00 €'];
  const expired = ['TICKET EXPIRÉ', "jusqu'au …", '1-1-5', 'NON PAYABLE'];
  model().observe(1, step, [timed(paid, end - 1)]);
  model().observe(1, step, [timed(paid, end + 2999)]); // OK before the end, the answer after: in time
  model().observe(1, step, [timed(expired, end)]);
  fails(model(), timed(paid, end + 3000), 13, /paid a ticket/);
  fails(model(), timed(win, end + 1000), 13, /offered a ticket/);
  fails(model(), timed(expired, end - 1), 13, /TICKET EXPIRÉ/);
  // With no notice, the configuration's closing date (2030) holds.
  fails(model(), view({ timed: [{ screen: expired, clockMs: end, records: [] }] }), 13, /configuration/);
});

test("the model's notice reader reads what the firmware's notice writer wrote (both sectors; a torn one skipped)", () => {
  const s = [...Array(40).keys()].map((i) => makeFleetSchedule('s', i)).find((x) => x.notices.length > 1)!;
  const [a, b] = s.notices;
  const chip = new NorFlash({ size: 4 * 1024 * 1024 });
  const part = chip.partition(LAYOUT.notice.offset, LAYOUT.notice.size);
  const peek = (o: number, n: number) => chip.peek(o, n);
  assert.equal(readNoticeRecords(peek), []);
  const held = storeNotice(part, parseNoticeText(a.text) as SignedNotice, null);
  assert.equal(
    readNoticeRecords(peek).map((r) => [r.version, JSON.parse(r.text).signature]),
    [
      [a.version, a.signature],
      [a.version, a.signature],
    ],
  );
  storeNotice(part, parseNoticeText(b.text) as SignedNotice, held);
  const both = readNoticeRecords(peek);
  assert.equal(
    both.map((r) => r.version),
    [b.version, b.version],
  );
  // A bit flipped in one record: that sector is skipped, the other read.
  const at = LAYOUT.notice.offset + 20;
  chip.bytes[at] ^= 1;
  assert.equal(
    readNoticeRecords(peek).map((r) => r.sector),
    [1],
  );
});

test('a failing fleet schedule is written as a fleet scenario the checker accepts, with a boot before any key after an armed cut', () => {
  const s = makeFleetSchedule('y', 1, { devices: 3 });
  const sc = fleetScenario(s);
  const yaml = fleetScenarioYaml(s, s.ops, {
    invariant: 9,
    step: sc.steps.length,
    message: 'test',
    expect: [{ kind: 'expect-registry', line: 0, claims: 2, conflicts: 1, withinMs: 0 }],
  });
  const back = parseScenario(yaml, 'fleet.yaml');
  assert.equal(back.devices, s.devices);
  assert.is(back.steps.length, sc.steps.length + 1);
  assert.is(back.config?.offlineLimitEur, s.config.offlineLimitEur);
  assert.is(back.config?.syncIntervalMs, s.config.syncIntervalMs);
  sc.steps.forEach((st, i) => {
    assert.is(back.steps[i].kind, st.kind, `step ${i + 1}`);
    assert.is(back.steps[i].on, st.on, `step ${i + 1}`);
  });
  const last = back.steps[back.steps.length - 1];
  assert.ok(last.kind === 'expect-registry' && last.claims === 2 && last.conflicts === 1);
});

test('registry: down | up in a scenario: down, a win is paid offline; up again, the same database (a restart)', async () => {
  const t = (n: number, prize: number) =>
    `{ ticket: { emission: 1, block: 2, number: ${n}, prize: ${prize} }, via: serial }`;
  const sc = parseScenario(
    `name: restart
config:
  payout-limit: 300
  clock: 2027-01-15T10:00:00Z
  emissions: [{ emission: 1, closes: 2027-06-30 }]
  offline-limit: 150
  registry-timeout-ms: 1000
  sync-interval-ms: 2000
devices: [CAISSE-1, CAISSE-2]
steps:
  - boot
  - { scan: ${t(7, 30)}, on: CAISSE-1 }
  - { press: OK, on: CAISSE-1 }
  - { expect-display: { contains: PAYÉ, within: 3s }, on: CAISSE-1 }
  - registry: down
  - { scan: ${t(8, 30)}, on: CAISSE-1 }
  - { press: OK, on: CAISSE-1 }
  - { expect-display: { contains: hors ligne, within: 5s }, on: CAISSE-1 }
  - registry: up
  - expect-registry: { claims: 2, conflicts: 0, contains: { emission: 1, block: 2, number: 8, device: CAISSE-1 }, within: 30s }
  - { scan: ${t(7, 30)}, on: CAISSE-2 }
  - { press: OK, on: CAISSE-2 }
  - { expect-display: { contains: DÉJÀ PAYÉ, within: 3s }, on: CAISSE-2 }
`,
    'restart.yaml',
  );
  const reg = await fleetRegistry();
  await reg.reset();
  const r = await runScenario(sc, { registry: reg.scenario });
  assert.ok(r.ok, JSON.stringify(r.steps.at(-1)) + r.display);
});

test("campaign steps, lenient: skipped when the campaign's state refuses the verb; refused otherwise, and an unknown campaign always", async () => {
  const run = async (steps: string) => {
    const sc = parseScenario(`name: lenient\ndevices: [CAISSE-1]\nsteps:\n${steps}`, 'lenient.yaml');
    const reg = await fleetRegistry();
    await reg.reset();
    return runScenario(sc, { registry: reg.scenario });
  };
  const ok = await run(`  - campaign: { name: c1, image: next, phases: "100", max-failures: 1 }
  - campaign: { name: c1, do: resume, lenient: true }
  - campaign: { name: c1, do: pause }
  - campaign: { name: c1, do: pause, lenient: true }
  - campaign: { name: c1, do: abort }
  - campaign: { name: c1, do: abort, lenient: true }
  - campaign: { name: c1, do: resume, lenient: true }
  - expect-campaign: { name: c1, state: aborted }
`);
  assert.ok(ok.ok, JSON.stringify(ok.steps.at(-1)));
  const strict = await run(`  - campaign: { name: c1, image: next, phases: "100", max-failures: 1 }
  - campaign: { name: c1, do: resume }
`);
  assert.not.ok(strict.ok);
  assert.match(strict.steps.at(-1)!.problem ?? '', /c1 is running: cannot resume/);
  const unknown = await run(`  - campaign: { name: nope, do: pause, lenient: true }\n`);
  assert.not.ok(unknown.ok);
  assert.match(unknown.steps.at(-1)!.problem ?? '', /no campaign nope/);
});

test('a registry: down step against a registry given by URL says it cannot stop it', async () => {
  const sc = parseScenario('name: url\nsteps:\n  - boot\n  - registry: down\n', 'url.yaml');
  const byUrl = { url: 'http://127.0.0.1:9', state: async () => ({ holders: [], conflicts: 0 }) };
  const r = await runScenario(sc, { registry: byUrl });
  assert.not.ok(r.ok);
  assert.match(r.steps.at(-1)!.problem ?? '', /registry: down\|up.*--registry embedded.*URL/);
});

test('seeded smoke: fleet schedules on the real firmware and registry break no invariant', async () => {
  const s = await exploreFleet({ count: SMOKE, seed: 's2', jobs: 1, maxOps: 25, keepRegistry });
  assert.is(s.violations, 0, JSON.stringify(s.failures));
  assert.is(s.schedules, SMOKE);
  // The end checks ran on each, and the schedules paid both online and offline.
  assert.is(s.checks[9], SMOKE);
  assert.is(s.checks[10], SMOKE);
  // Schedule 0 pays offline only; with schedule 1 (long tier) both ways. (Online and offline payments in
  // one schedule are also the schedule-205 case below.)
  assert.ok((s.payments.online > 0 || !LONG) && s.payments.offline > 0, JSON.stringify(s.payments));
});

test('the settle outlasts what still holds a sync back: a win waiting for OK (bench 88)', async () => {
  // bench 88: a 150 € win shown on CAISSE-2 just before the settle holds its sync back for pay-wait-ms,
  // reported as a double payment missing its conflict. Found before notices were drawn: the schedule as
  // it was then. (sixth 14, a cut still armed striking in the settle, was replayed here too until 6 Dec:
  // it no longer failed with the settle's second round taken out; its case is written out below.)
  // The schedule replayed, pinned: a menu change that draws another one fails here, not silently (three
  // explorer replays and sixth 14 lost their cases so, found 6 Dec). Then check that the new one still fails
  // with the settle as it was (one round, no pay wait), or write its case out as operations; then the digest.
  const drawn = JSON.stringify(makeFleetSchedule('bench', 88, { notices: false }).ops);
  assert.is(
    createHash('sha256').update(drawn).digest('hex').slice(0, 16),
    'e42159b6ddf92c97',
    'bench 88 draws another schedule now',
  );
  const s = await exploreFleet({ count: 1, first: 88, seed: 'bench', jobs: 1, notices: false, keepRegistry });
  assert.is(s.violations, 0, JSON.stringify(s.failures));
  assert.is(s.checks[9], 1);
});

test('--attacker: schedules draw a man in the middle, rollbacks and clones, turn every attack off for the settle, and write them as scenario steps', () => {
  const kinds = new Set(
    Array.from({ length: 40 }, (_, i) => makeFleetSchedule('k', i, { attacker: true }).ops.map((o) => o.kind)).flat(),
  );
  for (const k of ['attack', 'attack-off', 'snapshot', 'rollback', 'clone']) assert.ok(kinds.has(k as never), k);
  assert.not.ok(makeFleetSchedule('k', 1).ops.some((o) => ['attack', 'clone', 'rollback'].includes(o.kind)));
  const s = makeFleetSchedule('k', 2, { attacker: true, devices: 3 });
  const settle = s.ops[s.ops.length - 1].steps;
  for (const d of s.devices) assert.ok(settle.some((st) => st.kind === 'attack' && st.on === d && st.attack === 'off'));
  const sc = fleetScenario(s);
  const back = parseScenario(
    fleetScenarioYaml(s, s.ops, { invariant: 9, step: sc.steps.length, message: 'test' }),
    'f.yaml',
  );
  assert.equal(
    back.steps.map((st) => [st.kind, st.on, st.kind === 'attack' ? st.attack : st.kind === 'clone' ? st.of : '']),
    sc.steps.map((st) => [st.kind, st.on, st.kind === 'attack' ? st.attack : st.kind === 'clone' ? st.of : '']),
  );
});

/** A fleet operation: `on` scans `ticket` over serial, presses OK and waits 4 s (paid, online or offline). */
const payOp = (on: string, ticket: { emission: number; block: number; number: number; prize: number }) => ({
  kind: 'pay' as const,
  steps: [
    { kind: 'scan' as const, line: 0, on, ticket, via: 'serial' as const, options: {} },
    { kind: 'press' as const, line: 0, on, key: 'OK' as const },
    { kind: 'delay' as const, line: 0, on, ms: 4000 },
  ],
});
const CLONE_2_OF_1 = {
  kind: 'clone' as const,
  steps: [{ kind: 'clone' as const, line: 0, on: 'CAISSE-2', of: 'CAISSE-1' }],
};
const REGISTRY_DOWN = {
  kind: 'registry-down' as const,
  steps: [{ kind: 'registry' as const, line: 0, up: false }],
};

test('invariant 9 on hand-made views: a ticket paid twice under one id, once before a rollback erased it, is counted, not reported', () => {
  // The rollback took the first payment off the board's ledger and outbox: nothing can report that
  // double payment to the registry (erasedDoubles); one without a rollback between is invariant 9.
  const ticket = { emission: 1, block: 1, number: 5, prize: 10 };
  const payment = { emission: 1, block: 1, number: 5, prizeEur: 10 };
  const paid = (ledger: (typeof payment)[]): DeviceView => ({
    id: 'A',
    screens: [['PAYÉ', 'Paiement enregistré', '', '10,00 €']],
    screen: [],
    ledger,
  });
  const delay: Step = { kind: 'delay', line: 0, ms: 10 };
  const registry = { holders: [{ ...ticket, device_id: 'A' }], conflicts: [], regrants: [] };
  const model = () => new FleetModel([ticket], ['A'], 150, { drawn: [], closingDate: '2100-01-01', paySlackMs: 0 });
  const m = model();
  m.observe(1, delay, [paid([payment])]);
  m.observe(2, { kind: 'rollback', line: 0, on: 'A' }, [{ id: 'A', screens: [], screen: [], ledger: [] }]);
  m.observe(3, delay, [paid([payment])]);
  m.final(4, [{ id: 'A', screens: [], screen: [] }], registry);
  assert.is(m.erasedDoubles, 1);
  // The same twice with the first still on flash: a ledger that loses a payment is caught at once (10).
  const plain = model();
  plain.observe(1, delay, [paid([payment])]);
  assert.throws(() => plain.observe(2, delay, [{ id: 'A', screens: [], screen: [], ledger: [] }]), /vanished/);
});

test("the settle's second round: a cut still armed strikes in a payment that ends during the first, and the device syncs in the second", async () => {
  // (sixth 14 of 1 Dec, written out: its index draws another schedule now.) CAISSE-1 pays the ticket
  // online; CAISSE-2, its packets all lost and a cut armed 12 flash operations ahead, is shown it and
  // OK is pressed just before the settle: its claim gives up during the settle's first round, it pays
  // offline and the cut strikes in that payment, so it is off until the second round turns it on and
  // its sync reports the conflict. With one round, a double payment the registry never heard of.
  const s = makeFleetSchedule('settle', 0, { devices: 2 });
  const ticket = { emission: 1, block: 1, number: 4244, prize: 30 };
  s.tickets = [ticket];
  s.config.offlineLimitEur = 150;
  const on = 'CAISSE-2';
  const ops = [
    s.ops[0],
    payOp('CAISSE-1', ticket),
    {
      kind: 'network-flaky' as const,
      steps: [{ kind: 'network' as const, line: 0, on, up: true, latencyMs: 20, loss: 1 }],
    },
    { kind: 'cut-at-flash-op' as const, steps: [{ kind: 'power-cut' as const, line: 0, on, afterFlashOps: 12 }] },
    { kind: 'pay' as const, steps: payOp(on, ticket).steps.slice(0, 2) },
    s.ops[s.ops.length - 1],
  ];
  const r = await runFleetOps(s, ops);
  assert.is(r.violation, undefined, JSON.stringify(r.violation));
  assert.equal(r.payments, { online: 1, offline: 0, unknown: 1 }, 'the cut struck in the payment, PAYÉ never shown');
  const rep = await (await fleetRegistry()).report();
  assert.equal(
    (rep.conflicts as { device_id: string }[]).map((c) => c.device_id),
    [on],
  );
});

test('a clone paying offline a ticket its original paid offline: the registry reports it (regrant paid-twice), invariant 9 holds', async () => {
  const s = makeFleetSchedule('clone', 0, { devices: 2, attacker: true });
  const ticket = { emission: 1, block: 1, number: 4242, prize: 30 };
  s.tickets = [ticket];
  s.config.offlineLimitEur = 150;
  const pay = (on: string) => payOp(on, ticket);
  const ops = [s.ops[0], CLONE_2_OF_1, REGISTRY_DOWN, pay('CAISSE-1'), pay('CAISSE-2'), s.ops[s.ops.length - 1]];
  const r = await runFleetOps(s, ops);
  assert.is(r.violation, undefined, JSON.stringify(r.violation));
  assert.is(r.payments.offline, 2);
  assert.is(r.checks[9], 1);
});

test('a clone and its original both paying offline a ticket a third device holds (schedule 205): two conflicts under the one id, invariant 9 holds', async () => {
  const s = makeFleetSchedule('clone', 0, { devices: 3, attacker: true });
  const ticket = { emission: 1, block: 1, number: 4243, prize: 30 };
  s.tickets = [ticket];
  s.config.offlineLimitEur = 150;
  const pay = (on: string) => payOp(on, ticket);
  const ops = [
    s.ops[0],
    CLONE_2_OF_1,
    pay('CAISSE-3'),
    REGISTRY_DOWN,
    pay('CAISSE-1'),
    pay('CAISSE-2'),
    s.ops[s.ops.length - 1],
  ];
  const r = await runFleetOps(s, ops);
  assert.is(r.violation, undefined, JSON.stringify(r.violation));
  assert.is(r.payments.online, 1);
  assert.is(r.payments.offline, 2);
  assert.is(r.checks[9], 1);
  const rep = await (await fleetRegistry()).report();
  assert.equal(
    (rep.conflicts as { device_id: string }[]).map((c) => c.device_id),
    ['CAISSE-1', 'CAISSE-1'],
  );
});

test('seeded smoke with the attacker: fleet schedules with answers forged, rollbacks and clones break no invariant', async () => {
  const s = await exploreFleet({ count: SMOKE, seed: 'a2', jobs: 1, maxOps: 25, attacker: true, keepRegistry });
  assert.is(s.violations, 0, JSON.stringify(s.failures));
  assert.is(s.checks[9], SMOKE);
});

test.run();
