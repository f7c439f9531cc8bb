// The 1 000 rounds of two-servers.test.ts (npm test runs 100).
import './two-servers.test.ts';
