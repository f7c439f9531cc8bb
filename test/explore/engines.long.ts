// All five schedules of engines.test.ts on QuickJS and V8 (npm test compares two).
import './engines.test.ts';
