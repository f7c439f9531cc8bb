// saphir sim --scenario FILE…: plays scenario files (hw-sim/scenarios/*.yaml), each checked before any runs.
import { readFileSync, existsSync, statSync } from 'node:fs';
import { UsageError } from '../../args.ts';
import { KeyFileError } from '../../../tools/key-files.ts';
import type { Lang } from '../../../src/i18n.ts';
import {
  parseScenario,
  ScenarioError,
  needsRegistry,
  type Scenario,
  MAX_SCENARIO_BYTES,
} from '../../../hw-sim/scenario.ts';
import { runScenario, simulatorFor } from '../../../hw-sim/runner.ts';
import { ensureBundle } from '../../../hw-sim/sim.ts';
import { NorFlash } from '../../../hw-sim/nor-flash.ts';
import { T, reportText, scenarioErrorText, stepLine } from '../../../hw-sim/present.ts';
import { messages } from '../../../src/messages/index.ts';
import { buildNotice } from '../../build-notice.ts';
import { needXs, openRegistry, type KeyOptions } from './common.ts';

export async function scenarios(
  files: string[],
  o: {
    lang: Lang;
    quiet: boolean;
    screenshots?: string;
    variant?: 'quickjs' | 'quickjs-ng' | 'xs';
    flash?: string;
    registry?: string;
  } & KeyOptions,
): Promise<number> {
  const t = T[o.lang];
  const out = (s: string) => process.stdout.write(s + '\n');
  // Every file is checked before any runs.
  const parsed: Scenario[] = [];
  let bad = false;
  for (const f of files) {
    if (!existsSync(f) || statSync(f).isDirectory()) {
      process.stderr.write(messages(o.lang).sim.noFile(f) + '\n');
      bad = true;
      continue;
    }
    // Read whole and parsed in memory: a huge file would take gigabytes (a 60 MB one took 3.7 GB).
    if (statSync(f).size > MAX_SCENARIO_BYTES) {
      process.stderr.write(messages(o.lang).sim.scenarioTooLarge(f, MAX_SCENARIO_BYTES) + '\n');
      bad = true;
      continue;
    }
    try {
      parsed.push(parseScenario(readFileSync(f, 'utf8'), f));
    } catch (e) {
      if (!(e instanceof ScenarioError)) throw e;
      process.stderr.write(`${t.invalid}\n${scenarioErrorText(e, o.lang)}\n`);
      bad = true;
    }
  }
  if (bad) return 2;
  if (parsed.some((sc) => (o.variant ?? sc.variant) === 'xs')) needXs();
  const bundle = ensureBundle((why) => process.stderr.write(buildNotice(o.lang, why) + '\n'));
  const want = o.registry ?? (parsed.some(needsRegistry) ? 'embedded' : undefined);
  const registry = want ? await openRegistry(want, o.lang) : undefined;
  try {
    return await playAll();
  } catch (e) {
    // A scenario's key file that cannot serve is the same usage error as the option's.
    throw e instanceof KeyFileError ? new UsageError(e.say) : e;
  } finally {
    await registry?.close();
  }

  async function playAll(): Promise<number> {
    let passed = 0;
    let used = false;
    for (const sc of parsed) {
      out(`${sc.name}  (${sc.file})`);
      // Each scenario on its own: an embedded registry emptied between them, and none for a scenario
      // that needs none (unless --registry named one for all).
      const reg = o.registry || needsRegistry(sc) ? registry : undefined;
      if (reg && used) await reg.fresh();
      used ||= reg !== undefined;
      // With --flash, each scenario starts from the saved chip and leaves its state there.
      const chip = o.flash ? NorFlash.load(o.flash) : undefined;
      const sim = simulatorFor(
        sc,
        {
          bundle,
          chip,
          variant: o.variant,
          firmwareKey: o.firmwareKey,
          techKey: o.techKey,
          deviceSeedHex: o.deviceSeedHex,
          registryKey: o.registryKey,
          operatorKey: o.operatorKey,
          registry: reg?.reg,
        },
        sc.devices?.[0] ?? sc.device?.id,
      );
      const r = await runScenario(sc, {
        sim,
        bundle,
        registry: reg?.reg,
        lang: o.lang,
        screenshotDir: o.screenshots,
        onStep: (s) => {
          if (!o.quiet || !s.ok) out(stepLine(s, o.lang));
        },
      });
      sim.dispose();
      if (o.flash && chip) chip.save(o.flash);
      out(reportText(r, o.lang));
      if (r.ok) passed++;
    }
    out(t.total(passed, parsed.length));
    return passed === parsed.length ? 0 : 1;
  }
}
