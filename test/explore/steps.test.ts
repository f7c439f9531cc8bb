// The scenario steps the explorer writes parse back to what it ran, and do what they say on the
// simulated device; `saphir sim --explore` replays one schedule and prints its JSON summary.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { saphir } from '../cli/run-cli.ts';
import { parseScenario, ScenarioError, type Step } from '../../hw-sim/scenario.ts';
import { runScenario, simulatorFor } from '../../hw-sim/runner.ts';
import { stringify } from 'yaml';
import { Simulator } from '../../hw-sim/sim.ts';
import { LAYOUT } from '../../rom/layout.ts';
import { makeSchedule, scenarioYaml } from '../../hw-sim/explore/index.ts';
import { toScenario } from '../../hw-sim/explore/schedule.ts';
import { resolveCode, runOps, stepYaml } from '../../hw-sim/explore/explore.ts';
import { Model, type BootView } from '../../hw-sim/explore/model.ts';
import { LONG, longTest } from '../helpers.ts';

test('explorer steps parse, and a bad one is refused with its line', () => {
  const sc = parseScenario(
    `name: t
steps:
  - provision
  - boot
  - update: { image: next, after-flash-ops: 7 }
  - ensure-on
  - flip-bit: 12
  - lose-sector: 3
  - expect-image: { slot: B, confirmed: true }
  - scan: { ticket: { emission: 1, number: 4, prize: 10 }, press: { key: OK, at: 5ms } }
`,
    't.yaml',
  );
  assert.equal(
    sc.steps.map((s) => s.kind),
    ['provision', 'boot', 'update', 'ensure-on', 'flip-bit', 'lose-sector', 'expect-image', 'scan'],
  );
  assert.equal(sc.steps[2], { kind: 'update', line: 5, image: 'next', afterFlashOps: 7 });
  assert.equal((sc.steps[7] as { during?: unknown }).during, { key: 'OK', atMs: 5 });
  try {
    parseScenario('name: t\nsteps:\n  - boot\n  - update: { image: newest }\n  - expect-image: {}\n', 'bad.yaml');
    assert.unreachable('accepted');
  } catch (e) {
    assert.instance(e, ScenarioError);
    assert.equal(
      (e as ScenarioError).problems.map((p) => p.line),
      [4, 5],
    );
  }
});

test('a written schedule parses back to the steps that ran', () => {
  for (const i of [0, 1, 2, 3]) {
    const s = makeSchedule('yaml', i, { gates: ['ledger-damage', 'clock-back'] });
    const { scenario } = toScenario(s, s.ops, resolveCode);
    const yaml = scenarioYaml(s, s.ops, { invariant: 4, step: scenario.steps.length, message: 'x' });
    const back = parseScenario(yaml, 'x.yaml');
    assert.is(back.steps.length, scenario.steps.length);
    const strip = (x: object) => JSON.stringify({ ...x, line: 0 }, (k, v) => (v instanceof RegExp ? v.source : v));
    back.steps.forEach((st, k) => assert.is(strip(st), strip(scenario.steps[k]), `schedule ${i} step ${k + 1}`));
    assert.is(back.clockMs, s.clockMs);
    assert.equal(back.config?.emissions, s.config.emissions);
  }
});

test('flip-bit and lose-sector damage the ledger partition only, where it holds data', async () => {
  const sim = new Simulator({ seed: 1 });
  assert.is(sim.damageLedger('flip-bit', 5), undefined, 'nothing to damage on an empty ledger');
  sim.chip.bytes[LAYOUT.ledger.offset + 4096 * 3 + 10] = 0x0f;
  const at = sim.damageLedger('flip-bit', 13)!;
  assert.is(at, LAYOUT.ledger.offset + 4096 * 3 + 10);
  assert.is(sim.chip.bytes[at], 0x0f ^ (1 << 5));
  assert.is(sim.damageLedger('lose-sector', 99), LAYOUT.ledger.offset + 4096 * 3);
  assert.is(sim.chip.bytes[at], 0xff);
});

