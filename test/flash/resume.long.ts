// Every seeded power cut of resume.test.ts (npm test runs a sample of them).
import './resume.test.ts';
