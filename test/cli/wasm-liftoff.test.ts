// SAPHIR_WASM_LIFTOFF=1 (test/run.mjs sets it for the processes the tests start): bin/saphir.mjs turns on
// V8's --liftoff-only for its whole life, and opening a PGlite database there leaves it on. Seen by a
// preload that records every V8 flag the process sets. A process that optimises (a test worker) has it on
// while PGlite compiles, and its other WebAssembly is optimised as ever.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-liftoff-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const preload = join(dir, 'flags.cjs');
writeFileSync(
  preload,
  `const v8 = require('node:v8'); const fs = require('node:fs'); const set = v8.setFlagsFromString;
   v8.setFlagsFromString = (f) => { fs.appendFileSync(process.env.FLAGS_LOG, f + '\\n'); return set(f); };
   require('node:module').syncBuiltinESMExports();`,
);

/** The V8 flags `saphir ARGS` set, in order. */
function flags(args: string[], liftoff: string): string[] {
  const log = join(dir, `flags-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, '');
  const r = spawnSync(process.execPath, ['--require', preload, join(ROOT, 'bin', 'saphir.mjs'), ...args], {
    cwd: ROOT,
    env: { ...process.env, SAPHIR_WASM_LIFTOFF: liftoff, SAPHIR_PGLITE_LIFTOFF: '1', FLAGS_LOG: log },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.is(r.status, 0, r.stderr);
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

test('on for the whole process under SAPHIR_WASM_LIFTOFF=1, a PGlite database opened included; off without', () => {
  assert.equal(flags(['--version'], '1'), ['--liftoff-only']);
  assert.equal(flags(['--version'], ''), []);
  const db = join(dir, 'db');
  mkdirSync(db);
  const on = flags(['registry', 'devices', 'list', '--db', db], '1');
  assert.is(on[0], '--liftoff-only');
  assert.not.ok(on.includes('--no-liftoff-only'), on.join(' '));
  // Without it, PGlite's own compile still runs on Liftoff, and turns it off after.
  const off = flags(['registry', 'devices', 'list', '--db', db], '');
  assert.ok(off.indexOf('--no-liftoff-only') > off.indexOf('--liftoff-only'), off.join(' '));
});

/** A hand-made WebAssembly module: `f(n)` sums n, n-step … in a loop (a hot function, to tier up). */
function sum(step: number): number[] {
  const body = [1, 1, 0x7f, 2, 0x40, 3, 0x40, 0x20, 0, 0x45, 0x0d, 1, 0x20, 1, 0x20, 0, 0x6a, 0x21, 1];
  body.push(0x20, 0, 0x41, step, 0x6b, 0x21, 0, 0x0c, 0, 0x0b, 0x0b, 0x20, 1, 0x0b);
  const head = [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 6, 1, 0x60, 1, 0x7f, 1, 0x7f, 3, 2, 1, 0, 7, 5, 1, 1, 0x66, 0, 0];
  return [...head, 0x0a, body.length + 2, 1, body.length, ...body];
}

test("PGlite's modules stay on Liftoff in a process that optimises (a test worker), and what it compiles after is optimised", () => {
  // --liftoff-only turns tier-up off, and turning it off again does not turn tier-up back on: a worker's
  // QuickJS compiled after a registry test ran ~2× slower for the rest of the run; and a lazily compiled
  // module is compiled function by function with the flags of each first call (6 Dec). Two modules (their
  // bytes differ: V8 shares the code of equal ones), as hot as each other, asked whether still on Liftoff.
  const script = join(dir, 'tier-up.mts');
  writeFileSync(
    script,
    `import { compileOnLiftoff } from ${JSON.stringify(join(ROOT, 'host', 'registry', 'db.ts'))};
     const [before] = compileOnLiftoff([new Uint8Array(${JSON.stringify(sum(1))})]);
     const after = new WebAssembly.Module(new Uint8Array(${JSON.stringify(sum(2))}));
     const [f, g] = [before, after].map((m) => (new WebAssembly.Instance(m).exports as { f: (n: number) => number }).f);
     const hot = (n: number) => { for (let i = 0; i < n; i++) f(100000), g(100000); };
     hot(1000);
     await new Promise((r) => setTimeout(r, 300)); // (the optimised code is compiled on another thread)
     hot(200);
     const tier = (h: unknown) => (eval('%IsLiftoffFunction(h)') ? 'liftoff' : 'optimised');
     process.stdout.write(\`\${f(4)} \${tier(f)}, \${g(4)} \${tier(g)}\`);`,
  );
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stdout, '10 liftoff, 6 optimised', r.stderr);
});

test.run();
