// When and on what each figure of bench/results.json was measured: bench/results-stamps.json holds
// {"name": {"commit": "<sha>[+dirty]", "measured_at": "<ISO time>"}} beside the values (results.json
// keeps its {"name": value} shape for its readers). A figure is current when it was measured on the
// working tree's commit with no uncommitted change; anything else (another commit, a dirty tree, no
// stamp) is older than the working tree, and the bench table says so. Figures measured before stamps
// existed carry `"source": "git"`: the commit that wrote their value into results.json and its time,
// found in the file's history (stampsFromHistory), so that every figure says how old it is.
import { execFileSync } from 'node:child_process';

/** `git ARGS` in `cwd`; its own "not a git repository" is not shown (outside git is a case each caller handles). */
const git = (cwd: string, ...a: string[]) =>
  execFileSync('git', a, { cwd, encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'ignore'] });

export interface Stamp {
  commit: string;
  measured_at: string;
  /** 'git': stamped afterwards from results.json's history (the commit that recorded the value). */
  source?: 'git';
}

/** The bench's own output: figures written by one run do not make the next run's tree dirty. */
export const OUTPUTS = ['bench/results.json', 'bench/results-stamps.json'];

/** The working tree's stamp (`cwd`: the checkout's root): HEAD's commit, `+dirty` when a tracked file other than OUTPUTS differs from it. */
export function treeStamp(cwd: string, now = new Date()): Stamp {
  let commit = 'unknown';
  try {
    commit = git(cwd, 'rev-parse', 'HEAD').trim();
    const changed = git(
      cwd,
      'status',
      '--porcelain',
      '--untracked-files=no',
      '--',
      '.',
      ...OUTPUTS.map((p) => `:!${p}`),
    ).trim();
    if (changed !== '') commit += '+dirty';
  } catch {
    // not a git checkout: every figure counts as older
  }
  return { commit, measured_at: now.toISOString() };
}

/** Null when `stamp` is current for the tree at `head` (a clean commit), else why it is older. */
export function olderThanTree(stamp: Stamp | undefined, head: string): string | null {
  if (!stamp) return 'not stamped';
  if (stamp.commit === head && !head.endsWith('+dirty') && head !== 'unknown') return null;
  const c = stamp.commit;
  return `older: ${c.slice(0, 10)}${c.endsWith('+dirty') ? '+dirty' : ''} ${stamp.measured_at.slice(0, 16)}${stamp.source === 'git' ? ' (recorded then, from git history)' : ''}`;
}

/**
 * The other figures of results.json as the table lists them: those older than the tree at `head`,
 * each with why; a figure with a sibling `NAME_extrapolated` measured now says so, so an old real
 * measurement (gen_full_block_s) is not read for the extrapolated one of this run.
 */
export function olderRows(
  results: Record<string, unknown>,
  stamps: Record<string, Stamp>,
  fresh: Set<string>,
  head: string,
): [string, string][] {
  const rows: [string, string][] = [];
  for (const k of Object.keys(results)) {
    if (fresh.has(k)) continue;
    const why = olderThanTree(stamps[k], head);
    if (why === null) continue;
    rows.push([k, fresh.has(`${k}_extrapolated`) ? `${why}; measured now: ${k}_extrapolated` : why]);
  }
  return rows;
}

/** One version of results.json in its history: the commit that wrote it, that commit's time, its figures. */
export interface Recorded {
  commit: string;
  time: string;
  results: Record<string, unknown>;
}

/** results.json at each commit that changed it, newest first (empty outside git). */
export function resultsHistory(cwd: string, path = 'bench/results.json'): Recorded[] {
  try {
    return git(cwd, 'log', '--format=%H %cI', '--', path)
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [commit, time] = l.split(' ');
        let results: Record<string, unknown> = {};
        try {
          results = JSON.parse(git(cwd, 'show', `${commit}:${path}`));
        } catch {
          // deleted or not JSON at that commit: no figure recorded there
        }
        return { commit, time: new Date(time).toISOString(), results };
      });
  } catch {
    return [];
  }
}

/**
 * Stamps for the figures of `results` that have none, from `history` (newest first): the oldest commit
 * of the newest unbroken run of versions holding the figure's current value, i.e. the commit that
 * recorded it. A value no commit holds yet (changed in the working tree) stays unstamped.
 */
export function stampsFromHistory(
  results: Record<string, unknown>,
  stamps: Record<string, Stamp>,
  history: Recorded[],
): Record<string, Stamp> {
  const out: Record<string, Stamp> = {};
  for (const k of Object.keys(results)) {
    if (stamps[k]) continue;
    let rec: Recorded | undefined;
    for (const h of history) {
      if (!(k in h.results) || JSON.stringify(h.results[k]) !== JSON.stringify(results[k])) break;
      rec = h;
    }
    if (rec) out[k] = { commit: rec.commit, measured_at: rec.time, source: 'git' };
  }
  return out;
}
