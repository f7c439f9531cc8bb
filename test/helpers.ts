// Shared test fixtures (everything a test reads lives in this repository) and the gate for tests that
// need a system tool.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test as uvuTest } from 'uvu';
import { ROOT } from '../tools/paths.ts';
import { onPath } from '../tools/on-path.ts';
// The simulator's host in Node (hw-sim/host.ts): node:crypto, files, the firmware build.
import '../hw-sim/node-host.ts';
import fc from 'fast-check';
import { publicKeyOf } from '../src/crypto/ed25519.ts';

export { ROOT };
export const FIXTURES = join(ROOT, 'test', 'fixtures');

export interface Vector {
  name: string;
  code: string;
  expect: { status: 'win' | 'lose' | 'invalid'; prize_eur: number; reason: string | null };
}

/** The SPH1 test vectors of docs/sph1.md. */
export function loadVectors(): { test_public_key_hex: string; vectors: Vector[] } {
  return JSON.parse(readFileSync(join(FIXTURES, 'sph1-vectors.json'), 'utf8'));
}

/** A few photos from the jsQR end-to-end corpus (Apache-2.0, see fixtures/jsqr/NOTICE): `input.png`, `output.json`. */
export const JSQR_PHOTOS = ['0', '1', '10', 'issue-59-inverted'].map((n) => join(FIXTURES, 'jsqr', n));

export { onPath };

interface Tool {
  /** What is missing, as the skip line says it ("socat not installed"), from why the probe failed. */
  what: string | ((why: string) => string);
  install: string | ((why: string) => string);
  /** Null when the tool is usable, else why not. */
  check(): string | null;
}

import { XS_INSTALL, xsnapWorker } from '../hw-sim/xs-host.ts';

const require = createRequire(import.meta.url);

const TOOLS: Record<string, Tool> = {
  socat: {
    what: 'socat not installed',
    install: 'apt-get install socat',
    check: () => (onPath('socat') ? null : 'not on PATH'),
  },
  script: {
    what: 'util-linux script not installed',
    install: 'apt-get install bsdutils',
    check: () => (onPath('script') ? null : 'not on PATH'),
  },
  'node-hid': {
    what: (why) =>
      /Cannot find (module|package)/.test(why) ? 'node-hid not installed' : 'node-hid cannot load (libusb/libudev)',
    install: (why) => (/Cannot find (module|package)/.test(why) ? 'npm ci' : 'apt-get install libusb-1.0-0 libudev1'),
    check: () => {
      try {
        const m = require('node-hid') as { devices?: unknown };
        return typeof m.devices === 'function' ? null : 'no devices() in node-hid';
      } catch (e) {
        return (e as Error).message.split('\n')[0];
      }
    },
  },
  // Moddable XS: the worker @agoric/xsnap builds with gcc/make at install (hw-sim/xs-host.ts).
  xsnap: {
    what: 'XS engine (@agoric/xsnap) not available',
    install: XS_INSTALL,
    check: () => {
      const w = xsnapWorker();
      return 'path' in w ? null : w.missing;
    },
  },
  chromium: {
    what: 'chromium not available',
    install: 'apt-get install chromium',
    check: () => {
      try {
        const pw = require('playwright-core') as { chromium: { executablePath(): string } };
        if (existsSync(pw.chromium.executablePath())) return null;
      } catch {
        // no playwright-core, or no browser it knows of: look on PATH
      }
      return ['chromium', 'chromium-browser', 'google-chrome'].some(onPath) ? null : 'no chromium found';
    },
  },
  postgres: {
    what: 'PostgreSQL server not installed',
    install: 'apt-get install postgresql',
    check: () => {
      if (process.env.DATABASE_URL || process.env.PGHOST) return null;
      if (onPath('postgres') || onPath('pg_ctl')) return null;
      const lib = '/usr/lib/postgresql';
      const versions = existsSync(lib) ? readdirSync(lib) : [];
      return versions.some((v) => existsSync(join(lib, v, 'bin', 'postgres')))
        ? null
        : 'no postgres binary, no DATABASE_URL';
    },
  },
};

