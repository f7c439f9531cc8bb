// One process at a time on a PGlite directory: PGlite has no lock of its own, and two processes on one
// directory each keep their own copy of the database in memory (a revocation made by one is unseen by
// the other and lost when it closes; both grant the same ticket). The lock is a file created with
// O_EXCL holding the owner's pid; a lock whose pid is dead is taken over; released on close and on exit.
// A lock naming this process that it does not hold (a release that could not read or remove its file) is
// taken over too: while this process lives, nobody else could.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';

export const LOCK_FILE = 'saphir-registry.lock';

/** Held by another live process: who, and the lock file (the caller says what to do). */
export class DirLocked extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number | null,
    readonly lockFile: string,
  ) {
    super(`${dir} is in use by process ${pid ?? '?'} (${lockFile})`);
  }
}

interface Holder {
  pid: number;
  host: string;
}

function holderOf(text: string): Holder | null {
  try {
    const o = JSON.parse(text) as Partial<Holder>;
    return Number.isSafeInteger(o.pid) && typeof o.host === 'string' ? (o as Holder) : null;
  } catch {
    return null;
  }
}

function readHolder(file: string): Holder | null {
  try {
    return holderOf(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // someone else's process: alive
  }
}

function ageMs(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** Creates `file` with O_EXCL holding `text`; false when it exists. */
function createExclusive(file: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The lock files this process holds now. */
const heldHere = new Set<string>();

/**
 * The lock is stale: its holder is dead, on this host (a lock of another host is never judged from here),
 * or is this process, which no longer holds it.
 */
function stale(h: Holder | null, file: string): boolean {
  // A lock without a readable holder is one being written (a few µs), or left by a crash mid-write.
  if (h === null) return ageMs(file) > 10_000;
  if (h.host !== hostname()) return false;
  return h.pid === process.pid ? !heldHere.has(file) : !alive(h.pid);
}

export interface DirLock {
  release(): void;
}

/**
 * Takes the lock of `dir` (which exists), or throws DirLocked naming the live holder. A stale lock is
 * taken over under a second, short-lived lock, so two processes taking over at once cannot both win.
 */
export function lockDir(dir: string): DirLock {
  const file = resolve(dir, LOCK_FILE);
  const me: Holder = { pid: process.pid, host: hostname() };
  const text = JSON.stringify({ ...me, since: new Date().toISOString() }) + '\n';
  for (let attempt = 0; attempt < 50; attempt++) {
    if (createExclusive(file, text)) return held(file);
    const h = readHolder(file);
    if (!stale(h, file)) throw new DirLocked(dir, h?.pid ?? null, file);
    const takeover = `${file}.takeover`;
    if (!createExclusive(takeover, text)) {
      // Another process is taking it over; a takeover lock left by a crash is old.
      if (ageMs(takeover) > 10_000) unlinkSync(takeover);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
      continue;
    }
    try {
      // Still the same stale lock (nobody took it over meanwhile)? Then it goes.
      const again = readHolder(file);
      if (JSON.stringify(again) === JSON.stringify(h) && stale(again, file)) {
        try {
          unlinkSync(file);
        } catch {
          // gone already
        }
      }
    } finally {
      unlinkSync(takeover);
    }
  }
  throw new DirLocked(dir, readHolder(file)?.pid ?? null, file);
}

function held(file: string): DirLock {
  let released = false;
  heldHere.add(file);
  const release = () => {
    if (released) return;
    released = true;
    heldHere.delete(file);
    process.off('exit', release);
    // Only our own lock goes (never one another process took over). A file that cannot be read now
    // (EMFILE: every descriptor in use) is ours: nobody takes over the lock of a live process.
    let text: string | null = null;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    }
    if (text === null || holderOf(text)?.pid === process.pid) {
      try {
        unlinkSync(file);
      } catch {
        // already gone
      }
    }
  };
  process.on('exit', release);
  return { release };
}
