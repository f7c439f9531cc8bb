// saphir demo (npm start): builds the firmware if missing or stale (and says so), boots it in the simulator and plays
// hw-sim/scenarios/demo.yaml, drawing the display each time it changes, then a summary. Works without
// a TTY (CI, pipes): the output is plain lines.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Failure, UsageError, parseCommand } from '../args.ts';
import { formatEur, type Lang } from '../../src/i18n.ts';
import { messages } from '../../src/messages/index.ts';
import { MAX_SCENARIO_BYTES, parseScenario, ScenarioError } from '../../hw-sim/scenario.ts';
import { runScenario, simulatorFor } from '../../hw-sim/runner.ts';
import { ensureBundle } from '../../hw-sim/sim.ts';
import { ROOT } from '../../tools/paths.ts';
import { displayFrame, indent, reportText, scenarioErrorText, stepLine } from '../../hw-sim/present.ts';
import { buildNotice } from '../build-notice.ts';
import { stdoutGone } from '../stdout.ts';
import '../../hw-sim/node-host.ts';

const HELP = (lang: Lang) => messages(lang).help.demo;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    scenario: { type: 'string' },
    quiet: { type: 'boolean' },
  });
  if (!parsed) return 0;
  const { values, lang } = parsed;
  const w = messages(lang).demo;
  const out = (s: string) => process.stdout.write(s + '\n');
  const file = values.scenario ?? join(ROOT, 'hw-sim', 'scenarios', 'demo.yaml');
  // The same checks as saphir sim --scenario: a missing file, a folder, a huge file.
  if (!existsSync(file) || statSync(file).isDirectory()) throw new UsageError((m) => m.sim.noFile(file));
  if (statSync(file).size > MAX_SCENARIO_BYTES)
    throw new UsageError((m) => m.sim.scenarioTooLarge(file, MAX_SCENARIO_BYTES));
  let sc;
  try {
    sc = parseScenario(readFileSync(file, 'utf8'), file);
  } catch (e) {
    if (e instanceof ScenarioError)
      throw new Failure(() => `${messages(lang).scenario.invalid}\n${scenarioErrorText(e, lang)}`);
    throw e;
  }
  out(w.title);
  const bundle = ensureBundle((why) => out(buildNotice(lang, why)));
  const quiet = !!values.quiet;
  // A frame is printed once the step that changed it is over (or the display changes again), so
  // that it shows the LED the firmware set just after the text.
  let lastScreen = '';
  let pending = '';
  const flush = () => {
    if (!pending) return;
    const body = pending.split('\n').slice(1).join('\n');
    if (body !== lastScreen) out(indent(pending, 6));
    lastScreen = body;
    pending = '';
  };
  const sim = simulatorFor(sc, { bundle });
  const report = await runScenario(sc, {
    sim,
    bundle,
    lang,
    // `saphir demo | head`: once the reader has gone, the rest would show nobody anything. A write's EPIPE
    // comes on a later turn of the event loop, which the simulator's virtual time never gives: one here.
    stopWhen: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return stdoutGone();
    },
    events: {
      display: () => {
        if (quiet) return;
        flush();
        pending = displayFrame(sim);
      },
      led: () => {
        if (pending) pending = displayFrame(sim);
      },
    },
    onStep: (s) => {
      if (!quiet) flush();
      if (!quiet || !s.ok) out(stepLine(s, lang));
    },
  });
  if (report.stopped) {
    sim.dispose();
    return 0;
  }
  const beeps = sim.beepLog;
  const count = (k: string) => beeps.filter((b) => b.kind === k).length;
  const ledger = sim.ledger();
  const total = formatEur(
    ledger.reduce((a, p) => a + p.prizeEur, 0),
    lang,
  );
  out('');
  out(w.summary(values.scenario === undefined ? w.name : sc.name));
  out(reportText(report, lang));
  out(w.scans(report.scans, w.outcomes(count('win'), count('lose'), count('refused'))));
  out(`  ${w.paid(ledger.length, total)}`);
  out(`  ${w.firmware(w.mode(sim.bootMode), sim.imageHash)}`);
  out(report.ok ? w.ok : w.failed);
  sim.dispose();
  return report.ok ? 0 : 1;
}
