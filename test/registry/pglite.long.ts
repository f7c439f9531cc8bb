// The registry's cases on PGlite with 1 000 concurrent claims (npm test: 100).
import './pglite.test.ts';
