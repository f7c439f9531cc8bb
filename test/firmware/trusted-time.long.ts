// The random test of trusted-time.test.ts on all 6 seeded runs (npm test runs 1).
import './trusted-time.test.ts';
