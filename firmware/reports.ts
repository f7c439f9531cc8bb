// The X/Z reports' seam (as registry.ts is the link's): the firmware bundle carries firmware/counter.ts
// and src/report.ts packed and compiles them for each report, freed once it is made (tools/build.ts
// `LAZY_PARTS`, `transient`: a report is rare, its code would stay for nothing). Unbundled (tests in Node), the module itself.
import { counterReport as report } from './counter.ts';

export const counterReport: typeof report = report;
