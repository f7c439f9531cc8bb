// Scenario files are checked whole before anything runs: every problem names its line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScenario, parseDuration, parseInstant, ScenarioError } from '../../hw-sim/scenario.ts';
import fc from 'fast-check';
import { ROOT } from '../helpers.ts';
import { Simulator } from '../../hw-sim/sim.ts';
import { runScenario, simulatorFor } from '../../hw-sim/runner.ts';

function problems(text: string): { line: number; message: string }[] {
  try {
    parseScenario(text, 'bad.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e.problems;
    throw e;
  }
  assert.unreachable('the scenario was accepted');
  return [];
}

const HEAD = 'name: t\nsteps:\n  - boot\n';

test('an emission closing on a date that does not exist is refused at its line', () => {
  const p = problems(`${HEAD}config:\n  emissions:\n    - { emission: 3, closes: 2027-02-30 }\n`);
  assert.equal(
    p.map((x) => x.line),
    [6],
  );
  assert.match(p[0].message, /closes must be a date YYYY-MM-DD/);
});

test("config limits are the firmware's: what the checker passes, Simulator.configure takes", async () => {
  const p = problems(
    `${HEAD}config:\n  verdict-ms: 200\n  pay-wait-ms: 999\n  device-id: ABCDEFGHIJKLMNOPQ\n  emissions:\n    - { emission: 70000, closes: 2027-02-27 }\n`,
  );
  assert.equal(
    p.map((x) => x.line),
    [5, 6, 7, 9],
  );
  assert.match(p[0].message, /verdict-ms must be an integer from 500 to 600000/);
  assert.match(p[1].message, /pay-wait-ms must be an integer from 1000 to 3600000/);
  assert.match(p[2].message, /device-id must be printable ASCII of at most 16 characters/);
  assert.match(p[3].message, /emission must be an integer from 0 to 65535/);
  // At the limits the firmware allows (the checker once stopped compact-free-sectors at 256).
  const sc = parseScenario(
    `${HEAD}config:\n  verdict-ms: 500\n  pay-wait-ms: 3600000\n  compact-free-sectors: 65535\n  device-id: ABCDEFGHIJKLMNOP\n`,
    't.yaml',
  );
  new Simulator({ bundle: '' }).configure(sc.config!);
});

test('every shipped scenario is valid', () => {
  const dir = join(ROOT, 'hw-sim', 'scenarios');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  assert.ok(files.includes('demo.yaml'));
  for (const f of files) {
    const sc = parseScenario(readFileSync(join(dir, f), 'utf8'), f);
    assert.ok(sc.steps.length > 0, f);
  }
});

test('a valid scenario: steps, config, options, durations', () => {
  const sc = parseScenario(
    `name: ok
config:
  payout-limit: 500
  language: en
  clock: 2027-01-15T10:00:00+01:00
  emissions:
    - { emission: 3, closes: 2027-02-27 }
steps:
  - boot
  - delay: 250ms
  - set-clock: 2027-03-01T00:00:00Z
  - scan: { ticket: { emission: 3, block: 1, number: 7, prize: 150 }, via: hid-keyboard, layout: fr, delay: 4 }
  - scan: { code: 'SPH1:ABC', via: serial, baud: 115200, terminator: crlf, aim: true, noise: 0.1 }
  - scan: { ticket: { emission: 3, number: 8, prize: 0, key: other }, via: camera, blur: 0.2 }
  - press: OK
  - press: 7
  - expect-display: { contains: WINNER, line: 1, within: 2s }
  - expect-display: { matches: "\\\\d+ €" }
  - expect-beep: win
  - expect-led: { is: green, within: 500ms }
  - expect-ledger: { count: 1, contains: { emission: 3, block: 1, number: 7 } }
  - power-cut: { after-flash-ops: 2 }
  - power-cut
  - reboot
  - screenshot: out/x.png
`,
    'ok.yaml',
  );
  assert.is(sc.steps.length, 17);
  assert.equal(sc.config, { payoutLimitEur: 500, lang: 'en', emissions: [{ emission: 3, closingDate: '2027-02-27' }] });
  assert.is(sc.clockMs, Date.UTC(2027, 0, 15, 9));
  const scan = sc.steps[3];
  assert.equal(scan.kind === 'scan' && [scan.via, scan.options, scan.ticket], [
    'hid-keyboard',
    { layout: 'fr', delay: 4 },
    { emission: 3, block: 1, number: 7, prize: 150, key: undefined },
  ]);
  const forged = sc.steps[5];
  assert.is(forged.kind === 'scan' && forged.ticket?.key, 'other');
  assert.is(forged.kind === 'scan' && forged.ticket?.block, 1);
  const disp = sc.steps[8];
  assert.equal(disp.kind === 'expect-display' && [disp.contains, disp.row, disp.withinMs, disp.line], [
    'WINNER',
    1,
    2000,
    17,
  ]);
  assert.equal(sc.steps[13], { kind: 'power-cut', line: 22, afterFlashOps: 2 });
});

test('config: compaction threshold and the inputs the firmware opens', () => {
  const sc = parseScenario(
    'name: t\nconfig:\n  compact-free-sectors: 8\n  inputs: [serial, pos]\nsteps:\n  - boot\n',
    't.yaml',
  );
  assert.equal(sc.config, { compactFreeSectors: 8, inputs: ['serial', 'pos'] });
  const p = problems('name: t\nconfig:\n  inputs: [serial, usb]\nsteps:\n  - boot\n');
  assert.equal(
    p.map((x) => x.line),
    [3],
  );
  assert.match(p[0].message, /usb/);
});

test('device: ledger-sectors cuts the ledger partition the firmware sees (the explorer replays on it)', async () => {
  const sc = parseScenario(
    `${HEAD}  - scan: { ticket: { emission: 1, block: 1, number: 5, prize: 10 } }\n  - press: OK\ndevice:\n  ledger-sectors: 8\n`,
    'cut.yaml',
  );
  assert.is(sc.device?.ledgerSectors, 8);
  const r = await runScenario(sc);
  assert.ok(r.ok, r.steps.find((x) => !x.ok)?.problem);
  const sim = simulatorFor(sc);
  assert.is(sim.ledgerSectors, 8);
  sim.dispose();
  assert.match(problems(`${HEAD}device:\n  ledger-sectors: 7\n`)[0].message, /ledger-sectors/);
  assert.match(problems(`${HEAD}device:\n  ledger-sectors: 515\n`)[0].message, /ledger-sectors/);
});

test('an unknown step names its line', () => {
  const p = problems(`${HEAD}  - delay: 1s\n  - scna: { code: X }\n`);
  assert.is(p.length, 1);
  assert.is(p[0].line, 5);
  assert.match(p[0].message, /unknown step 'scna'/);
});

test('an unknown field names its line, at every level', () => {
  assert.equal(
    problems(`name: t\ncolour: red\nsteps:\n  - boot\n`).map((x) => x.line),
    [2],
  );
  assert.match(
    problems(`name: t\nsteps:\n  - boot\n  - expect-display:\n      contain: PERDANT\n`)[0].message,
    /unknown field 'contain'/,
  );
  assert.is(problems(`name: t\nsteps:\n  - boot\n  - expect-display:\n      contain: PERDANT\n`)[0].line, 5);
  const p = problems(`name: t\nconfig:\n  payout: 3\nsteps:\n  - boot\n`);
  assert.equal([p[0].line, /unknown field 'payout' in config/.test(p[0].message)], [3, true]);
  const q = problems(
    `${HEAD}  - scan:\n      ticket: { emission: 1, number: 2, prize: 0 }\n      via: serial\n      layout: fr\n`,
  );
  assert.equal(
    q.map((x) => x.line),
    [7],
  );
  assert.match(q[0].message, /serial has no option 'layout'/);
});

test('every problem of a file is reported at once, in line order', () => {
  const p = problems(`name: t
steps:
  - boot
  - delay: soon
  - press: X
  - scan: { ticket: { emission: 1, number: 2, prize: 20 } }
  - expect-beep: loud
  - expect-led: blue
  - screenshot: shot.jpg
  - power-cut: { after-flash-ops: 0 }
  - scan: { via: hid-pos }
  - set-clock: tomorrow
`);
  assert.equal(
    p.map((x) => x.line),
    [4, 5, 6, 7, 8, 9, 10, 11, 12],
  );
  assert.match(p[0].message, /duration/);
  assert.match(p[1].message, /OK, C/);
  assert.match(p[2].message, /prize table/);
  assert.match(p[6].message, /after-flash-ops/);
  assert.match(p[7].message, /code or ticket/);
});

test('missing name or steps, not a map, YAML syntax errors: a line too', () => {
  assert.match(problems('steps:\n  - boot\n')[0].message, /missing 'name'/);
  assert.match(problems('name: x\n')[0].message, /missing 'steps'/);
  assert.is(problems('- boot\n')[0].line, 1);
  const syntax = problems('name: t\nsteps:\n  - boot\n  - delay: [1s\n');
  assert.ok(syntax[0].line >= 4, JSON.stringify(syntax));
  assert.match(problems('name: t\nname: u\nsteps:\n  - boot\n')[0].message, /unique|duplicate/i);
  assert.match(problems(`${HEAD}  - expect-display: { contains: A, matches: B }\n`)[0].message, /exactly one/);
  assert.match(problems(`${HEAD}  - expect-display: { matches: "(" }\n`)[0].message, /matches/);
  assert.match(problems(`${HEAD}  - boot: now\n`)[0].message, /no arguments/);
  assert.match(problems(`${HEAD}  - scan: { code: 123 }\n`)[0].message, /text/);
});

test('durations and instants', () => {
  assert.is(parseDuration('250ms'), 250);
  assert.is(parseDuration('2s'), 2000);
  assert.is(parseDuration('1.5m'), 90_000);
  assert.is(parseDuration('1h'), 3_600_000);
  assert.is(parseDuration(40), 40);
  assert.is(parseDuration('-1s'), null);
  assert.is(parseDuration('2 weeks'), null);
  assert.is(parseInstant('2027-03-31T00:00:01+02:00'), Date.UTC(2027, 2, 30, 22, 0, 1));
  assert.is(parseInstant('2027-03-31'), Date.UTC(2027, 2, 31));
  assert.is(parseInstant('2027-03-31T10:00'), null, 'a time without a zone is ambiguous');
  assert.is(parseInstant('yesterday'), null);
});

test('any text, and any cut or splice of a real scenario, is accepted or refused with lines; never a crash', () => {
  const demo = readFileSync(join(ROOT, 'hw-sim', 'scenarios', 'demo.yaml'), 'utf8');
  const check = (text: string) => {
    try {
      parseScenario(text, 'x.yaml');
    } catch (e) {
      if (!(e instanceof ScenarioError)) throw e;
      for (const p of e.problems) assert.ok(Number.isInteger(p.line) && p.line >= 1, JSON.stringify(p));
    }
  };
  fc.assert(fc.property(fc.string({ maxLength: 300 }), check), { numRuns: 150 });
  fc.assert(
    fc.property(fc.nat(demo.length), fc.nat(demo.length), fc.string({ maxLength: 20 }), (a, b, ins) => {
      const [i, j] = a < b ? [a, b] : [b, a];
      check(demo.slice(0, i) + ins + demo.slice(j));
    }),
    { numRuns: 150 },
  );
});

test.run();
