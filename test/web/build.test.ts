// npm run build:web's guard: shared hw-sim modules' Node-only paths get the browser shims, and any
// other Node built-in in the page's import graph fails the build.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { browserOnly } from '../../hw-sim/web/build.ts';

const guard = suite('web build guard');

async function bundle(source: string): Promise<{ text?: string; error?: string }> {
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
      plugins: [browserOnly],
    });
    return { text: r.outputFiles[0].text };
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

guard('node:fs becomes the shim: reading a file says it is not available in the browser', async () => {
  const r = await bundle(`import { readFileSync } from 'node:fs'; export function f() { return readFileSync('x'); }`);
  assert.is(r.error, undefined);
  assert.match(r.text!, /not available in the browser/);
  assert.not.match(r.text!, /from\s*["']node:/);
});

guard.run();
