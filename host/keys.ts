// The --key option of gen (a signing key file) and of check, audit and registry serve (the keys to
// trust), read by tools/key-files.ts as every key option is.
import { fromHex, toHex } from '../src/hex.ts';
import { TEST_PUBLIC_KEY_HEX, type KeyRing } from '../src/sph1/keys.ts';
import { UsageError } from './args.ts';
import { HEX64, KeyFileError, readKey, type KeyValue } from '../tools/key-files.ts';
import { nodePublicKeyOf as publicKeyOf, publicKeyProblem } from '../tools/node-crypto.ts';

/** A key option's value (tools/key-files.ts), its problems as usage errors. */
export function keyValue(option: string, value: string): KeyValue {
  try {
    return readKey(option, value);
  } catch (e) {
    throw e instanceof KeyFileError ? new UsageError(e.say) : e;
  }
}

/** A key file's key_id, required (0 to 255). */
function keyIdOf(k: KeyValue, path: string): number {
  if (k.keyId === undefined || Number.isNaN(k.keyId)) throw new UsageError((m) => m.keys.keyId(path));
  return k.keyId;
}

/** gen --key FILE: {"key_id", "seed_hex"}. */
export function readSigningKey(path: string): { keyId: number; seed: Uint8Array } {
  const k = keyValue('--key', path);
  const keyId = keyIdOf(k, path);
  if (!k.seed) throw new UsageError((m) => m.keys.seedHex(path));
  return { keyId, seed: fromHex(k.seed) };
}

/**
 * check/audit --key HEX|FILE: 64 hex digits is a public key trusted whatever the code's key id; a file
 * is {"key_id", "public_hex"} or {"key_id", "seed_hex"}.
 */
export function readTrustedKeys(value: string): KeyRing {
  // A small-order key would let anyone forge (the device refuses it): a key ring holding one is a trap.
  // A key that is no curve point at all only makes every code invalid, which the verdicts say.
  const trusted = (key: Uint8Array, where: string) => {
    const problem = publicKeyProblem(key);
    if (problem === 'small-order point') throw new UsageError((m) => m.keys.refused(where, problem));
    return key;
  };
  const k = keyValue('--key', value);
  if (k.bare) {
    const key = trusted(fromHex(k.bare), '--key');
    return new Map(Array.from({ length: 256 }, (_, id) => [id, key] as [number, Uint8Array]));
  }
  const keyId = keyIdOf(k, value);
  if (k.pub) return new Map([[keyId, trusted(fromHex(k.pub), value)]]);
  return new Map([[keyId, publicKeyOf(fromHex(k.seed!))]]);
}

/** True when a code of this key id verifies with the published test key (gen and check then warn). */
export function signedWithTestKey(keys: KeyRing, keyId: number): boolean {
  const k = keys.get(keyId);
  return k !== undefined && isTestKey(k);
}

/** The published SPH1 test key (anyone can sign tickets with it). */
export function isTestKey(k: Uint8Array): boolean {
  return toHex(k) === TEST_PUBLIC_KEY_HEX;
}

/**
 * Several `--key HEX|FILE` (registry serve): one ring, each value read by readTrustedKeys (`check` sees
 * each value's keys first). A file's key id wins over a bare key (which stands for every id); two
 * different keys for one id, both from files or both bare, are a usage error.
 */
export function readTrustedKeyList(values: string[], check?: (ring: KeyRing, value: string) => void): KeyRing {
  const explicit = new Map<number, Uint8Array>();
  const bare = new Map<number, Uint8Array>();
  for (const value of values) {
    const ring = readTrustedKeys(value);
    check?.(ring, value);
    const into = HEX64.test(value.trim()) ? bare : explicit;
    for (const [id, key] of ring) {
      const had = into.get(id);
      if (had && toHex(had) !== toHex(key)) throw new UsageError((m) => m.keys.conflict(id));
      into.set(id, key);
    }
  }
  return new Map([...bare, ...explicit]);
}
