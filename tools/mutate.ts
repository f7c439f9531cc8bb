// `npm run mutate -- [FILE…] [--in-place] [--list]`: applies, one at a time, the mutations listed below
// for the critical modules (a file given: only its own), runs the test files that must catch each, and
// fails when one survives (its tests all pass) or no longer applies (its text is gone from the source:
// update the list). By default it works in a copy of the tree (tracked files, node_modules linked),
// so the worktree is never touched and other runs can go on beside it; `--in-place` mutates the
// worktree itself and restores every file afterwards, also on Ctrl-C or a kill (a `.mutate-orig`
// backup is put back at the next run if even that failed). Exit code 0: every mutation killed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from './paths.ts';

export interface Mutation {
  file: string;
  name: string;
  /** Exact source text, found exactly once in `file`. */
  find: string;
  replace: string;
  /** Test file regexes (node test/run.mjs) that must fail with the mutation. */
  tests: string[];
}

export const MUTATIONS: Mutation[] = [
  {
    file: 'firmware/decide.ts',
    name: 'a paid ticket is not looked up',
    find: 'if (i.paid) return',
    replace: 'if (false) return',
    tests: ['firmware/logic'],
  },
  {
    file: 'firmware/decide.ts',
    name: 'the deadline day itself is past',
    find: 'i.deadlineMs !== null && i.nowMs >= i.deadlineMs',
    replace: 'i.deadlineMs !== null && i.nowMs > i.deadlineMs',
    tests: ['firmware/logic'],
  },
  {
    file: 'src/ledger/mirror.ts',
    name: 'equal counts mean identical logs',
    find: ' && a.digest === b.digest',
    replace: '',
    tests: ['ledger/mirror', 'firmware/two-faults'],
  },
  {
    file: 'src/ledger/mirror.ts',
    name: 'the second log is not asked when the logs disagree',
    find: 'return this.same ? undefined : this.logs[1].find(k);',
    replace: 'return undefined;',
    tests: ['ledger/mirror', 'firmware/two-faults'],
  },
  {
    file: 'src/ledger/mirror.ts',
    name: 'a miss in the first log is believed after its flash changed under its index (finding cambound-89)',
    find: '    // whether the logs agree is decided again before B is skipped.\n    this.fresh();\n',
    replace: '',
    tests: ['ledger/mirror', 'explore/findings'],
  },
  {
    file: 'src/ledger/mirror.ts',
    name: 'a surprise met by an earlier lookup leaves the logs agreeing (finding bench-95078)',
    find: 'if (a.surprises !== this.surprisesSeen) {',
    replace: 'if (false) {',
    tests: ['ledger/mirror', 'explore/findings'],
  },
  {
    file: 'src/ledger/mirror.ts',
    name: 'damage in both logs is not doubtful',
    find: 'return this.logs[0].damage > 0 && this.logs[1].damage > 0;',
    replace: 'return false;',
    tests: ['firmware/two-faults'],
  },
  {
    file: 'src/ledger/ledger.ts',
    name: 'a slot is programmed with its type byte (the commit) in its first operation',
    find: '      slots[o] = 0xff;\n',
    replace: '',
    tests: ['ledger/mirror', 'explore/findings', 'firmware/two-faults'],
  },
  {
    file: 'src/ledger/format.ts',
    name: 'a type byte partly programmed by a cut commit makes the slot damage',
    find: 'crc32Range(b, o + 1, 35, CRC_TYPE)',
    replace: 'crc32Range(b, o, 36)',
    tests: ['ledger/mirror'],
  },
  {
    file: 'src/ledger/ledger.ts',
    name: 'compaction forgets to take dropped payments out of the digest',
    find: 'this.digest = (this.digest - sorted.dropSum) | 0;',
    replace: '',
    tests: ['ledger/mirror'],
  },
  {
    file: 'src/ledger/ledger.ts',
    name: 'a new head whose erase fails is not skipped',
    find: '        this.seq[s] = BAD;\n        err = e;\n        continue;\n',
    replace: '        throw e;\n',
    tests: ['ledger/bad-blocks', 'firmware/bad-blocks'],
  },
  {
    file: 'firmware/decide.ts',
    name: 'a ticket is paid before its emission goes on sale',
    find: 'i.nowMs < i.onSaleMs)',
    replace: 'i.nowMs < 0)',
    tests: ['firmware/logic'],
  },
  {
    file: 'src/notice.ts',
    name: "a device ignores its department's holidays",
    find: 'if (ds[i].code === department) out = out.concat(ds[i].holidays);',
    replace: 'void department;',
    tests: ['notice/notice'],
  },
  {
    file: 'host/registry/campaigns.ts',
    name: 'a failed download is never retried',
    find: 'if (attempts < Number(m.retries))',
    replace: 'if (attempts < 0)',
    tests: ['registry/pglite'],
  },
  {
    file: 'firmware/app/inputs.ts',
    name: 'a fleet device with a full ledger asks the registry anyway',
    find: 'if (!this.ledger.ensureRoom()) {',
    replace: 'if (false) {',
    tests: ['firmware/ledger-full'],
  },
  {
    file: 'firmware/app/screens.ts',
    name: 'a Z report closes nothing on flash',
    find: 'writeMark(this.journalFlash, now, MARK_Z);',
    replace: 'void MARK_Z;',
    tests: ['counter/journal'],
  },
  {
    file: 'src/journal.ts',
    name: "the journal's check byte is not checked",
    find: 'if (d[o] >= JOURNAL_KINDS.length || (crc32Range(d, o, 15) & 255) !== d[o + 15]) continue;',
    replace: 'if (d[o] >= JOURNAL_KINDS.length) continue;',
    tests: ['counter/journal'],
  },
  {
    file: 'firmware/decide.ts',
    name: 'a win from the ID threshold is paid under a high payout limit',
    find: 'if (idRequired || r.prizeEur > i.payoutLimitEur)',
    replace: 'if (r.prizeEur > i.payoutLimitEur)',
    tests: ['counter/receipts'],
  },
  {
    file: 'firmware/app.ts',
    name: 'the boot mark ignores latestPaidAtMs',
    find: 'this.mark = Math.max(this.markStored, this.ledger.latestPaidAtMs, this.lastZ);',
    replace: 'this.mark = Math.max(this.markStored, this.lastZ);',
    tests: ['firmware/trusted-time'],
  },
  {
    file: 'firmware/app/clock.ts',
    name: 'the mark is stored every 30 days, not every day',
    find: 'if (now - this.markStored > DAY_MS) this.storeMark(now);',
    replace: 'if (now - this.markStored > 30 * DAY_MS) this.storeMark(now);',
    tests: ['firmware/trusted-time'],
  },
  {
    file: 'host/registry/server.ts',
    name: 'a request signed by another key is read and parsed before its head is checked',
    find: 'verified = await store.refuseEarly(early);',
    replace: 'void early;',
    tests: ['registry/refusals'],
  },
  {
    file: 'host/registry/server.ts',
    name: 'the rest of a body refused from its head is left unread (the kept connection never serves the next request)',
    find: "req.off('data', data).off('end', end).resume();",
    replace: "req.off('data', data).off('end', end);",
    tests: ['registry/refusals'],
  },
  {
    file: 'host/registry/store.ts',
    name: 'a replayed or stale head is let through to the body (freshness and nonce checked after it is read)',
    find: '    await this.checkFreshNonce(e.deviceId, e.nonce, e.sentAt);\n',
    replace: '',
    tests: ['registry/refusals'],
  },
  {
    file: 'host/registry/store.ts',
    name: "a request's payload is not compared with the digest its signature covers",
    find: 'if (digest !== req.digest)',
    replace: 'if (digest !== req.digest && false)',
    tests: ['registry/refusals'],
  },
  {
    file: 'host/registry/store.ts',
    name: "an online claim stores the device's paid_at",
    find: 'online ? now : paidAt',
    replace: 'paidAt',
    tests: ['registry/pglite.test'],
  },
  {
    file: 'src/sph1/check.ts',
    name: 'E_GAME checked before E_VERSION',
    find: "  if (parsed.version !== FORMAT_VERSION) return invalid('E_VERSION', decoded);\n  if (parsed.id.game !== GAME_SAPHIR) return invalid('E_GAME', decoded);\n",
    replace:
      "  if (parsed.id.game !== GAME_SAPHIR) return invalid('E_GAME', decoded);\n  if (parsed.version !== FORMAT_VERSION) return invalid('E_VERSION', decoded);\n",
    tests: ['sph1/properties'],
  },
  {
    file: 'src/crypto/device-rules.ts',
    name: 'non-canonical key encodings accepted',
    find: 'Point.fromBytes(publicKey, false)',
    replace: 'Point.fromBytes(publicKey, true)',
    tests: ['sph1/crafted'],
  },
  {
    file: 'rom/bootloader.ts',
    name: 'the counter is the newest record’s, not the highest',
    find: 'minCounter = Math.max(minCounter, r.minCounter);',
    replace: 'if (!best || r.seq > best.seq) minCounter = r.minCounter;',
    tests: ['flash/bootloader'],
  },
  {
    file: 'rom/bootloader.ts',
    name: 'a lagging state sector is not restored at reset',
    find: '  restoreState(chip);\n',
    replace: '',
    tests: ['flash/bootloader'],
  },
  {
    file: 'tools/build.ts',
    name: 'the reports part kept once compiled (its heap for good)',
    find: "calls: ['counterReport'],\n    transient: true,",
    replace: "calls: ['counterReport'],",
    tests: ['firmware/parts-transient'],
  },
  {
    file: 'tools/build.ts',
    name: 'the notice part kept once compiled',
    find: "drop: 'dropNotice',\n    transient: true,",
    replace: "drop: 'dropNotice',",
    tests: ['firmware/parts-transient'],
  },
  {
    file: 'hw-sim/function-source.ts',
    name: 'the heap model takes a freed part’s sources off',
    find: '  if (text.startsWith(ONCE_MARK)) return 0;\n',
    replace: '',
    tests: ['firmware/parts-transient'],
  },
  {
    file: 'hw-sim/explore/model.ts',
    name: 'the explorer counts every clock the device was on under as decided (trusted time)',
    find: "    const booted = ob.power.some((p) => p.startsWith('boot'));\n",
    replace:
      "    this.decidedMs = Math.max(this.decidedMs, this.startClockMs);\n    const booted = ob.power.some((p) => p.startsWith('boot'));\n",
    tests: ['explore/oracle'],
  },
  {
    file: 'hw-sim/explore/model.ts',
    name: "the explorer demands the update's slot after a power cut in the bootloader's trial record",
    find: "if (ob.power.some((p) => p.includes('power cut in the bootloader'))) this.trialSlot = null;",
    replace: 'if (false) this.trialSlot = null;',
    tests: ['explore/steps'],
  },
  {
    file: 'hw-sim/explore/model.ts',
    name: 'the explorer forgets that a second update cut short clears the first one’s trial',
    find: "      else if (u.reason === 'power-cut') this.trialSlot = null;\n",
    replace: '',
    tests: ['explore/steps'],
  },
  {
    file: 'hw-sim/explore/model.ts',
    name: 'the explorer wants GAGNANT for a win whose OK the power cut (it may be on flash)',
    find: "    if (mayBePaid) out.push('already-paid');\n",
    replace: '',
    tests: ['explore/oracle'],
  },
  {
    file: 'hw-sim/explore/model.ts',
    name: 'the explorer wants one verdict where trusted time may be on either side of the end of the claim period',
    find: "const out: Shown[] = expired ? ['expired'] : open ? [payable] : ['expired', payable];",
    replace: "const out: Shown[] = expired ? ['expired'] : [payable];",
    tests: ['explore/oracle'],
  },
  {
    file: 'hw-sim/explore/model.ts',
    name: 'the explorer wants DÉJÀ PAYÉ for a paid ticket whose claim period may be over (compaction drops it)',
    find: "return open ? ['already-paid'] : ['already-paid', 'expired'];",
    replace: "return ['already-paid'];",
    tests: ['explore/oracle'],
  },
  {
    file: 'hw-sim/explore/fleet-model.ts',
    name: 'the fleet explorer wants the registry to report a double payment a rollback erased',
    find: '      if (ps.some((p) => p.erased)) {\n        this.erasedDoubles++;\n        continue;\n      }\n',
    replace: '',
    tests: ['explore/fleet'],
  },
  {
    file: 'hw-sim/explore/fleet.ts',
    name: 'the fleet settle has one round: a device a cut stopped in it never syncs',
    find: '      ...on,\n      syncTime,\n      ...on,\n      syncTime,\n',
    replace: '      ...on,\n      syncTime,\n',
    tests: ['explore/fleet'],
  },
];

