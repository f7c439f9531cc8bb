// Browser stand-in for src/node/node-crypto.ts: the same Signer/Verifier through @noble/ed25519.
export { nobleSign as nodeSign, nobleVerify as nodeVerify } from '../../src/crypto/ed25519.ts';
