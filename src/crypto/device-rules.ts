// The device's rules for a host-side Ed25519 verifier (RFC 8032 strict, cofactored: firmware/verify.ts,
// noble with zip215=false), whatever library checks the equation. Portable: the simulator in a browser
// uses them with noble, Node with node:crypto or sodium-native (tools/node-crypto.ts).
import { Point } from '@noble/ed25519';
import { nobleVerify, type Verifier } from './ed25519.ts';
import { toHex } from '../hex.ts';
import { equalBytes } from '../bytes.ts';

const keyProblems = new Map<string, string | null>();

/**
 * Why the device would refuse this public key for every signature (not 32 bytes, not a canonical
 * point encoding, small order), or null. Cached: key rings are small.
 */
let lastGood: Uint8Array | null = null;
let lastGoodCopy = new Uint8Array(32);

export function publicKeyProblem(publicKey: Uint8Array): string | null {
  if (publicKey.length !== 32) return 'not 32 bytes';
  // Key rings hand the same array for every ticket: skip the lookup when it is unchanged.
  if (publicKey === lastGood && equalBytes(publicKey, lastGoodCopy)) return null;
  const id = toHex(publicKey);
  let p = keyProblems.get(id);
  if (p === undefined) {
    try {
      p = Point.fromBytes(publicKey, false).isSmallOrder() ? 'small-order point' : null;
    } catch {
      p = 'not a canonical curve point';
    }
    if (keyProblems.size > 4096) keyProblems.clear();
    keyProblems.set(id, p);
  }
  if (p === null) {
    lastGood = publicKey;
    lastGoodCopy = publicKey.slice();
  }
  return p;
}

/**
 * The device's verdict from a fast host verifier (node:crypto, sodium-native, …) whose yes is sound
 * for an acceptable key (canonical R, S < L, cofactorless or cofactored equation): keys the device
 * refuses are refused first, and its no is checked against the device's rules, unless `noIsFinal`
 * says the two equations agree on this R and key (both canonical points of the prime-order subgroup).
 */
export function withDeviceRules(
  fast: Verifier,
  noIsFinal?: (signature: Uint8Array, publicKey: Uint8Array) => boolean,
): Verifier {
  return (signature, message, publicKey) => {
    if (signature.length !== 64 || publicKeyProblem(publicKey) !== null) return false;
    if (fast(signature, message, publicKey)) return true;
    return fast !== nobleVerify && !noIsFinal?.(signature, publicKey) && nobleVerify(signature, message, publicKey);
  };
}
