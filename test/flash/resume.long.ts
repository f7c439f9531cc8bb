// Every pty cut (10, 50, 90 %) and every seeded power cut of resume.test.ts (npm test runs a sample).
import './resume.test.ts';
