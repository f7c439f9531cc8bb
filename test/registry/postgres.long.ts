// The registry's cases on PostgreSQL with 1 000 concurrent claims (npm test: 100).
import './postgres.test.ts';
