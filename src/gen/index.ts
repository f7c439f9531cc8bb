// The ticket generator (portable): `saphir gen` and the simulator build tickets through this.
export { makeRng, rngOfWords, type Rng } from './rng.ts';
export { makePermutation, type Permutation } from './permutation.ts';
export { composeZones, composeInto, indexedZones, splitsOf, MAX_PARTS, type IndexedZones } from './compose.ts';
export { blockGenerator, ticketOf, prizeOfRank, tiersOf, DEFAULT_SEED, type BlockGenerator } from './block.ts';