test('an update cut at any of its first flash operations leaves the previous image booting', async () => {
  // (npm test: the 2nd and the 300th; the long tier, explore/steps.long.ts, the 1st and 40th too)
  for (const cut of LONG ? [1, 2, 40, 300] : [2, 300]) {
    const sc = parseScenario(
      `name: cut update
steps:
  - provision
  - boot
  - update: { image: next, after-flash-ops: ${cut} }
  - ensure-on
  - expect-image: { slot: A, confirmed: true }
  - expect-display: { contains: PRÊT, line: 2 }
  - update: { image: next }
  - reboot
  - expect-image: { slot: B, confirmed: true }
  - update: { image: older }
  - reboot
  - expect-image: { slot: B }
`,
      'u.yaml',
    );
    const r = await runScenario(sc);
    assert.ok(r.ok, `cut ${cut}: ${JSON.stringify(r.steps.find((s) => !s.ok))}`);
  }
});

test('update over the service port: parsed, refused when malformed, written back as it was read', () => {
  const sc = parseScenario(
    `name: t
steps:
  - provision
  - boot
  - update: { image: next, via: service, after-flash-ops: 120 }
  - reboot
  - update: { image: next, via: service, resume: true }
  - update: { image: older, via: direct }
`,
    't.yaml',
  );
  assert.equal(sc.steps[2], { kind: 'update', line: 5, image: 'next', afterFlashOps: 120, via: 'service' });
  assert.equal(sc.steps[4], { kind: 'update', line: 7, image: 'next', via: 'service', resume: true });
  assert.equal(sc.steps[5], { kind: 'update', line: 8, image: 'older' }, 'direct is the default form');
  for (const st of sc.steps) {
    const back = parseScenario(stringify({ name: 'b', steps: [stepYaml(st)] }), 'b.yaml').steps[0];
    assert.equal({ ...back, line: 0 }, { ...st, line: 0 });
  }
  try {
    parseScenario(
      'name: t\nsteps:\n  - boot\n  - update: { image: next, resume: true }\n  - update: { image: next, via: usb }\n  - update: { image: next, via: service, resume: 1 }\n',
      'bad.yaml',
    );
    assert.unreachable('accepted');
  } catch (e) {
    assert.instance(e, ScenarioError);
    assert.equal(
      (e as ScenarioError).problems.map((p) => p.line),
      [4, 5, 6],
    );
  }
});

test('an update over the service port cut mid-transfer, rebooted, then resumed: installed, started on trial, confirmed', async () => {
  const sc = parseScenario(
    `name: service update cut and resumed
steps:
  - provision
  - boot
  - update: { image: next, via: service, after-flash-ops: 200 }
  - reboot
  - expect-image: { slot: A, confirmed: true }
  - update: { image: next, via: service, resume: true }
  - reboot
  - expect-image: { slot: B, confirmed: true }
  - expect-display: { contains: PRÊT, line: 2 }
  - update: { image: forged, via: service }
  - update: { image: older, via: service }
  - reboot
  - expect-image: { slot: B, confirmed: true }
`,
    's.yaml',
  );
  const seen: unknown[] = [];
  const sim = simulatorFor(sc, { variant: 'v8' });
  const r = await runScenario(sc, {
    sim,
    onStep: (st) => {
      if (st.text.startsWith('update')) seen.push(sim.lastUpdate && { ...sim.lastUpdate, detail: undefined });
    },
  });
  sim.dispose();
  assert.ok(r.ok, JSON.stringify(r.steps.find((s) => !s.ok)));
  const [cut, resumed, forged, older] = seen as Record<string, unknown>[];
  assert.is(cut.reason, 'power-cut');
  assert.is(cut.stage, 'write');
  assert.is(resumed.ok, true);
  assert.ok((resumed.resumedFrom as number) > 0, 'the device kept the chunks programmed before the cut');
  assert.ok((resumed.sent as number) < sim.updateImage('next').length, 'only the missing chunks were sent');
  assert.equal([forged.ok, forged.reason, forged.stage], [false, 'signature', 'begin']);
  assert.equal([older.ok, older.reason, older.stage], [false, 'rollback', 'begin']);
});

