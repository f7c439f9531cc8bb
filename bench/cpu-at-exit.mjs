// Preloaded (--import) into a CLI run by bench/core.bench.ts: at exit, the process's CPU time (all its
// threads, workers included, in microseconds) goes to file descriptor 3.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  const u = process.cpuUsage();
  try {
    writeSync(3, `${u.user + u.system}\n`);
  } catch {
    // No fd 3: not run by the bench.
  }
});
