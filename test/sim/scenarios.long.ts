// Every shipped scenario on Moddable XS too; npm test runs XS on 1 of them a day (scenarios.test.ts).
import './scenarios.test.ts';