test('the explorer draws updates over the service port most of the time, cut at random points, and resumes', () => {
  const n: Record<string, number> = {};
  const add = (k: string) => (n[k] = (n[k] ?? 0) + 1);
  const cuts: number[] = [];
  for (let i = 0; i < 300; i++) {
    // The menu's weights: this is about what one update operation draws, not how many there are.
    const s = makeSchedule('svc', i, { swarm: false });
    assert.equal(
      JSON.stringify(makeSchedule('svc', i, { swarm: false })),
      JSON.stringify(s),
      'drawn from (seed, index) alone',
    );
    for (const op of s.ops) {
      if (op.kind !== 'update') continue;
      add('ops');
      const ups = op.steps.filter((st) => st.kind === 'update');
      for (const st of ups) {
        add(st.via ?? 'direct');
        if (st.via === 'service' && !st.resume && st.image !== 'forged') add('first');
        if (st.via === 'service' && st.afterFlashOps && !st.resume) cuts.push(st.afterFlashOps);
        if (st.via === 'service' && st.image === 'forged')
          assert.ok(!st.afterFlashOps && !st.resume, 'a forged image is refused before any flash operation');
        if (st.resume) {
          add('resume');
          // A resume comes after the cut upload and a reboot, in the same operation.
          const at = op.steps.indexOf(st);
          assert.equal(
            op.steps.slice(at - 2, at).map((x) => x.kind),
            ['update', 'reboot'],
          );
          assert.ok(ups[0].afterFlashOps && ups[0].image === st.image);
        }
      }
    }
  }
  assert.ok(n.ops > 100, `${n.ops} update operations`);
  assert.ok(n.service > 3 * n.direct && n.direct > 0, JSON.stringify(n));
  assert.ok(n.resume > 0.45 * cuts.length && n.resume < 0.75 * cuts.length, `${JSON.stringify(n)}, ${cuts.length} cut`);
  // Cuts all over the upload (BEGIN, the chunks, near FINISH).
  assert.ok(cuts.length > 0.4 * n.first && cuts.length < 0.6 * n.first, `${cuts.length} cut of ${n.first}`);
  assert.ok(cuts.some((c) => c <= 20) && cuts.some((c) => c > 250 && c < 450) && cuts.some((c) => c >= 480));
});

test('an explored schedule with a service update cut and resumed: no violation, counted', async () => {
  const base = makeSchedule('svc', 0);
  const upd = (steps: Step[]) => ({
    kind: 'update' as const,
    steps,
    meta: steps.map(() => ({ op: 'update' as const })),
  });
  const s = {
    ...base,
    images: true,
    ops: [
      {
        kind: 'boot' as const,
        steps: [
          { kind: 'provision' as const, line: 0 },
          { kind: 'boot' as const, line: 0 },
        ],
        meta: [{ op: 'boot' as const }, { op: 'boot' as const }],
      },
      upd([
        { kind: 'ensure-on', line: 0 },
        { kind: 'update', line: 0, image: 'next', via: 'service', afterFlashOps: 333 },
        { kind: 'reboot', line: 0 },
        { kind: 'update', line: 0, image: 'next', via: 'service', resume: true },
        { kind: 'reboot', line: 0 },
      ]),
      upd([
        { kind: 'ensure-on', line: 0 },
        { kind: 'update', line: 0, image: 'forged', via: 'service' },
        { kind: 'update', line: 0, image: 'older', via: 'service', afterFlashOps: 1 },
      ]),
      base.ops[base.ops.length - 1],
    ],
  };
  const r = await runOps(s, s.ops, undefined, 'v8');
  assert.is(r.violation, undefined, JSON.stringify(r.violation));
  assert.equal(r.updates, {
    service: 4,
    'service-cut': 1,
    'service-installed': 1,
    'service-resumed': 1,
    'service-resumed-installed': 1,
    'service-refused': 2,
  });
  assert.ok(r.checks[5] >= 7, 'invariant 5 checked at each boot and update step');
});

