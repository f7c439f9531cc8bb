// Every shipped scenario (hw-sim/scenarios/*.yaml) runs on the real firmware bundle and passes.
// demo.yaml runs in cli.test.ts, through `saphir demo` as `npm start` runs it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { needsRegistry, parseScenario } from '../../hw-sim/scenario.ts';
import { scenarioRegistry, startEmbeddedRegistry, type EmbeddedRegistry } from '../../src/node/registry/embedded.ts';
import { runScenario } from '../../hw-sim/runner.ts';
import { ensureBundle } from '../../hw-sim/sim.ts';
import { ROOT } from '../helpers.ts';

const dir = join(ROOT, 'hw-sim', 'scenarios');
const bundle = ensureBundle();
const shots = mkdtempSync(join(tmpdir(), 'saphir-shots-'));
// Fleet scenarios share one embedded registry, started when the first needs it.
let registry: Promise<EmbeddedRegistry> | null = null;
test.after(async () => {
  if (registry) await (await registry).close();
});

for (const f of readdirSync(dir)
  .filter((x) => x.endsWith('.yaml') && x !== 'demo.yaml')
  .sort()) {
  test(`scenario ${f}`, async () => {
    const file = join(dir, f);
    const sc = parseScenario(readFileSync(file, 'utf8'), file);
    const reg = needsRegistry(sc) ? scenarioRegistry(await (registry ??= startEmbeddedRegistry())) : undefined;
    const r = await runScenario(sc, { bundle, lang: 'en', screenshotDir: shots, registry: reg });
    const failed = r.steps.find((s) => !s.ok);
    assert.ok(r.ok, failed ? `line ${failed.line}: ${failed.text}: ${failed.problem}\n${r.display}` : 'failed');
    assert.is(r.steps.length, sc.steps.length);
  });
}

test('a scenario on the QuickJS-ng engine too (reboot.yaml)', async () => {
  const file = join(dir, 'reboot.yaml');
  const r = await runScenario(parseScenario(readFileSync(file, 'utf8'), file), {
    bundle,
    lang: 'en',
    variant: 'quickjs-ng',
  });
  assert.ok(r.ok, JSON.stringify(r.steps.find((s) => !s.ok)));
});

test.run();
