// test:long: every flash operation of the two-block update too (303), and the three FINISH cuts through
// `saphir flash`; npm test cuts a seeded 40 of the first, one of the second.
import './every-cut.test.ts';
