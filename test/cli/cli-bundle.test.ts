// The prebuilt CLI (tools/cli-bundle.mjs): a bundle runs while its sources are unchanged, is never run
// once one changed (freshCliBundle says null, bin/saphir.mjs compiles the sources), keeps each source's
// own import.meta.url, and a rebuild brings the new code.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildCliBundle, freshCliBundle } from '../../tools/cli-bundle.mjs';
import { ROOT } from '../helpers.ts';
import { saphir } from './run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-cli-bundle-test-'));
const cache = join(dir, 'cache');
test.after(() => rmSync(dir, { recursive: true, force: true }));

const entry = join(dir, 'cli.ts');
writeFileSync(
  entry,
  `import { value, where } from './dep.ts';
export async function main(file = 'one'): Promise<{ n: number; where: string; command: string }> {
  const { name } = (await import(\`./commands/\${file}.ts\`)) as { name: string };
  return { n: value, where, command: name };
}
`,
);
writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
const writeDep = (value: number) =>
  writeFileSync(join(dir, 'dep.ts'), `export const value: number = ${value};\nexport const where = import.meta.url;\n`);

async function run(path: string) {
  const mod = (await import(pathToFileURL(path).href)) as {
    main(): Promise<{ n: number; where: string; command: string }>;
  };
  return mod.main();
}

test('a fresh bundle runs; a changed source makes it stale until rebuilt', async () => {
  mkdirSync(join(dir, 'commands'));
  writeFileSync(join(dir, 'commands', 'one.ts'), `export const name: string = 'one';\n`);
  writeDep(1);
  assert.is(freshCliBundle(cache), null, 'nothing built yet');
  const first = await buildCliBundle(cache, entry);
  assert.is(freshCliBundle(cache), first);
  const got = await run(first);
  assert.equal(got, { n: 1, where: pathToFileURL(join(dir, 'dep.ts')).href, command: 'one' });
  assert.is(await buildCliBundle(cache, entry), first, 'a current bundle is not rebuilt');

  writeDep(22); // another size and mtime
  assert.is(freshCliBundle(cache), null, 'a stale bundle is never offered');
  const second = await buildCliBundle(cache, entry);
  assert.is.not(second, first);
  assert.is((await run(second)).n, 22);

  // A command chunk counts as a source too.
  writeFileSync(join(dir, 'commands', 'one.ts'), `export const name: string = 'uno';\n`);
  assert.is(freshCliBundle(cache), null);
  assert.is((await run(await buildCliBundle(cache, entry))).command, 'uno');
});

test("yaml is inside the project's bundle (no process loads its CommonJS files), stamped as a source; other packages stay outside", async () => {
  const cli = await buildCliBundle();
  const chunks = readdirSync(dirname(cli)).map((f) => readFileSync(join(dirname(cli), f), 'utf8'));
  assert.not.ok(
    chunks.some((t) => /from ["']yaml["']|import\(["']yaml["']\)/.test(t)),
    'a chunk imports yaml from node_modules',
  );
  assert.ok(
    chunks.some((t) => /from ["']@noble\/hashes\//.test(t)),
    'other packages are imported, not bundled',
  );
  const meta = JSON.parse(readFileSync(join(dirname(dirname(cli)), 'meta.json'), 'utf8')) as { inputs: [string][] };
  assert.ok(
    meta.inputs.some(([p]) => p.includes(join('node_modules', 'yaml', 'browser'))),
    "yaml's files are stamped: an upgrade rebuilds the bundle",
  );
});

test('saphir --version from the bundle says the version of package.json', () => {
  const r = saphir(['--version']);
  assert.is(r.code, 0);
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  assert.match(r.stdout, version);
});

test.run();
