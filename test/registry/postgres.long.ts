// The registry's cases on PostgreSQL with 1 000 concurrent claims (npm test: 200).
import './postgres.test.ts';
