// CPU seconds of this process from /proc/self/stat (Linux): `own` utime + stime, `children` the reaped
// children's cutime + cstime; elsewhere process.cpuUsage() for `own` and 0 for `children`.
import { readFileSync } from 'node:fs';

export function procCpu({ own = true, children = true } = {}) {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    return ((own ? f[11] + f[12] : 0) + (children ? f[13] + f[14] : 0)) / 100; // in ticks
  } catch {
    if (!own) return 0;
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }
}
