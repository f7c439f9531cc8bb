// The X/Z reports' seam (as registry.ts is the link's): the firmware bundle carries firmware/counter.ts
// and src/report.ts packed and compiles them when the clerk first asks for a report (tools/build.ts
// `LAZY_PARTS`). Unbundled (tests in Node), the module itself.
import { counterReport as report } from './counter.ts';

export const counterReport: typeof report = report;
