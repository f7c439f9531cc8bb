// Every shipped scenario (hw-sim/scenarios/*.yaml) runs on the real firmware bundle and passes.
// demo.yaml runs in cli.test.ts, through `saphir demo` as `npm start` runs it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { needsRegistry, parseScenario } from '../../hw-sim/scenario.ts';
import { scenarioRegistry, startEmbeddedRegistry, type EmbeddedRegistry } from '../../host/registry/embedded.ts';
import { runScenario, simulatorFor } from '../../hw-sim/runner.ts';
import type { XsDevice } from '../../hw-sim/xs-host.ts';
import { ensureBundle } from '../../hw-sim/sim.ts';
import { LONG, ROOT, longTest, requireTool } from '../helpers.ts';

const dir = join(ROOT, 'hw-sim', 'scenarios');
const bundle = ensureBundle();
const shots = mkdtempSync(join(tmpdir(), 'saphir-shots-'));
// Fleet scenarios share one embedded registry, started when the first needs it.
// One per engine: a ticket claimed in one engine's run is (rightly) refused in the other's.
const registries = new Map<string, Promise<EmbeddedRegistry>>();
const registryFor = (variant: string) => {
  let r = registries.get(variant);
  if (!r) registries.set(variant, (r = startEmbeddedRegistry()));
  return r;
};
test.after(async () => {
  for (const r of registries.values()) await (await r).close();
  rmSync(shots, { recursive: true, force: true });
});

// Each on QuickJS (the default engine), and in npm run test:long (scenarios.long.ts) on Moddable XS too
// (docs/firmware.md, "Engines"; npm test boots XS once, below) and fleet-campaign.yaml, whose promises
// fleet/campaign.test.ts keeps in process.
const withXs = requireTool('xsnap');
const files = readdirSync(dir)
  .filter((x) => x.endsWith('.yaml') && x !== 'demo.yaml')
  .sort();
const LONG_ONLY = new Set(['fleet-campaign.yaml']);
for (const f of files)
  for (const variant of LONG ? (['quickjs', 'xs'] as const) : (['quickjs'] as const))
    (variant === 'xs' ? withXs : LONG_ONLY.has(f) ? longTest : test)(
      `scenario ${f}${variant === 'xs' ? ' on XS' : ''}`,
      async () => {
        const file = join(dir, f);
        const sc = parseScenario(readFileSync(file, 'utf8'), file);
        const reg = needsRegistry(sc) ? scenarioRegistry(await registryFor(variant)) : undefined;
        const r = await runScenario(sc, { bundle, lang: 'en', screenshotDir: shots, registry: reg, variant });
        const failed = r.steps.find((s) => !s.ok);
        assert.ok(r.ok, failed ? `line ${failed.line}: ${failed.text}: ${failed.problem}\n${r.display}` : 'failed');
        assert.is(r.steps.length, sc.steps.length);
      },
    );

test('a scenario on the QuickJS-ng engine too (reboot.yaml)', async () => {
  const file = join(dir, 'reboot.yaml');
  const r = await runScenario(parseScenario(readFileSync(file, 'utf8'), file), {
    bundle,
    lang: 'en',
    variant: 'quickjs-ng',
  });
  assert.ok(r.ok, JSON.stringify(r.steps.find((s) => !s.ok)));
});

withXs('a scenario names its engine (variant: xs); an option given to the run wins', async () => {
  const file = join(dir, 'reboot.yaml');
  const sc = parseScenario(readFileSync(file, 'utf8').replace(/^name: .*$/m, '$&\nvariant: xs'), file);
  assert.is(sc.variant, 'xs');
  const sim = simulatorFor(sc, { bundle });
  assert.is(sim.variant, 'xs');
  await sim.boot();
  assert.ok((sim.vm as XsDevice).meters.allocate > 0, 'XS meters read: the firmware runs in XS');
  sim.powerOff();
  assert.is(simulatorFor(sc, { bundle, variant: 'quickjs' }).variant, 'quickjs');
  assert.throws(() => parseScenario('name: x\nvariant: spidermonkey\nsteps: []\n', 'x.yaml'), /variant/);
});

test.run();
