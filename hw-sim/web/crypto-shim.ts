// Browser stand-in for tools/node-crypto.ts: the same Signer/Verifier through @noble/ed25519, whose
// strict check (zip215 off) is the device's rule, so the host-side wrappers reduce to it.
import { Point } from '@noble/ed25519';
import { nobleVerify, type Verifier } from '../../src/crypto/ed25519.ts';

export { nobleSign as nodeSign, nobleVerify as nodeVerify } from '../../src/crypto/ed25519.ts';
export const hostVerify: Verifier = nobleVerify;
export const withDeviceRules = (): Verifier => nobleVerify;

export function publicKeyProblem(publicKey: Uint8Array): string | null {
  if (publicKey.length !== 32) return 'not 32 bytes';
  try {
    return Point.fromBytes(publicKey, false).isSmallOrder() ? 'small-order point' : null;
  } catch {
    return 'not a canonical curve point';
  }
}
