// saphir flash --port PATH [--port PATH…] [--ports GLOB] [--baud N] [--key HEX] [--force] [--dry-run]
//              [--no-reboot] [--quiet] [--lang fr|en] IMAGE
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  parseImage,
  compareVersions,
  parseVersion,
  verifyImage,
  manifestStatus,
  DEV_FIRMWARE_PUBLIC_KEY_HEX,
} from '../../src/image/format.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { equalBytes } from '../../src/bytes.ts';
import { hostVerify } from '../../tools/node-crypto.ts';
import { devTechKeyWarning, firmwareKeyOption, techSeedOf } from '../key-args.ts';
import { ServiceClient, FlashError, type Progress } from '../flash-client.ts';
import { errorText, refusalText } from './service-text.ts';
import type { Identity } from '../../src/service/protocol.ts';
import { UsageError, intOf, parseCommand, reasonOf } from '../args.ts';
import { plainProgress } from '../progress.ts';
import { textTable } from '../table.ts';
import { messages } from '../../src/messages/index.ts';
import type { Lang } from '../../src/i18n.ts';

const HELP = (lang: Lang) => messages(lang).help.flash;

const DEV_KEY_HASH = toHex(sha256(fromHex(DEV_FIRMWARE_PUBLIC_KEY_HEX)));

export interface Check {
  ok: boolean;
  /** Why not, technician-facing. */
  problems: string[];
  table: string;
  sameImage: boolean;
}

/** Compares what the device says with the image; the table is the side-by-side view. */
export function compare(id: Identity, image: Uint8Array, lang: Lang): Check {
  const t = messages(lang).flash;
  const p = parseImage(image);
  if ('error' in p) return { ok: false, problems: [p.error], table: '', sameImage: false };
  const h = p.header;
  const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
  const hash = toHex(p.hash);
  const run = id.running;
  const problems: string[] = [];
  if (h.boardId !== id.boardId) problems.push(refusalText('board', lang) + ` (${hex(h.boardId)} ≠ ${hex(id.boardId)})`);
  if (h.securityCounter < id.securityCounter) {
    problems.push(refusalText('rollback', lang) + ` (${h.securityCounter} < ${id.securityCounter})`);
  }
  // A production device refuses development-signed images (it would say so at BEGIN): say it first.
  if (id.trust?.production && p.keyHash && toHex(p.keyHash) === DEV_KEY_HASH) {
    problems.push(messages(lang).flash.devKeyOnProduction);
  }
  if (run && run.pendingConfirm) {
    const inactive = id.confirmed === 'A' ? 'B' : 'A';
    if (run.slot === inactive) problems.push(refusalText('busy', lang));
  }
  const mark = (good: boolean) => (good ? '✓' : '✗');
  const rv = run ? parseVersion(run.version) : null;
  const newer = rv && !('error' in rv) ? compareVersions(h.version, rv) : 1;
  const sameHash = !!run && run.hash === hash;
  const note = newer > 0 ? t.newer : newer < 0 ? t.older : sameHash ? t.same : t.sameNumber;
  const rows: [string, string, string, string][] = [
    ['', t.device, t.image, ''],
    [t.deviceId, id.deviceId, '', ''],
    [t.board, hex(id.boardId), hex(h.boardId), mark(h.boardId === id.boardId)],
    [
      t.version,
      run ? `${run.version} (${t.slotOf(run.slot)}${run.pendingConfirm ? t.unconfirmed : ''})` : t.none,
      p.versionText,
      note,
    ],
    [t.counter, String(id.securityCounter), String(h.securityCounter), mark(h.securityCounter >= id.securityCounter)],
    ['SHA-256', run ? run.hash.slice(0, 16) + '…' : '—', hash.slice(0, 16) + '…', ''],
    ...id.slots.map(
      (s) =>
        [
          t.slot(s.slot),
          s.status === 'valid' ? `${s.version}` : s.status === 'empty' ? t.empty : t.invalid,
          '',
          '',
        ] as [string, string, string, string],
    ),
  ];
  const table = textTable(rows);
  return { ok: problems.length === 0, problems, table, sameImage: !!run && run.hash === hash && !run.pendingConfirm };
}

function fmtTime(s: number): string {
  if (!isFinite(s)) return '--:--';
  const m = Math.floor(s / 60);
  return `${m}:${String(Math.round(s % 60)).padStart(2, '0')}`;
}