test("model: an installed update's trial is spent by a cut in its trial boot or in the bootloader starting it, and cleared by a second update cut short; the revert is no violation", () => {
  const s = { ...makeSchedule('trial', 0), images: true };
  const view = (slot: 'A' | 'B', update?: BootView['update']): BootView => ({
    minCounter: 1,
    validCounters: [1, 2],
    bootMode: `image slot ${slot} v${slot === 'A' ? '0.1.0' : '0.2.0'}`,
    runningSlot: slot === 'A' ? 0 : 1,
    confirmedSlot: 0,
    pendingConfirm: false,
    update,
  });
  const ready = [['', s.config.lang === 'fr' ? 'PRÊT' : 'READY', '', '']];
  const at = (m: Model, index: number, power: string[], b: BootView, step: Step) =>
    m.observe({
      step,
      meta: { op: 'update' },
      index,
      screens: power.length ? ready : [],
      power,
      logs: [],
      on: true,
      clockMs: s.clockMs,
      boot: b,
    });
  const installed = (m: Model) =>
    at(m, 1, [], view('A', { image: 'next', counter: 2, ok: true, slot: 1 }), {
      kind: 'update',
      line: 1,
      image: 'next',
      via: 'service',
    });
  const ensureOn: Step = { kind: 'ensure-on', line: 2 };
  const fresh = () => new Model(s, { heapLimit: 1 << 30, haltAllowed: false });
  // svc2#343: the trial boot started slot B, a cut before the firmware confirmed, the next boot reverted to A.
  const m = fresh();
  installed(m);
  at(
    m,
    2,
    ['boot (image slot B v0.2.0)', 'off (power cut during a flash operation)', 'boot (image slot A v0.1.0)'],
    view('A'),
    ensureOn,
  );
  // The first boot after the install starting the old image is still caught.
  const bad = fresh();
  installed(bad);
  assert.throws(
    () => at(bad, 2, ['boot (image slot A v0.1.0)'], view('A'), ensureOn),
    /did not start at the next boot/,
  );
  // A second update cut short clears the first one's trial (the device writes over that slot): the next
  // boot starts the confirmed image.
  const again = fresh();
  installed(again);
  at(again, 2, [], view('A', { image: 'next', counter: 2, ok: false, reason: 'power-cut', slot: 1 }), {
    kind: 'update',
    line: 2,
    image: 'next',
    via: 'service',
  });
  at(again, 3, ['boot (image slot A v0.1.0)'], view('A'), ensureOn);
  // teeth#27 (1 Dec): the power cut while the bootloader wrote "trial started", whole, so the next boot
  // reverted to A, as MCUboot does: either slot may start next.
  for (const power of [
    ['off (power cut in the bootloader)', 'boot (image slot A v0.1.0)'],
    ['off (power cut in the bootloader)', 'boot (image slot B v0.2.0)'],
  ]) {
    const cutThere = fresh();
    installed(cutThere);
    at(cutThere, 2, power, view(power[1].includes('slot A') ? 'A' : 'B'), ensureOn);
  }
});

test('a power cut while the bootloader writes its state leaves the device off; the next boot starts the update', async () => {
  const sc = parseScenario(
    `name: cut in the bootloader
steps:
  - provision
  - boot
  - update: { image: next }
  - power-cut: { after-flash-ops: 1 }
  - reboot
  - ensure-on
  - expect-image: { slot: B, confirmed: true }
  - expect-display: { contains: PRÊT, line: 2 }
`,
    'b.yaml',
  );
  const r = await runScenario(sc);
  assert.ok(r.ok, JSON.stringify(r.steps.find((s) => !s.ok)));
});

