// Processes found by a marker in the environment every child inherits (/proc/PID/environ, Linux).
import { readFileSync, readdirSync } from 'node:fs';

/** Processes whose environment holds `marker` (this user's; others' environ cannot be read). */
export function marked(marker: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').includes(marker)) out.push(Number(pid));
    } catch {
      // gone, or not ours
    }
  }
  return out;
}
