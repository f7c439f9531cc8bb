// The bundled workers of gen and audit (host/workers/bundle.ts): a bundle runs without tsx, keeps
// each source's own import.meta.url, is reused while its sources are unchanged and rebuilt when one
// changes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { workerBundle } from '../../host/workers/bundle.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-bundle-test-'));
const cache = join(dir, 'cache');
test.after(() => rmSync(dir, { recursive: true, force: true }));

const entry = join(dir, 'entry.ts');
writeFileSync(
  entry,
  `import { parentPort } from 'node:worker_threads';
import { value, where } from './dep.ts';
const n: number = value;
parentPort!.postMessage({ n, where, entry: import.meta.url });
`,
);
const writeDep = (value: number) =>
  writeFileSync(join(dir, 'dep.ts'), `export const value: number = ${value};\nexport const where = import.meta.url;\n`);

async function runBundle(path: string): Promise<{ n: number; where: string; entry: string }> {
  const w = new Worker(path);
  try {
    return await new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
  } finally {
    await w.terminate();
  }
}

test('a bundle runs without tsx and keeps each source its own import.meta.url', async () => {
  writeDep(1);
  const path = await workerBundle(pathToFileURL(entry), cache);
  assert.ok(path.startsWith(cache));
  const r = await runBundle(path);
  assert.is(r.n, 1);
  assert.is(r.where, pathToFileURL(join(dir, 'dep.ts')).href);
  assert.is(r.entry, pathToFileURL(entry).href);
});

test('reused while the sources are unchanged, rebuilt when one changes', async () => {
  writeDep(2);
  const path = await workerBundle(pathToFileURL(entry), cache);
  assert.is((await runBundle(path)).n, 2);
  const built = statSync(path).mtimeMs;
  await new Promise((r) => setTimeout(r, 20));
  assert.is(await workerBundle(pathToFileURL(entry), cache), path);
  assert.is(statSync(path).mtimeMs, built, 'rebuilt although nothing changed');
  // Same size, new content: the modification time tells.
  writeDep(3);
  assert.is((await runBundle(await workerBundle(pathToFileURL(entry), cache))).n, 3);
});

test.run();
