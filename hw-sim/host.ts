// What the simulator takes from the machine it runs on, injected by its caller: Node's (hw-sim/node-host.ts,
// installed by importing it) or the web page's worker (hw-sim/web/worker.ts). The simulator's own modules
// stay portable (no Node built-ins): the page runs the same code as `saphir sim`. Defaults: Ed25519
// through noble under the device's rules; everything that needs files, a firmware build or a network
// says it is not there.
import type { XsDevice, XsStartOptions } from './xs-host.ts';
import { nobleSign, nobleVerify, publicKeyOf, type Signer, type Verifier } from '../src/crypto/ed25519.ts';
import { withDeviceRules } from '../src/crypto/device-rules.ts';
import { equalBytes } from '../src/bytes.ts';
import { utf8Encode } from '../src/utf8.ts';
import { sha256 } from '@noble/hashes/sha2.js';
import type { StaleReason } from '../tools/build.ts';
import type { Panel } from './render.ts';
import { useRomPlatform } from '../rom/platform.ts';

export interface SyncAnswer {
  status: number;
  body: string;
}

/** Blocking HTTP: the simulated device lives on virtual time, so an answer must be there when the scheduler reaches it. */
export interface BlockingHttp {
  /** POSTs `body`; blocks until the answer or `timeoutMs`; status 0 when none came. */
  post(url: string, body: string, timeoutMs: number): SyncAnswer;
  close(): void;
}

/** The files a scenario or the CLI names: a flash file, key files, screenshots. */
export interface SimFiles {
  /** `path` from the folder of the file `from` (absolute paths as they are). */
  resolve(from: string, path: string): string;
  /** `path` under the folder `dir`. */
  under(dir: string, path: string): string;
  exists(path: string): boolean;
  read(path: string): Uint8Array;
  /** Writes `bytes`, creating the folders; through a temporary file when `atomic`. */
  write(path: string, bytes: Uint8Array, atomic?: boolean): void;
  /**
   * Writes `bytes` to the relative `path` inside the folder `dir` (screenshots), creating the folders
   * below `dir`; refuses, with an Error whose `code` is `outside` or `symlink`, a path that leaves `dir`
   * (absolute, `..`) or passes a symbolic link, the file itself included. Returns the file written.
   */
  writeInside(dir: string, path: string, bytes: Uint8Array): string;
}

export interface SimHost {
  /** Signs the simulator's own images and tickets. */
  sign: Signer;
  /** The public key of a 32-byte seed (an image's key hash). */
  publicKeyOf(seed: Uint8Array): Uint8Array;
  /** The device's verdict on a signature (RFC 8032 strict, cofactored, small-order keys refused). */
  verify: Verifier;
  /** A blocking HTTP client for one simulated network (`SimOptions.registry`). */
  http(): BlockingHttp;
  /** The firmware bundle's text, for a simulator given none (firmware/dist/saphir-fw.js, built when stale). */
  bundle(onBuild?: (why: StaleReason) => void): string;
  /** The signed firmware image (firmware/dist/saphir-fw.img, built when stale). */
  image(onBuild?: (why: StaleReason) => void): Uint8Array;
  files: SimFiles;
  /** A public key from a key file (JSON or 64 hex digits); `option` names it in errors. */
  publicKeyFile(option: string, path: string): Uint8Array;
  /** The display as a PNG image (screenshots). */
  png(panel: Panel, scale?: number): Uint8Array;
  /** Byte equality, for 100 KiB images: natively where the host can (Node: Buffer.compare). */
  sameBytes(a: Uint8Array, b: Uint8Array): boolean;
  /** The SHA-256 of a text's UTF-8 bytes, for a 150 KB bundle at each start: natively where the host can. */
  sha256Text(text: string): Uint8Array;
  /** Starts the firmware in Moddable XS (hw-sim/xs-host.ts, a worker process: Node only). */
  xs(opts: XsStartOptions): Promise<XsDevice>;
  /**
   * The bytes of function source text QuickJS keeps for a script it compiles (hw-sim/function-source.ts,
   * which installs it; Node only: it parses with TypeScript): `heapDevice()` takes them out.
   */
  functionSources(text: string): number;
}

function missing(what: string): never {
  throw new Error(`${what}: not available here (Node: import hw-sim/node-host.ts; elsewhere: useSimHost)`);
}

const defaults: SimHost = {
  sameBytes: equalBytes,
  sha256Text: (text) => sha256(utf8Encode(text)),
  sign: nobleSign,
  publicKeyOf,
  verify: withDeviceRules(nobleVerify),
  http: () => missing('the simulated network (blocking HTTP)'),
  bundle: () => missing('the firmware bundle'),
  image: () => missing('the firmware image'),
  files: {
    resolve: (_from, path) => path,
    under: (_dir, path) => path,
    exists: () => false,
    read: (path) => missing(`reading ${path}`),
    write: (path) => missing(`writing ${path}`),
    writeInside: (_dir, path) => missing(`writing ${path}`),
  },
  publicKeyFile: (option, path) => missing(`${option} ${path} (a key file)`),
  png: () => missing('drawing a PNG'),
  xs: () => missing('the XS engine'),
  functionSources: () => missing('the function-source model (import hw-sim/function-source.ts)'),
};

let current: SimHost = defaults;

/** The host the simulator runs on. */
export function simHost(): SimHost {
  return current;
}

/** Installs what this machine provides (the rest keeps the defaults). */
export function useSimHost(h: Partial<SimHost>): void {
  current = { ...current, ...h };
  // The device's own code (rom/) checks signatures, compares images and derives keys as the simulated device does.
  useRomPlatform({ verify: current.verify, sameBytes: current.sameBytes, publicKeyOf: current.publicKeyOf });
}