function progressBar(lang: Lang, quiet = false): (p: Progress) => void {
  if (!process.stderr.isTTY) return plainProgress('', quiet);
  let last = 0;
  let base = -1;
  return (p) => {
    // Rate from what the device acknowledged (bytes merely queued to the port would flatter it).
    if (base < 0) base = p.done;
    const now = performance.now();
    if (now - last < 100 && p.done < p.total) return;
    last = now;
    const frac = p.total ? p.done / p.total : 1;
    const width = 30;
    const fill = Math.round(frac * width);
    const secs = (now - p.startedAt) / 1000;
    const rate = secs > 0 ? (p.done - base) / secs : 0;
    const left = rate > 0 ? (p.total - p.done) / rate : Infinity;
    const unit = messages(lang).flash.rate;
    const leftWord = messages(lang).flash.left;
    process.stderr.write(
      `\r[${'#'.repeat(fill)}${'-'.repeat(width - fill)}] ${String(Math.floor(frac * 100)).padStart(3)} %  ${(rate / 1000).toFixed(1)} ${unit}  ${leftWord} ${fmtTime(left)} `,
    );
    if (p.done >= p.total) process.stderr.write('\n');
  };
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    port: { type: 'string', short: 'p', multiple: true },
    ports: { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
    baud: { type: 'string', short: 'b' },
    'dry-run': { type: 'boolean' },
    'no-reboot': { type: 'boolean' },
    key: { type: 'string' },
    force: { type: 'boolean' },
    'tech-key': { type: 'string' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  const t = messages(lang).flash;
  const ports = [...new Set([...(values.port ?? []), ...(values.ports ? expandGlob(values.ports) : [])])];
  if (values.ports && ports.length === 0) {
    process.stderr.write(`saphir flash: ${t.noPortMatches(values.ports)}\n`);
    return 1;
  }
  if (ports.length === 0) throw new UsageError((m) => m.flash.portOrPorts);
  if (positionals.length !== 1) throw new UsageError((m) => m.flash.oneImage);
  const baud = values.baud === undefined ? 115200 : intOf(values.baud, '--baud', 300, 4000000);
  const key = firmwareKeyOption(values.key);
  const file = positionals[0];
  const fail = (s: string) => {
    process.stderr.write(`saphir flash: ${s}\n`);
    return 1;
  };

  let image: Uint8Array;
  try {
    image = new Uint8Array(readFileSync(file));
  } catch (e) {
    return fail(t.cannotRead(file, reasonOf(e, messages(lang))));
  }
  const p = parseImage(image);
  if ('error' in p) return fail(`${file}: ${refusalText('malformed', lang)} — ${messages(lang).image.detail(p.error)}`);
  // The device checks the signature; the file's own integrity is checked before anything is sent.
  if (!equalBytes(sha256(image.subarray(0, p.signedLength)), p.hash))
    return fail(`${file}: ${refusalText('hash', lang)}`);
  // What `saphir image inspect` checks, before anything is asked of the device: a file signed by another
  // key is refused even when the device runs an image with the same hash.
  const v = verifyImage(image, key, { verify: hostVerify });
  if (!v.ok) return fail(`${file}: ${refusalText(v.reason, lang)} — ${v.detail}`);
  // The device's BEGIN checks the header with the manifest signature: an image without one (the format
  // before 4 Dec 2026) or whose header is not the one signed is refused here first.
  const m = manifestStatus(p, key, hostVerify);
  if (m === 'absent') return fail(`${file}: ${refusalText('manifest', lang)}`);
  if (m === 'invalid')
    return fail(
      `${file}: ${refusalText('signature', lang)} — the manifest signature does not verify: not the header signed`,
    );

  const tech = techSeedOf(values['tech-key']);
  if (tech.dev) process.stderr.write(devTechKeyWarning('flash', lang));
  const opts: DeviceRun = {
    image,
    p,
    baud,
    lang,
    techSeed: tech.seed,
    force: !!values.force,
    dryRun: !!values['dry-run'],
    noReboot: !!values['no-reboot'],
    quiet: !!values.quiet,
  };
  if (ports.length === 1) return (await flashDevice(ports[0], opts)).code;
  const results = await Promise.all(ports.map((port) => flashDevice(port, { ...opts, label: port })));
  process.stdout.write(summaryTable(results, lang) + '\n');
  return results.some((r) => r.code !== 0) ? 1 : 0;
}

interface DeviceRun {
  image: Uint8Array;
  p: Extract<ReturnType<typeof parseImage>, { hash: Uint8Array }>;
  baud: number;
  lang: Lang;
  /** The technician key that opens the device's service session. */
  techSeed: Uint8Array;
  force: boolean;
  dryRun: boolean;
  noReboot: boolean;
  quiet: boolean;
  /** Set when several devices are flashed: prefixes every line, progress as plain lines. */
  label?: string;
}

export interface DeviceResult {
  port: string;
  deviceId: string;
  before: string;
  after: string;
  /** Technician-facing outcome. */
  result: string;
  ms: number;
  code: number;
}

/** `/dev/ttyUSB*`-style patterns: `*` and `?` in the last path component. */
export function expandGlob(pattern: string): string[] {
  const dir = dirname(pattern);
  const base = basename(pattern);
  const re = new RegExp(
    '^' +
      base
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.') +
      '$',
  );
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => re.test(n))
    .sort()
    .map((n) => join(dir, n));
}

export function summaryTable(rs: DeviceResult[], lang: Lang): string {
  const rows = [
    messages(lang).flash.summary,
    ...rs.map((r) => [
      r.deviceId || '?',
      r.port,
      `${r.before || '?'} → ${r.after || '?'}`,
      r.result,
      `${(r.ms / 1000).toFixed(1)} s`,
    ]),
  ];
  return textTable(rows);
}

/** One device: IDENTIFY, compare, upload, FINISH, restart. Never throws a FlashError: it is the result. */
async function flashDevice(port: string, o: DeviceRun): Promise<DeviceResult> {
  const { image, p, baud, lang } = o;
  const t = messages(lang).flash;
  const t0 = performance.now();
  const res: DeviceResult = { port, deviceId: '', before: '', after: '', result: '', ms: 0, code: 1 };
  const prefix = o.label ? `[${o.label}] ` : '';
  const say = (s: string) =>
    process.stdout.write(
      s
        .split('\n')
        .map((l) => prefix + l)
        .join('\n') + '\n',
    );
  const fail = (s: string) => {
    process.stderr.write(`saphir flash: ${prefix}${s}\n`);
    res.result = s;
    return 1;
  };
  const done = (code: number, result?: string) => {
    res.code = code;
    if (result !== undefined) res.result = result;
    res.ms = performance.now() - t0;
    return res;
  };
  const values = { 'no-reboot': o.noReboot, 'dry-run': o.dryRun, port };

  let client: ServiceClient | null = null;
  try {
    client = await ServiceClient.open(port, { baud, techSeed: o.techSeed });
    const id = await client.identify();
    res.deviceId = id.deviceId;
    res.before = id.running?.version ?? '—';
    res.after = res.before;
    const c = compare(id, image, lang);
    say(c.table);
    if (!c.ok) {
      for (const pr of c.problems) process.stderr.write(`saphir flash: ${t.refused(pr)}\n`);
      say(t.nothingWritten);
      return done(1, t.refused(c.problems.join('; ')));
    }
    if (c.sameImage && !o.force) {
      say(t.alreadyRuns);
      return done(0, t.outcome.upToDate);
    }
    if (values['dry-run']) {
      say(t.dryRun);
      return done(0, t.outcome.dryRun);
    }
    const hash = toHex(p.hash);
    const waiting = id.trial
      ? id.slots.find((s) => s.slot === id.trial && s.status === 'valid' && s.hash === hash)
      : undefined;
    let r;
    if (waiting) {
      // An earlier run wrote and verified it, then lost the line before the restart.
      say(t.waiting(waiting.slot));
      r = { slot: waiting.slot, hash, version: p.versionText, resumedFrom: image.length, sent: 0 };
    } else
      r = await client.flash(image, {
        onProgress: o.label ? plainProgress(`[${o.label}]`, o.quiet) : progressBar(lang, o.quiet),
      });
    if (!waiting && r.resumedFrom > 0) {
      say(t.resumed(r.resumedFrom));
    }
    if (!waiting) {
      say(t.written(r.version, r.slot, r.hash.slice(0, 16)));
    }
    if (values['no-reboot']) {
      say(t.nextReset);
      return done(0, t.outcome.restartPending);
    }
    await client.reboot();
    // While it restarts the device is silent, or says nothing runs yet: ask again for a few seconds.
    let after = null;
    for (let i = 0; i < 20 && !after?.running; i++) {
      await new Promise((res) => setTimeout(res, 250));
      after = await client.identify({ tries: 10, timeoutMs: 500 + client.wireMs(3000) });
    }
    const runNow = after?.running;
    res.after = runNow?.version ?? '—';
    if (!runNow || runNow.hash !== r.hash) {
      fail(t.didNotStart(runNow ? runNow.version : t.noImage));
      return done(1);
    }
    say(runNow.pendingConfirm ? t.testMode(runNow.version) : t.confirmed(runNow.version));
    return done(0, runNow.pendingConfirm ? t.outcome.testMode : t.outcome.confirmed);
  } catch (e) {
    if (e instanceof FlashError) {
      fail(errorText(e, lang, port));
      return done(1);
    }
    throw e;
  } finally {
    await client?.close();
  }
}