const BACKUP = '.mutate-orig';

/** Puts back any file a killed `--in-place` run left mutated. */
function restoreBackups(root: string): void {
  for (const m of MUTATIONS) {
    const p = join(root, m.file);
    if (existsSync(p + BACKUP)) renameSync(p + BACKUP, p);
  }
}

/** A copy of the tracked files of ROOT with node_modules linked entry by entry (its .cache its own). */
function treeCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-mutate-'));
  const ls = spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  if (ls.status !== 0) throw new Error(`git ls-files: ${ls.stderr}`);
  for (const f of ls.stdout.split('\0').filter(Boolean)) {
    if (!existsSync(join(ROOT, f))) continue;
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(ROOT, f), join(dir, f));
  }
  mkdirSync(join(dir, 'node_modules', '.cache'), { recursive: true });
  for (const e of readdirSync(join(ROOT, 'node_modules')))
    if (e !== '.cache') symlinkSync(join(ROOT, 'node_modules', e), join(dir, 'node_modules', e));
  return dir;
}

export interface Outcome {
  mutation: Mutation;
  result: 'killed' | 'survived' | 'stale';
  ms: number;
}

/** Runs `node test/run.mjs TESTS…` in `root`; resolves with its exit code and last line. */
function runTests(root: string, tests: string[], started: (c: ChildProcess) => void) {
  return new Promise<{ code: number | null; last: string }>((done) => {
    const c = spawn(process.execPath, [join(root, 'test', 'run.mjs'), ...tests], {
      cwd: root,
      env: { ...process.env, SAPHIR_TEST_TIER: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started(c);
    let text = '';
    c.stdout.on('data', (d: Buffer) => (text = (text + d.toString()).slice(-4000)));
    c.stderr.resume();
    c.on('close', (code) => done({ code, last: text.trim().split('\n').pop() ?? '' }));
  });
}

export async function runMutations(
  list: Mutation[],
  o: { inPlace?: boolean; log?: (s: string) => void } = {},
): Promise<Outcome[]> {
  const log = o.log ?? ((s: string) => process.stdout.write(s + '\n'));
  restoreBackups(ROOT);
  const root = o.inPlace ? ROOT : treeCopy();
  let current: { path: string; text: string } | null = null;
  const putBack = () => {
    if (current) {
      writeFileSync(current.path, current.text);
      rmSync(current.path + BACKUP, { force: true });
      current = null;
    }
  };
  let child: ChildProcess | null = null;
  const onSignal = (sig: NodeJS.Signals) => {
    child?.kill('SIGTERM');
    putBack();
    if (!o.inPlace) rmSync(root, { recursive: true, force: true });
    process.kill(process.pid, sig);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.once(s, onSignal);
  process.once('exit', putBack);
  const out: Outcome[] = [];
  try {
    for (const m of list) {
      const t0 = Date.now();
      const path = join(root, m.file);
      const text = readFileSync(path, 'utf8');
      const at = text.indexOf(m.find);
      if (at < 0 || text.indexOf(m.find, at + 1) >= 0) {
        log(`STALE     ${m.file}: ${m.name} (its text is ${at < 0 ? 'gone' : 'there twice'})`);
        out.push({ mutation: m, result: 'stale', ms: 0 });
        continue;
      }
      writeFileSync(path + BACKUP, text);
      current = { path, text };
      writeFileSync(path, text.slice(0, at) + m.replace + text.slice(at + m.find.length));
      let r;
      try {
        r = await runTests(root, m.tests, (c) => (child = c));
      } finally {
        child = null;
        putBack();
      }
      const ms = Date.now() - t0;
      const summary = r.last;
      const result = r.code === 0 ? 'survived' : 'killed';
      log(
        `${result === 'killed' ? 'killed  ' : 'SURVIVED'}  ${m.file}: ${m.name} (${summary}; ${(ms / 1000).toFixed(1)} s)`,
      );
      out.push({ mutation: m, result, ms });
    }
  } finally {
    putBack();
    for (const s of signals) process.removeListener(s, onSignal);
    process.removeListener('exit', putBack);
    if (!o.inPlace) rmSync(root, { recursive: true, force: true });
  }
  return out;
}

async function main(argv: string[]): Promise<number> {
  const inPlace = argv.includes('--in-place');
  const files = argv.filter((a) => !a.startsWith('--')).map((f) => relative(ROOT, resolve(f)));
  const unknown = files.filter((f) => !MUTATIONS.some((m) => m.file === f));
  if (unknown.length) {
    process.stderr.write(
      `mutate: no mutations listed for ${unknown.join(', ')}; files with some: ${[...new Set(MUTATIONS.map((m) => m.file))].join(', ')}\n`,
    );
    return 2;
  }
  const list = files.length ? MUTATIONS.filter((m) => files.includes(m.file)) : MUTATIONS;
  if (argv.includes('--list')) {
    for (const m of list) process.stdout.write(`${m.file}: ${m.name} → ${m.tests.join(' ')}\n`);
    return 0;
  }
  const out = await runMutations(list, { inPlace });
  const bad = out.filter((x) => x.result !== 'killed');
  process.stdout.write(`${out.length - bad.length} of ${out.length} mutations killed\n`);
  return bad.length ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(ROOT, 'tools', 'mutate.ts'))
  process.exitCode = await main(process.argv.slice(2));
