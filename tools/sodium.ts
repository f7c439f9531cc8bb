// libsodium's Ed25519 through sodium-native (prebuilt bindings), about twice as fast as node:crypto
// here. Null when the addon does not load on this platform, or when SAPHIR_CRYPTO=node asks for the
// node:crypto path (the bench compares both in one run; tests use it to run the fallback). Node-only.
import { createRequire } from 'node:module';
import { bytesMemo } from './bytes-memo.ts';

interface SodiumNative {
  crypto_sign_seed_keypair(pk: Uint8Array, sk: Uint8Array, seed: Uint8Array): void;
  crypto_sign_detached(sig: Uint8Array, msg: Uint8Array, sk: Uint8Array): void;
  crypto_sign_verify_detached(sig: Uint8Array, msg: Uint8Array, pk: Uint8Array): boolean;
  crypto_core_ed25519_is_valid_point(p: Uint8Array): boolean;
}

export interface SodiumEd25519 {
  sign(message: Uint8Array, seed: Uint8Array): Uint8Array;
  /**
   * `sign` for one seed, in a hot loop (`saphir gen`): the secret key is derived once, and the
   * signature is written into one buffer reused from call to call, valid until the next call.
   */
  signerOf(seed: Uint8Array): (message: Uint8Array) => Uint8Array;
  /** The public key of a 32-byte seed. */
  publicKeyOf(seed: Uint8Array): Uint8Array;
  /**
   * libsodium's verify: S < L, R and A not of small order, A canonical, and the cofactorless equation
   * ([S]B − [k]A encodes to R). It accepts a subset of what RFC 8032's cofactored check accepts.
   */
  verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
  /**
   * Whether `point` is the canonical encoding of a point of the prime-order subgroup, not the identity
   * (libsodium's crypto_core_ed25519_is_valid_point).
   */
  primeOrder(point: Uint8Array): boolean;
}

function load(): SodiumEd25519 | null {
  if (process.env.SAPHIR_CRYPTO === 'node') return null;
  let na: SodiumNative;
  try {
    na = createRequire(import.meta.url)('sodium-native') as SodiumNative;
  } catch {
    return null;
  }
  const secretKey = bytesMemo((seed) => {
    const sk = new Uint8Array(64);
    na.crypto_sign_seed_keypair(new Uint8Array(32), sk, seed);
    return sk;
  });
  return {
    sign(message, seed) {
      const sig = new Uint8Array(64);
      na.crypto_sign_detached(sig, message, secretKey(seed));
      return sig;
    },
    signerOf(seed) {
      const sk = secretKey(seed);
      const sig = new Uint8Array(64);
      return (message) => {
        na.crypto_sign_detached(sig, message, sk);
        return sig;
      };
    },
    publicKeyOf: (seed) => secretKey(seed).slice(32),
    verify: (signature, message, publicKey) => na.crypto_sign_verify_detached(signature, message, publicKey),
    primeOrder: (point) => point.length === 32 && na.crypto_core_ed25519_is_valid_point(point),
  };
}

export const sodium: SodiumEd25519 | null = load();
