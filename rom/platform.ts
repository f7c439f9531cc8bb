// What the device's own code (rom/) takes from the platform it runs on: the device's signature check, a
// byte comparison for 100 KiB images, a clock and timers (UART pacing, the chip's busy time) and the
// secure element's random bytes, SHA-512 and a key pair's public key. Defaults: noble under the device's
// rules, a loop, and the JS host's timers and crypto where it has them (Node, a browser worker); the
// simulator installs its host's (hw-sim/host.ts useSimHost: libsodium, Buffer.compare), a port its own at
// startup.
import { nobleVerify, publicKeyOf, sha512, type Verifier } from '../src/crypto/ed25519.ts';
import { withDeviceRules } from '../src/crypto/device-rules.ts';
import { equalBytes } from '../src/bytes.ts';

export interface RomPlatform {
  /** The device's verdict on a signature (RFC 8032 strict, cofactored, small-order keys refused). */
  verify: Verifier;
  sameBytes(a: Uint8Array, b: Uint8Array): boolean;
  /** Milliseconds of a monotonic clock. */
  now(): number;
  /** Calls `f` after `ms`; the handle cancels it. */
  later(f: () => void, ms: number): unknown;
  cancel(handle: unknown): void;
  /** `n` random bytes (nonces, a production device's own key). */
  random(n: number): Uint8Array;
  /** SHA-512 (a registry request's digest). */
  sha512(message: Uint8Array): Uint8Array;
  /** The public key of a 32-byte seed (a device key pair). */
  publicKeyOf(seed: Uint8Array): Uint8Array;
}

const g = globalThis as unknown as {
  performance?: { now(): number };
  setTimeout?: (f: () => void, ms: number) => unknown;
  clearTimeout?: (h: unknown) => void;
  crypto?: { getRandomValues(a: Uint8Array): Uint8Array };
};
const none = (what: string): never => {
  throw new Error(`${what}: not provided by this platform (useRomPlatform)`);
};

let current: RomPlatform = {
  verify: withDeviceRules(nobleVerify),
  sameBytes: equalBytes,
  now: () => (g.performance ? g.performance.now() : none('a clock')),
  later: (f, ms) => (g.setTimeout ? g.setTimeout(f, ms) : none('timers')),
  cancel: (h) => (g.clearTimeout ? g.clearTimeout(h) : none('timers')),
  random: (n) => (g.crypto ? g.crypto.getRandomValues(new Uint8Array(n)) : none('a random source')),
  sha512,
  publicKeyOf,
};

export function romPlatform(): RomPlatform {
  return current;
}

/** Installs what this platform provides (the rest keeps the defaults). */
export function useRomPlatform(p: Partial<RomPlatform>): void {
  current = { ...current, ...p };
}
