// The tests' shared registry database opened again, beside reset.test.ts's cases.
import './reset.test.ts';
