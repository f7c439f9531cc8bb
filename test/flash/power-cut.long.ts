// Every seeded power cut of power-cut.test.ts (npm test runs a sample of them).
import './power-cut.test.ts';
