// The PGlite template from none: the first new database runs PGlite's initdb and writes it (npm test runs
// only the refusal of a template that is no dump).
import './pglite-template.test.ts';
