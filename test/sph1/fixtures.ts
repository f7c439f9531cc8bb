// Shared bits of the SPH1 tests.
export { testKeyRing, TEST_KEY_SEED_HEX, TEST_PUBLIC_KEY_HEX } from '../../src/sph1/keys.ts';

/** The Base45 alphabet, the whole text after the prefix. */
export const BASE45_OK = /^[0-9A-Z $%*+\-./:]*$/;