test('a scan cut short by a power cut is no scenario error; ensure-on boots again after a boot the cut struck', async () => {
  const sc = parseScenario(
    `name: cut during a scan
config:
  inputs: [pos, serial]
steps:
  - provision
  - boot
  - scan: { ticket: { emission: 1, number: 5, prize: 10 } }
  - power-cut: { after-flash-ops: 1 }
  - scan: { ticket: { emission: 1, number: 6, prize: 10 }, via: serial, baud: 9600, press: { key: OK, at: 5ms } }
  - ensure-on
  - expect-ledger: { count: 0 }
  - expect-display: { contains: PRÊT, line: 2 }
  - update: { image: next }
  - power-cut: { after-flash-ops: 1 }
  - power-cut
  - ensure-on
  - expect-display: { contains: PRÊT, line: 2 }
`,
    'c.yaml',
  );
  const r = await runScenario(sc);
  assert.ok(r.ok, JSON.stringify(r.steps.find((s) => !s.ok)));
});

longTest('saphir sim --explore 1 --seed S --index I --json: one schedule, its counts', () => {
  const r = saphir(['sim', '--explore', '1', '--seed', 'cli', '--index', '3', '--json', '--jobs', '1']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stderr, '', 'with --json, nothing on stderr');
  const s = JSON.parse(r.stdout);
  assert.is(s.schedules, 1);
  assert.is(s.violations, 0);
  assert.ok(s.operations >= 20);
  assert.ok(s.checks['1'] > 0 && s.checks['3'] > 0);
  const bad = saphir(['sim', '--explore', '2', '--index', '3']);
  assert.is(bad.code, 2, 'two schedules with --index is a usage error');
  const faults = saphir(['sim', '--explore', '1', '--faults', 'meteor']);
  assert.is(faults.code, 2);
  assert.match(faults.stderr, /ledger-damage/);
});

longTest('saphir sim --explore off a terminal: the seed in its first line, then a progress line each tenth', () => {
  const r = saphir(['sim', '--explore', '3', '--seed', 'cli', '--jobs', '1', '--lang', 'en']);
  assert.is(r.code, 0, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.is(lines[0], 'Exploring 3 schedule(s), seed cli, on one thread.');
  assert.equal(
    lines.slice(1).map((l) => /^(\d)\/3 schedules, [\d.]+\/s, 0 violation\(s\)$/.exec(l)?.[1]),
    ['1', '2', '3'],
    r.stderr,
  );
  assert.match(r.stdout, /^3 schedules \(seed cli\)/);
});

test('model: OK pressed while a fast scanner delivers pays that ticket, which is then DÉJÀ PAYÉ', async () => {
  const { runOps } = await import('../../hw-sim/explore/explore.ts');
  const base = makeSchedule('model', 0);
  const ticket = { emission: 1, block: 2, number: 77, prize: 5 };
  const scan = (during?: { key: 'OK'; atMs: number }, interval?: number) => ({
    kind: 'scan-ticket' as const,
    steps: [
      {
        kind: 'scan' as const,
        line: 0,
        via: 'hid-pos' as const,
        options: (interval ? { interval } : {}) as Record<string, number>,
        ticket,
        ...(during ? { during } : {}),
      },
    ],
    meta: [{ op: 'scan-ticket' as const, cls: 'genuine' as const }],
  });
  const s = {
    ...base,
    images: false,
    config: { ...base.config, payoutLimitEur: 300, inputs: ['pos' as const] },
    ops: [
      { kind: 'boot' as const, steps: [{ kind: 'boot' as const, line: 0 }], meta: [{ op: 'boot' as const }] },
      scan({ key: 'OK', atMs: 13 }),
      scan(),
      base.ops[base.ops.length - 1],
    ],
  };
  const r = await runOps(s, s.ops, undefined);
  assert.is(r.violation, undefined, JSON.stringify(r.violation));
  assert.is(r.steps, 4);
  // A slow scan of the same ticket while it is offered: the OK during it pays the offer, then its verdict is DÉJÀ PAYÉ.
  const s2 = { ...s, ops: [s.ops[0], scan({ key: 'OK', atMs: 5 }, 6), scan({ key: 'OK', atMs: 4 }, 15), s.ops[3]] };
  const r2 = await runOps(s2, s2.ops, undefined);
  assert.is(r2.violation, undefined, JSON.stringify(r2.violation));
});

test.run();