const known = new Map<string, string | null>();
/** Why `name` cannot be used here (null when it can). `check` overrides the built-in probe. */
export function toolMissing(name: string, check?: () => string | null): string | null {
  if (!known.has(name))
    known.set(name, (check ?? TOOLS[name]?.check ?? (() => (onPath(name) ? null : 'not on PATH')))());
  return known.get(name)!;
}

export const STRICT = process.env.SAPHIR_TEST_STRICT === '1';
/**
 * True in `npm run test:long` (test/run.mjs --long sets SAPHIR_TEST_TIER=long): a test that npm test runs on a
 * seeded sample runs its whole sweep there. Its `*.long.ts` twin only imports it, e.g.
 * `import './ledger-damage.test.ts';`.
 */
export const LONG = process.env.SAPHIR_TEST_TIER === 'long';
type Register = (name: string, fn: () => unknown) => void;

/**
 * `register` (uvu's `test`, a suite) in the long tier only, for a test in a quick file that a `*.long.ts`
 * twin imports. npm test checks each promise once at the smallest scale that breaks it; what only repeats
 * that at full scale, in the second language, through a second process or on the build's own machinery
 * runs in `npm run test:long` (CI runs both).
 */
export function longOnly<T extends (name: string, fn: () => void | Promise<void>) => void>(register: T): T {
  return LONG ? register : ((() => {}) as unknown as T);
}
/** uvu's `test`, long tier only. */
export const longTest = longOnly(uvuTest);

/**
 * The `test` to register tests that need a system tool (built in: 'socat', 'script' (util-linux),
 * 'node-hid' (libusb, libudev), 'chromium', 'postgres'): uvu's own `test` when the tool is there; otherwise the test is skipped, with one
 * line `# skip: <what> (<install>)` on stdout that test/run.mjs counts in its summary. Under
 * SAPHIR_TEST_STRICT=1 (CI) a missing tool is a failing test instead.
 *
 *   const withSocat = requireTool('socat');
 *   withSocat('a pty pair…', async () => { … });
 *
 * An unknown `name` is looked up on PATH unless `check` says otherwise; `installHint` names the
 * package (`apt-get install …`), `t` is a uvu suite when the file uses one.
 */
export function requireTool(
  name: string,
  installHint?: string,
  opts: { check?: () => string | null; what?: string; t?: typeof uvuTest } = {},
): Register {
  const t = opts.t ?? uvuTest;
  const tool = TOOLS[name];
  const why = toolMissing(name, opts.check);
  if (why === null) return (title, fn) => t(title, fn as () => void);
  const said = (v: string | ((why: string) => string) | undefined) => (typeof v === 'function' ? v(why) : v);
  const what = opts.what ?? said(tool?.what) ?? `${name} not available`;
  const install = installHint ?? said(tool?.install) ?? `install ${name}`;
  return (title, fn) => {
    if (STRICT) {
      t(title, () => {
        throw new Error(`${what} (${why}); SAPHIR_TEST_STRICT=1 requires it: ${install}`);
      });
      return;
    }
    process.stdout.write(`# skip: ${what}: ${install} — ${title}\n`);
    t.skip(title, fn as () => void);
  };
}

/** `requireTool` for a test that needs several tools: skipped (or failed under strict) for the first one missing. */
export function requireTools(names: string[], opts: { t?: typeof uvuTest } = {}): Register {
  const missing = names.find((n) => toolMissing(n) !== null);
  return requireTool(missing ?? names[0], undefined, opts);
}

/**
 * fast-check: a key (`pub`), a message signed by `sign` (`sig`, `msg`), and copies of the three (`s`, `p`,
 * `m`) with one bit flipped in the signature, the key or the message (or, for `where` 3, none).
 */
export function signedThenFlipped(sign: (message: Uint8Array, seed: Uint8Array) => Uint8Array) {
  return fc
    .tuple(
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.uint8Array({ maxLength: 80 }),
      fc.nat(),
      fc.integer({ min: 0, max: 3 }),
    )
    .map(([seed, msg, bit, where]) => {
      const pub = publicKeyOf(seed);
      const sig = sign(msg, seed);
      const [s, p, m] = [sig.slice(), pub.slice(), msg.slice()];
      const t = [s, p, m][where];
      if (t && t.length > 0) t[(bit >> 3) % t.length] ^= 1 << (bit & 7);
      return { sig, msg, pub, s, p, m };
    });
}
