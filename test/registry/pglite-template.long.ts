// The PGlite template from none: the first new database runs PGlite's initdb and writes it (npm test starts
// from a copy of the run's when there is one).
import './pglite-template.test.ts';
