// A size budget exceeded fails the build (a real build), beside build.test.ts's cases.
import './build.test.ts';
