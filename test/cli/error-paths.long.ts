// Every error path in both languages, the ones that need a process of their own too (npm test: French).
import './error-paths.test.ts';
