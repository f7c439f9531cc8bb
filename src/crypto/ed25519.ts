// Ed25519 for the portable core: @noble/ed25519 with @noble/hashes' SHA-512, synchronous (QuickJS has
// no crypto.subtle). RFC 8032 strict verification, to agree with node:crypto on every input.
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';

ed.hashes.sha512 = sha512;
export { sha512 };

/** Verifies an Ed25519 signature; never throws. */
export type Verifier = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;
/** Signs `message` with a 32-byte private seed. */
export type Signer = (message: Uint8Array, seed: Uint8Array) => Uint8Array;

export const nobleVerify: Verifier = (signature, message, publicKey) => {
  try {
    return ed.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
};

export const nobleSign: Signer = (message, seed) => ed.sign(message, seed);

export function publicKeyOf(seed: Uint8Array): Uint8Array {
  return ed.getPublicKey(seed);
}
