// The random properties of verify.test.ts at full size (npm test runs a third of their cases).
import './verify.test.ts';
