// npm run build:web's guard: the page runs hw-sim's own modules (no browser copies, no shims), so a
// Node built-in or a Node-only package anywhere in its import graph fails the build, naming it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { build } from 'esbuild';
import { browserOnly } from '../../hw-sim/web/build.ts';
import { ROOT } from '../../tools/paths.ts';

const guard = suite('web build guard');

async function bundle(source: string): Promise<{ text?: string; error?: string; inputs?: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-webguard-'));
  try {
    const entry = join(dir, 'entry.ts');
    writeFileSync(entry, source);
    const r = await build({
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
      metafile: true,
      plugins: [browserOnly],
    });
    const inputs = Object.keys(r.metafile.inputs).map((f) => relative(ROOT, resolve(f)).split(sep).join('/'));
    return { text: r.outputFiles[0].text, inputs };
  } catch (e) {
    return { error: (e as { errors?: { text: string }[] }).errors?.map((x) => x.text).join('; ') ?? String(e) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

guard('a Node built-in outside the shimmed few fails the build, naming it', async () => {
  const r = await bundle(`import { cpus } from 'node:os'; export const n = cpus().length;`);
  assert.ok(r.error, 'the build should fail');
  assert.match(r.error!, /must not import 'node:os'/);
});

guard(
  'the page and its worker build from the shared hw-sim modules, with no Node built-in in their graph',
  async () => {
    for (const entry of ['page.ts', 'worker.ts']) {
      const r = await bundle(`export * from ${JSON.stringify(join(ROOT, 'hw-sim', 'web', entry))};`);
      assert.is(r.error, undefined, entry);
      if (entry === 'worker.ts') {
        // The same simulator as `saphir sim`, not a second device or a shimmed copy.
        for (const shared of [
          'hw-sim/sim.ts',
          'hw-sim/runner.ts',
          'hw-sim/nor-flash.ts',
          'hw-sim/network.ts',
          'hw-sim/host.ts',
          // The service port and its in-process technician: scenarios' `update: { via: service }`.
          'rom/service.ts',
          'hw-sim/service-driver.ts',
        ])
          assert.ok(r.inputs!.includes(shared), `${entry} uses ${shared}`);
        assert.equal(
          r.inputs!.filter((f) => /shim|node-host|node-crypto|sync-http|png\.ts|tools\//.test(f)),
          [],
        );
      }
    }
  },
);

guard('node:fs, a bare built-in name and a Node-only package fail too', async () => {
  for (const [spec, name] of [
    [`import { readFileSync } from 'node:fs'; export const f = () => readFileSync('x');`, 'node:fs'],
    [`import { join } from 'path'; export const f = join;`, 'path'],
    [`import { PNG } from 'pngjs'; export const f = PNG;`, 'pngjs'],
  ]) {
    const r = await bundle(spec);
    assert.ok(r.error, `${name} should fail the build`);
    assert.match(r.error!, `must not import '${name}'`);
  }
});

guard.run();
