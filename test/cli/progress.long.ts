// gen's progress lines on one thread too, and audit's (progress.test.ts runs gen's with workers only in npm test).
import './progress.test.ts';
