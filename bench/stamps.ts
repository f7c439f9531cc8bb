// When and on what each figure of bench/results.json was measured: bench/results-stamps.json holds
// {"name": {"commit": "<sha>[+dirty]", "measured_at": "<ISO time>"}} beside the values (results.json
// keeps its {"name": value} shape for its readers). A figure is current when it was measured on the
// working tree's commit with no uncommitted change; anything else (another commit, a dirty tree, no
// stamp: measured before stamps existed) is older than the working tree, and the bench table says so.
import { execFileSync } from 'node:child_process';

export interface Stamp {
  commit: string;
  measured_at: string;
}

/** The working tree's stamp: HEAD's commit, `+dirty` when a tracked file differs from it. */
export function treeStamp(cwd: string, now = new Date()): Stamp {
  const git = (...a: string[]) => execFileSync('git', a, { cwd, encoding: 'utf8' }).trim();
  let commit = 'unknown';
  try {
    commit = git('rev-parse', 'HEAD');
    if (git('status', '--porcelain', '--untracked-files=no') !== '') commit += '+dirty';
  } catch {
    // not a git checkout: every figure counts as older
  }
  return { commit, measured_at: now.toISOString() };
}

/** Null when `stamp` is current for the tree at `head` (a clean commit), else why it is older. */
export function olderThanTree(stamp: Stamp | undefined, head: string): string | null {
  if (!stamp) return 'not stamped';
  if (stamp.commit === head && !head.endsWith('+dirty') && head !== 'unknown') return null;
  return `older: ${stamp.commit.slice(0, 10)}${stamp.commit.endsWith('+dirty') ? '+dirty' : ''} ${stamp.measured_at.slice(0, 16)}`;
}
