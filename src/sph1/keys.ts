// The SPH1 test key (published in docs/sph1.md: anyone can sign with it, so production never trusts it).
import { fromHex } from '../hex.ts';

export const TEST_KEY_ID = 0;
export const TEST_KEY_SEED_HEX = '5476192f5f9833e5e5a50ff18f7b0a618990f040da4ddb67f63eb4fe2a66640d';
export const TEST_PUBLIC_KEY_HEX = '17634c0c8c95a173afb7f17b3b54a300c060ba6a2e1b76265aaa7133fade8558';

/** Public keys the validator trusts, by key id. */
export type KeyRing = ReadonlyMap<number, Uint8Array>;

export function testKeyRing(): KeyRing {
  return new Map([[TEST_KEY_ID, fromHex(TEST_PUBLIC_KEY_HEX)]]);
}
