// test:long: every flash operation of the two-block update too (303); npm test cuts a seeded 40 of them.
import './every-cut.test.ts';
