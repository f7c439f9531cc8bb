// The full ledgers' heap budgets (heap-full.test.ts runs the young ledgers in npm test).
import './heap-full.test.ts';
