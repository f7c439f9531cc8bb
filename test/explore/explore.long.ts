// The seeded smoke of explore.test.ts on 6 schedules (npm test: 3).
import './explore.test.ts';
