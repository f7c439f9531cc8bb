// Host-side Ed25519 through node:crypto (about 14× faster than noble here), or libsodium
// (tools/sodium.ts, about twice as fast again) when sodium-native loads. Node-only.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { type Signer, type Verifier } from '../src/crypto/ed25519.ts';
import { withDeviceRules } from '../src/crypto/device-rules.ts';
import { sodium, type SodiumEd25519 } from './sodium.ts';
import { bytesMemo } from './bytes-memo.ts';

export { publicKeyProblem, withDeviceRules } from '../src/crypto/device-rules.ts';

/** Which library signs and verifies on this host: `sodium-native`, else `node:crypto`. */
export const HOST_CRYPTO: 'sodium-native' | 'node:crypto' = sodium ? 'sodium-native' : 'node:crypto';

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

const publicKeyObject = bytesMemo((raw) =>
  createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' }),
);

export const privateKeyObject: (seed: Uint8Array) => KeyObject = bytesMemo((seed) =>
  createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' }),
);

/** node:crypto alone, whether or not sodium-native loads (the bench's side-by-side figures). */
export const nodeCryptoVerify: Verifier = (signature, message, publicKey) => {
  try {
    if (signature.length !== 64 || publicKey.length !== 32) return false;
    return verify(null, message, publicKeyObject(publicKey), signature);
  } catch {
    return false;
  }
};

export const nodeCryptoSign: Signer = (message, seed) => new Uint8Array(sign(null, message, privateKeyObject(seed)));

/** The host's library: libsodium when it loads, else node:crypto. */
export const nodeVerify: Verifier = (signature, message, publicKey) => {
  if (!sodium) return nodeCryptoVerify(signature, message, publicKey);
  try {
    if (signature.length !== 64 || publicKey.length !== 32) return false;
    return sodium.verify(signature, message, publicKey);
  } catch {
    return false;
  }
};

/** SHA-512 by OpenSSL (a registry request's digest). */
export const nodeSha512 = (message: Uint8Array): Uint8Array =>
  new Uint8Array(createHash('sha512').update(message).digest());

/** SHA-256 of a text's UTF-8 bytes (a firmware bundle's identity at each simulator start). */
export const nodeSha256Text = (text: string): Uint8Array =>
  new Uint8Array(createHash('sha256').update(text, 'utf8').digest());

export const nodeSign: Signer = (message, seed) =>
  sodium ? sodium.sign(message, seed) : nodeCryptoSign(message, seed);

/**
 * The public key of a 32-byte seed, by the host's library: noble's first one builds its tables, ~50 ms of
 * CPU in each CLI process that needs one (registry serve, a key file's seed). Throws on a seed of another length.
 */
export const nodePublicKeyOf = (seed: Uint8Array): Uint8Array => {
  if (seed.length !== 32) throw new RangeError('seed must be 32 bytes');
  return sodium ? sodium.publicKeyOf(seed) : nodeCryptoPublicKeyOf(seed);
};

/** node:crypto alone (as nodeCryptoSign). */
export const nodeCryptoPublicKeyOf = (seed: Uint8Array): Uint8Array => {
  const spki = createPublicKey(privateKeyObject(seed)).export({ format: 'der', type: 'spki' });
  return new Uint8Array(spki.subarray(SPKI_PREFIX.length));
};

/**
 * `(message) => sign(message, seed)`, for a hot loop that signs many messages with one seed (`saphir
 * gen`). For nodeSign, the host's library with the key looked up once (and, with libsodium, one
 * signature buffer reused: the result is valid until the next call). The same signatures either way.
 */
export function signerOf(signer: Signer, seed: Uint8Array): (message: Uint8Array) => Uint8Array {
  if (signer !== nodeSign) return (message) => signer(message, seed);
  if (sodium) return sodium.signerOf(seed);
  const key = privateKeyObject(seed);
  return (message) => sign(null, message, key);
}

/**
 * The device's verdict (RFC 8032 strict, cofactored: firmware/verify.ts, noble with zip215=false) at
 * node:crypto's speed, for every host path that judges tickets (check, audit, scan). node:crypto checks
 * without the cofactor and takes small-order keys: keys the device refuses are refused here first, and
 * when node:crypto says no, the device's rules decide (a torsion component in R passes the cofactored
 * equation), unless libsodium ran and R and A are both in the prime-order subgroup (sodiumNoIsFinal).
 * node:crypto's yes is the device's yes for an acceptable key: it re-encodes R, so R was canonical, it
 * checks S < L, and the cofactorless equation implies the cofactored one.
 */
export const hostVerify: Verifier = withDeviceRules(nodeVerify, sodium ? sodiumNoIsFinal(sodium) : undefined);

/**
 * When libsodium's no is the device's no, without noble's cofactored check (~3 ms in JS, ~40 µs
 * here): R and A canonical points of the prime-order subgroup, where [8]X = 0 only for X = 0, so the
 * cofactorless and cofactored equations agree, and libsodium compared R's canonical bytes.
 */
function sodiumNoIsFinal(na: SodiumEd25519): (signature: Uint8Array, publicKey: Uint8Array) => boolean {
  const keyPrimeOrder = bytesMemo(na.primeOrder, 256);
  return (signature, publicKey) => keyPrimeOrder(publicKey) && na.primeOrder(signature.subarray(0, 32));
}
