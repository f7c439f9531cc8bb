// The whole sweeps of ledger-damage.test.ts (every bit of 6 slots, 200 random flips, garbage in every
// sector); npm test runs a seeded sample of them.
import './ledger-damage.test.ts';
