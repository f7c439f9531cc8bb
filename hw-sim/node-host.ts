// The simulator's host in Node (hw-sim/host.ts): node:crypto or sodium-native, blocking HTTP through a
// worker thread, the firmware from firmware/dist (built when stale), files, PNG screenshots. Importing
// this module installs it; every Node entry that runs the simulator imports it (the CLI's sim and demo
// commands, the explorer's workers, the tests' helpers, the benchmarks). Node-only.
import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { useSimHost } from './host.ts';
import { SyncHttp } from './sync-http.ts';
import { drawPng } from './png.ts';
import { hostVerify, nodePublicKeyOf, nodeSha256Text, nodeSign } from '../tools/node-crypto.ts';
import { ensureBuiltSync, type StaleReason } from '../tools/build-stale.ts';
import { IMAGE_PATH } from '../tools/paths.ts';
import { writeWhole } from '../tools/write-whole.ts';
import { publicKeyFrom as publicKeyArg } from '../tools/key-files.ts';
import { XsDevice } from './xs-host.ts';

/** firmware/dist/saphir-fw.js, built first when missing or stale (tools/build.ts). */
export function ensureBundle(onBuild?: (why: StaleReason) => void): string {
  return readFileSync(ensureBuiltSync(onBuild), 'utf8');
}

/** The signed image firmware/dist/saphir-fw.img (built when missing or stale), for booting through the bootloader. */
export function ensureImage(onBuild?: (why: StaleReason) => void): Uint8Array {
  ensureBuiltSync(onBuild);
  return new Uint8Array(readFileSync(IMAGE_PATH));
}

/**
 * mkdir -p, one level at a time: Node 20's recursive mkdirSync loops forever under a parent it cannot
 * create (/proc/x/y), this throws instead.
 */
function makeDirs(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) makeDirs(parent);
  mkdirSync(dir);
}

/** An Error with a `code`, as node:fs makes them. */
function refused(code: 'outside' | 'symlink', message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** SimFiles.writeInside: `rel` under `dir`, never outside it nor through a symbolic link. */
function writeInside(dir: string, rel: string, bytes: Uint8Array): string {
  const base = resolve(dir);
  if (isAbsolute(rel) || rel.split(/[\\/]/).includes('..'))
    throw refused('outside', `${rel} leaves ${base} (no absolute path, no ..)`);
  const target = resolve(base, rel);
  if (!target.startsWith(base + sep)) throw refused('outside', `${rel} leaves ${base}`);
  makeDirs(base);
  // Every folder below the base, created when missing and never a link; the file opened without following one.
  let at = base;
  for (const part of relative(base, dirname(target)).split(sep).filter(Boolean)) {
    at = join(at, part);
    let st;
    try {
      st = lstatSync(at);
    } catch {
      mkdirSync(at);
      continue;
    }
    if (st.isSymbolicLink()) throw refused('symlink', `${at} is a symbolic link (not followed)`);
  }
  let fd: number;
  try {
    fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP')
      throw refused('symlink', `${target} is a symbolic link (not followed)`);
    throw e;
  }
  try {
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  return target;
}

useSimHost({
  sameBytes: (a, b) => a.length === b.length && Buffer.compare(a, b) === 0,
  sha256Text: nodeSha256Text,
  sign: nodeSign,
  publicKeyOf: nodePublicKeyOf,
  verify: hostVerify,
  http: () => new SyncHttp(),
  bundle: ensureBundle,
  image: ensureImage,
  files: {
    resolve: (from, p) => (isAbsolute(p) ? p : resolve(dirname(from), p)),
    under: (dir, p) => (isAbsolute(p) ? p : resolve(dir, p)),
    exists: existsSync,
    read: (p) => new Uint8Array(readFileSync(p)),
    write: (p, bytes, atomic) => {
      makeDirs(dirname(resolve(p)));
      if (!atomic) return writeFileSync(p, bytes);
      writeWhole(p, bytes);
    },
    writeInside,
  },
  publicKeyFile: publicKeyArg,
  png: drawPng,
  xs: (o) => XsDevice.start(o),
});
