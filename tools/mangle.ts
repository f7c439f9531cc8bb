// Which property names the firmware bundle may shorten (esbuild `mangleProps`): the members the device
// code declares private or reads (`.name`), less every name seen from outside the bundle. esbuild renames
// every use of a name alike in the bundle (noble's included), so only a name that crosses the bundle's
// edge must stay whole:
// - the ECMAScript built-ins (a private `keys` must not rename `map.keys()`),
// - the HAL (src/hal.ts) and the JSON records (configuration, registry protocol): the host reads them,
// - any name written as a string in the device code (`o['x']`, option names, `_steady`),
// - the camera module, bundled on its own (firmware/camera.ts),
// - the globals shared with the hosts (GLOBALS), and what tests read through `globalThis.saphir` (EXPOSED).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.ts';

/** What code outside the bundle reads through `globalThis.saphir` (tests' evals): the app, a payment. */
const EXPOSED = ['ledger', 'stats', 'state', 'config', 'find', 'paidAtMs', 'prizeEur', 'deviceId'];

/** Files whose every identifier is a boundary name. */
const BOUNDARY = [
  'src/hal.ts',
  'src/config.ts',
  'src/config-schema.ts',
  'src/registry/protocol.ts',
  'firmware/camera.ts',
  'firmware/camera-none.ts',
];

/** The globals the bundle and its hosts share (hw-sim/qjs-host.ts, hw-sim/v8-host.ts, firmware/main.ts). */
const GLOBALS = ['device', 'saphir', '__hostEd25519', '__saphirHost', '__saphirFresh', '__saphirDispatch'];

const IDENT = /[A-Za-z_$][\w$]*/g;

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      // The Node host and jsQR (bundled with the camera module) are not the device's core.
      if (name !== 'node' && name !== 'jsqr' && name !== 'dist') tsFiles(p, out);
    } else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function builtinNames(): Set<string> {
  const names = new Set<string>([
    ...['done', 'value', 'index', 'input', 'groups', 'writable', 'enumerable', 'configurable', 'get', 'set'],
    ...['length', 'name', 'message', 'stack', 'cause', 'constructor', 'prototype', 'then', 'toJSON', 'raw'],
  ]);
  const g = globalThis as Record<string, unknown>;
  const roots: unknown[] = [globalThis];
  for (const k of Object.getOwnPropertyNames(globalThis)) {
    const v = g[k];
    if (typeof v === 'function' || (typeof v === 'object' && v !== null)) roots.push(v);
  }
  for (const r of roots) {
    for (let o: unknown = r; o && o !== Object.prototype; o = Object.getPrototypeOf(o))
      for (const n of Object.getOwnPropertyNames(o)) names.add(n);
    const proto = (r as { prototype?: unknown }).prototype;
    for (let o: unknown = proto; o; o = Object.getPrototypeOf(o))
      for (const n of Object.getOwnPropertyNames(o)) names.add(n);
  }
  return names;
}

let cached: RegExp | null | undefined;

/** The `mangleProps` pattern of the firmware bundle, or null when there is nothing to shorten. */
export function mangleProps(): RegExp | null {
  if (cached !== undefined) return cached;
  const files = [...tsFiles(join(ROOT, 'firmware')), ...tsFiles(join(ROOT, 'src'))];
  const privates = new Set<string>();
  const keep = builtinNames();
  for (const n of [...EXPOSED, ...GLOBALS]) keep.add(n);
  for (const f of BOUNDARY) for (const m of readFileSync(join(ROOT, f), 'utf8').matchAll(IDENT)) keep.add(m[0]);
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/\bprivate\s+(?:readonly\s+|static\s+|get\s+|set\s+)*([A-Za-z_$][\w$]*)/g))
      privates.add(m[1]);
    for (const m of text.matchAll(/\.([A-Za-z_$][\w$]*)/g)) privates.add(m[1]);
    // Strings: a name quoted anywhere in the device code is kept whole.
    for (const m of text.matchAll(/'([A-Za-z_$][\w$]*)'|"([A-Za-z_$][\w$]*)"|`([A-Za-z_$][\w$]*)`/g))
      keep.add(m[1] ?? m[2] ?? m[3]);
  }
  const names = [...privates].filter((n) => !keep.has(n)).sort();
  cached = names.length ? new RegExp(`^(?:${names.join('|')})$`) : null;
  return cached;
}
