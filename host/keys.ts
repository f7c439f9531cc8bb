// The --key option of gen (a signing key file) and of check and audit (the keys to trust).
import { readFileSync } from 'node:fs';
import { publicKeyOf } from '../src/crypto/ed25519.ts';
import { fromHex, toHex } from '../src/hex.ts';
import { TEST_PUBLIC_KEY_HEX, type KeyRing } from '../src/sph1/keys.ts';
import { UsageError } from './args.ts';
import { publicKeyProblem } from '../tools/node-crypto.ts';

const HEX64 = /^[0-9a-fA-F]{64}$/;

interface KeyJson {
  key_id: number;
  public_hex?: unknown;
  seed_hex?: unknown;
}

/** A key file: JSON with a key_id from 0 to 255 (the hex fields are the caller's to check). */
function readKeyJson(path: string): KeyJson {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new UsageError((m) => m.keys.cannotRead(path, why));
  }
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    throw new UsageError((m) => m.keys.notJson(path));
  }
  const k = o as KeyJson;
  if (typeof k !== 'object' || k === null || !Number.isInteger(k.key_id) || k.key_id < 0 || k.key_id > 255) {
    throw new UsageError((m) => m.keys.keyId(path));
  }
  return k;
}

/** gen --key FILE: {"key_id", "seed_hex"}. */
export function readSigningKey(path: string): { keyId: number; seed: Uint8Array } {
  const k = readKeyJson(path);
  if (typeof k.seed_hex !== 'string' || !HEX64.test(k.seed_hex)) throw new UsageError((m) => m.keys.seedHex(path));
  return { keyId: k.key_id, seed: fromHex(k.seed_hex) };
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
  if (HEX64.test(value)) {
    const key = trusted(fromHex(value), '--key');
    return new Map(Array.from({ length: 256 }, (_, id) => [id, key] as [number, Uint8Array]));
  }
  const k = readKeyJson(value);
  if (typeof k.public_hex === 'string' && HEX64.test(k.public_hex))
    return new Map([[k.key_id, trusted(fromHex(k.public_hex), value)]]);
  if (typeof k.seed_hex === 'string' && HEX64.test(k.seed_hex))
    return new Map([[k.key_id, publicKeyOf(fromHex(k.seed_hex))]]);
  throw new UsageError((m) => m.keys.needHex(value));
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
    const into = HEX64.test(value) ? bare : explicit;
    for (const [id, key] of ring) {
      const had = into.get(id);
      if (had && toHex(had) !== toHex(key)) throw new UsageError((m) => m.keys.conflict(id));
      into.set(id, key);
    }
  }
  return new Map([...bare, ...explicit]);
}
