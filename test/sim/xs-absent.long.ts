// XS absent: a test that needs it skips (or fails under strict), and a scenario that names it stops (npm test: the CLI's refusal).
import './xs-absent.test.ts';
