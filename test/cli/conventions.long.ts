// Every command of conventions.test.ts's reader-goes-away case (npm test runs one of each kind).
import './conventions.test.ts';
