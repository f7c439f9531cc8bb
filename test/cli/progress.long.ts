// gen's progress lines on one thread too (progress.test.ts runs them with workers only in npm test).
import './progress.test.ts';
