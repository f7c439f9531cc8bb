// bench/stamps.ts: a figure is current only when measured on the working tree's clean commit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { olderThanTree, treeStamp } from '../../bench/stamps.ts';

test('stamps: current on the same clean commit; older on another commit, a dirty tree, or none', () => {
  const at = '2026-12-04T04:00:00.000Z';
  assert.is(olderThanTree({ commit: 'abc', measured_at: at }, 'abc'), null);
  assert.match(
    olderThanTree({ commit: 'def0123456789', measured_at: at }, 'abc')!,
    /^older: def0123456 2026-12-04T04:00/,
  );
  assert.match(olderThanTree({ commit: 'abc+dirty', measured_at: at }, 'abc+dirty')!, /^older: abc\+dirty/);
  assert.is(olderThanTree(undefined, 'abc'), 'not stamped');
  assert.match(olderThanTree({ commit: 'unknown', measured_at: at }, 'unknown')!, /older/);
});

test('treeStamp: HEAD, +dirty once a tracked file changes, unknown outside git', () => {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-stamps-'));
  try {
    assert.is(treeStamp(dir).commit, 'unknown');
    const git = (...a: string[]) => execFileSync('git', a, { cwd: dir, encoding: 'utf8' }).trim();
    git('init', '-q');
    writeFileSync(join(dir, 'f'), '1');
    git('add', 'f');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x');
    const head = git('rev-parse', 'HEAD');
    assert.is(treeStamp(dir).commit, head);
    writeFileSync(join(dir, 'f'), '2');
    assert.is(treeStamp(dir).commit, `${head}+dirty`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
