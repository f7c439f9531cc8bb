// The processes a test worker started, and theirs, found by parent pid in /proc (Linux): a detached one
// (its own session, as the Ctrl-C tests start them) is still the worker's child.
import { readFileSync, readdirSync } from 'node:fs';

/** Every descendant of `root`, children before their own children. */
export function descendants(root = process.pid) {
  const children = new Map();
  let entries;
  try {
    entries = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return []; // no /proc
  }
  for (const d of entries) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  for (let i = -1, at = root; i < out.length; at = out[++i]) out.push(...(children.get(at) ?? []));
  return out;
}

/** SIGKILLs every descendant of this process: a worker whose runner is gone leaves nothing running. */
export function killDescendants() {
  for (const pid of descendants()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}
