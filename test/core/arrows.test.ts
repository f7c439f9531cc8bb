// The folder arrows run one way (DEVELOPERS.md): the portable core (src/) imports only itself; firmware/
// the core; rom/ (the device's own code beside the app: bootloader, update writer, provisioning, service
// port) the core; tools/ (Node pieces below both host and simulator) the core; hw-sim/ never the CLI
// (host/); the CLI reaches hw-sim/ only from the sim and demo commands.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ROOT } from '../../tools/paths.ts';

type Area = 'core' | 'node' | 'rom' | 'firmware' | 'hw-sim' | 'tools' | 'vendored';
const areaOf = (rel: string): Area | null => {
  if (rel.startsWith('firmware/jsqr/')) return 'vendored';
  if (rel.startsWith('host/')) return 'node';
  if (rel.startsWith('src/')) return 'core';
  if (rel.startsWith('rom/')) return 'rom';
  if (rel.startsWith('firmware/')) return 'firmware';
  if (rel.startsWith('hw-sim/')) return 'hw-sim';
  if (rel.startsWith('tools/')) return 'tools';
  return null;
};
const ALLOWED: Record<Area, Area[]> = {
  core: ['core'],
  vendored: ['vendored'],
  // firmware/ also pulls in jsQR through the build's alias, not by path.
  firmware: ['core', 'firmware'],
  tools: ['core', 'tools'],
  rom: ['core', 'rom'],
  'hw-sim': ['core', 'rom', 'hw-sim', 'tools'],
  node: ['core', 'rom', 'node', 'tools'],
};
/** The only CLI modules that may import the simulator (and the modes of `sim` in host/commands/sim/). */
const SIM_COMMANDS = [
  'host/commands/sim.ts',
  'host/commands/sim-explore.ts',
  'host/commands/sim-fleet.ts',
  'host/commands/sim-fleet-worker.ts',
  'host/commands/demo.ts',
];

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'dist' ? [] : sources(p);
    return /\.(ts|mjs)$/.test(e.name) ? [p.split(sep).join('/')] : [];
  });
}

/** Relative import specifiers of a module (static, re-exports and dynamic with a literal). */
export function importsOf(text: string): string[] {
  const out: string[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1]);
  return out;
}

function violations(): string[] {
  const bad: string[] = [];
  for (const file of ['src', 'host', 'rom', 'firmware', 'hw-sim', 'tools'].flatMap(sources)) {
    const from = areaOf(file)!;
    for (const spec of importsOf(readFileSync(join(ROOT, file), 'utf8'))) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), spec))
        .split(sep)
        .join('/');
      const to = areaOf(target);
      if (to === null) bad.push(`${file} → ${target}: outside the source folders`);
      else if (
        from === 'node' &&
        to === 'hw-sim' &&
        (SIM_COMMANDS.includes(file) || file.startsWith('host/commands/sim/'))
      )
        continue;
      else if (!ALLOWED[from].includes(to)) bad.push(`${file} (${from}) → ${target} (${to})`);
    }
  }
  return bad;
}

test('the import scan sees static, re-exported and dynamic imports', () => {
  const text = `import a from './a.ts';\nimport type { B } from "../b.ts";\nexport { c } from './c.ts';\nimport './side.ts';\nconst d = await import('./d.ts');\nimport x from 'pkg';`;
  assert.equal(importsOf(text), ['./a.ts', '../b.ts', './c.ts', './side.ts', './d.ts']);
});

test('the folder arrows run one way', () => {
  assert.equal(violations(), []);
});

test.run();
