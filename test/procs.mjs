// Processes found in /proc (Linux): by a marker in the environment every child inherits, and a test
// worker's descendants by parent pid (a detached one, its own session as the Ctrl-C tests start them, is
// still the worker's child), or by their command line; and the one way a test worker ends when its runner is
// gone (`orphaned`).
import { readFileSync, readdirSync } from 'node:fs';

/** The pids in /proc, each with what `read` returns for it (null: skipped; gone, or not ours to read). */
function each(read) {
  let entries;
  try {
    entries = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return []; // no /proc
  }
  const out = [];
  for (const d of entries) {
    try {
      const v = read(d);
      if (v !== null) out.push([Number(d), v]);
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return out;
}

/** Processes whose environment holds `marker` (this user's; others' environ cannot be read). */
export function marked(marker) {
  return each((d) => (readFileSync(`/proc/${d}/environ`, 'latin1').includes(marker) ? true : null)).map(([p]) => p);
}

/** A process's parent pid (throws once it is gone). */
function parentPid(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** The children of `parent` (not their own). */
export function children(parent) {
  return each((d) => (parentPid(d) === parent ? true : null)).map(([p]) => p);
}

/** Every descendant of `root`, children before their own children. */
export function descendants(root = process.pid) {
  const byParent = new Map();
  for (const [pid, ppid] of each(parentPid)) {
    if (!byParent.has(ppid)) byParent.set(ppid, []);
    byParent.get(ppid).push(pid);
  }
  const out = [];
  for (let i = -1, at = root; i < out.length; at = out[++i]) out.push(...(byParent.get(at) ?? []));
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

/** The runner is gone (a test worker's output closed, or its channel): stop what it started, and exit 1. */
export function orphaned() {
  killDescendants(); // what its files started (their test.after hooks will not run)
  process.exit(1);
}

/** A process's command line, its arguments separated by NULs ('' once it is gone). */
export function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** Processes but this one whose command line holds `text`, each as "pid: its arguments". */
export function commandsWith(text) {
  return each((d) => {
    const cmd = commandLine(d).replace(/\0/g, ' ');
    return Number(d) !== process.pid && cmd.includes(text) ? cmd : null;
  }).map(([pid, cmd]) => `${pid}: ${cmd}`);
}
