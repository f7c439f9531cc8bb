// saphir registry serve | devices add|group|list|revoke | report | campaign — the fleet's paid-ticket
// registry, its devices' health and its update campaigns.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { Failure, UsageError, intOf, parseCommand } from '../args.ts';
import { textTable } from '../table.ts';
import { openDb } from '../registry/db.ts';
import { AlreadyEnrolled, DEVICE_ID, RegistryStore, RequestError } from '../registry/store.ts';
import { readNotice } from './notice.ts';
import { signedNoticeText } from '../../src/notice.ts';
import { serveRegistry } from '../registry/server.ts';
import {
  CampaignError,
  campaignStatus,
  createCampaign,
  expireSilent,
  listCampaigns,
  parsePhases,
  setCampaignState,
  type CampaignStatus,
} from '../registry/campaigns.ts';
import { TEST_KEY_ID, testKeyRing, type KeyRing } from '../../src/sph1/keys.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import {
  DEV_DEVICE_PUBLIC_KEY_HEX,
  DEV_REGISTRY_PUBLIC_KEY_HEX,
  DEV_REGISTRY_SEED_HEX,
} from '../../src/registry/protocol.ts';
import { publicKeyArg, seedArg } from '../key-args.ts';
import { nodePublicKeyOf as publicKeyOf } from '../../tools/node-crypto.ts';
import { isTestKey, readTrustedKeyList } from '../keys.ts';
import type { Lang } from '../../src/i18n.ts';
import { messages } from '../../src/messages/index.ts';
import { untilStopped } from '../stop.ts';

const HELP = (lang: Lang) => messages(lang).help.registry;

const DEFAULT_DIR = '.saphir-registry';

/**
 * The ticket keys `serve` trusts: the published test key by default (a development registry); the
 * `--key` values instead. With `--production`, as on a production device (firmware/trust.ts), never the
 * test key (nor key id 0), and at least one key must be given.
 */
export function ticketKeys(values: string[] | undefined, production: boolean): KeyRing {
  if (!values || values.length === 0) {
    if (production) throw new UsageError((m) => m.registry.productionNeedsKey);
    return testKeyRing();
  }
  const ring = new Map(
    readTrustedKeyList(values, (one, value) => {
      if (production && [...one.values()].some(isTestKey))
        throw new UsageError((m) => m.registry.testKeyInProduction(value));
    }),
  );
  if (production) ring.delete(TEST_KEY_ID);
  if (ring.size === 0) throw new UsageError((m) => m.registry.productionNeedsKey);
  return ring;
}

/** `--since YYYY-MM-DD`: a day that exists (2027-02-31 is no day, not 3 March), as ms at 00:00 UTC. */
export function sinceOf(value: string): number {
  const r = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const ms = r ? Date.UTC(Number(r[1]), Number(r[2]) - 1, Number(r[3])) : NaN;
  if (!r || !Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== value)
    throw new UsageError((m) => m.registry.since(value));
  return ms;
}

/** The seed that signs the registry's answers: `--registry-key HEX|FILE`, else the published development one. */
export function registrySeedOf(arg: string | undefined): Uint8Array {
  if (arg === undefined) return fromHex(DEV_REGISTRY_SEED_HEX);
  return fromHex(seedArg('--registry-key', arg));
}

/** Resolves when `port` can be listened on at `host`; else rejects with the listen error (EADDRINUSE…). */
function portFree(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, host, () => s.close(() => resolve()));
  });
}

/**
 * Publishes a signed notice file for the devices' next syncs; at `serve`'s start (`atStart`) the notice
 * the registry holds already is no error.
 */
async function publish(store: RegistryStore, file: string, atStart: boolean, lang: Lang): Promise<void> {
  const s = readNotice(file);
  const latest = await store.latestNotice();
  if (atStart && latest && latest.text === signedNoticeText(s)) return;
  try {
    await store.publishNotice(signedNoticeText(s));
  } catch (e) {
    if (e instanceof RequestError) throw new Failure((m) => m.registry.noticeRefused(file, e.body.detail));
    throw e;
  }
  process.stderr.write(messages(lang).registry.noticePublished(s.notice.version, file) + '\n');
}

function iso(ms: unknown): string {
  return typeof ms === 'number' ? new Date(ms).toISOString().replace('.000Z', 'Z') : '—';
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    db: { type: 'string' },
    postgres: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    production: { type: 'boolean' },
    'rate-limit': { type: 'string' },
    'reservation-minutes': { type: 'string' },
    key: { type: 'string', multiple: true },
    'registry-key': { type: 'string' },
    json: { type: 'boolean' },
    since: { type: 'string' },
    'stale-days': { type: 'string' },
    name: { type: 'string' },
    group: { type: 'string' },
    phases: { type: 'string' },
    'max-failures': { type: 'string' },
    'device-deadline': { type: 'string' },
    retries: { type: 'string' },
    images: { type: 'string' },
    notice: { type: 'string' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  const t = messages(lang).registry;
  const [sub, ...rest] = positionals;
  if (values.db && values.postgres) throw new UsageError((m) => m.registry.bothDb);
  if (values.postgres && !/^postgres(ql)?:\/\//.test(values.postgres))
    throw new UsageError((m) => m.registry.postgresUrl);
  if (
    sub !== 'serve' &&
    (values.key !== undefined ||
      values.production ||
      values['rate-limit'] !== undefined ||
      values['reservation-minutes'] !== undefined ||
      values['registry-key'] !== undefined)
  )
    throw new UsageError((m) => m.registry.keyOnlyServe);
  // Only `serve` checks tickets: the other commands never read its keys.
  const keys = sub === 'serve' ? ticketKeys(values.key, !!values.production) : testKeyRing();
  const rate = values['rate-limit'] === undefined ? 5 : intOf(values['rate-limit'], '--rate-limit', 0, 100_000);
  const reservationMin =
    values['reservation-minutes'] === undefined
      ? undefined
      : intOf(values['reservation-minutes'], '--reservation-minutes', 1, 10_080);
  const dir = values.db ?? DEFAULT_DIR;
  // `serve` and `devices add` create a database; the readers (report, list, revoke) refuse a missing
  // one: a mistyped --db is said instead of read as an empty registry.
  const reads =
    sub === 'report' ||
    sub === 'campaign' ||
    (sub === 'notice' && rest[0] === 'show') ||
    (sub === 'devices' && ['list', 'revoke', 'group'].includes(rest[0]));
  const staleDays = values['stale-days'] === undefined ? 7 : intOf(values['stale-days'], '--stale-days', 1, 3650);
  if (reads && !values.postgres && !existsSync(dir)) throw new Failure((m) => m.registry.noDb(dir));
  // `--images DIR` (serve, campaign create): checked once, before a database is opened or a notice published.
  const imagesDir =
    values.images !== undefined && (sub === 'serve' || (sub === 'campaign' && rest[0] === 'create'))
      ? imagesDirOf(values.images)
      : undefined;
  const openStore = async () =>
    new RegistryStore(await openDb({ postgres: values.postgres, dir }), {
      keys,
      production: values.production,
      rateLimit: rate > 0 ? { perSecond: rate, burst: 4 * rate } : undefined,
      reservationMs: reservationMin === undefined ? undefined : reservationMin * 60_000,
    });

  if (sub === 'serve' && rest.length === 0) {
    const port = values.port === undefined ? 8750 : intOf(values.port, '--port', 0, 65535);
    const registrySeed = registrySeedOf(values['registry-key']);
    const registryPub = toHex(publicKeyOf(registrySeed));
    // A production registry signs with its own key: the published one would let anyone forge its answers.
    if (values.production && registryPub === DEV_REGISTRY_PUBLIC_KEY_HEX)
      throw new UsageError((m) => m.registry.productionNeedsRegistryKey);
    const host = values.host ?? '127.0.0.1';
    // A port in use is said at once, before a new database is made (seconds of CPU with PGlite).
    if (port !== 0) await portFree(port, host);
    const store = await openStore();
    const log = (e: Record<string, unknown>) =>
      process.stderr.write(JSON.stringify({ t: new Date().toISOString(), ...e }) + '\n');
    if (values.notice !== undefined)
      await publish(store, values.notice, true, lang).catch(async (e: unknown) => {
        await store.db.close().catch(() => {});
        throw e;
      });
    // A port in use (or any failure to listen) closes the database, so that the process ends.
    const srv = await serveRegistry(store, { port, host, log, registrySeed, staleDays, imagesDir }).catch(
      async (e: unknown) => {
        await store.db.close().catch(() => {});
        throw e;
      },
    );
    process.stderr.write(t.registryKey(registryPub, registryPub === DEV_REGISTRY_PUBLIC_KEY_HEX) + '\n');
    if (await store.isDevelopmentFleet()) process.stderr.write(t.dev + '\n');
    if ([...keys.values()].some(isTestKey)) process.stderr.write(t.testKeys + '\n');
    else process.stderr.write(t.ticketKeys(new Set([...keys.values()].map(toHex)).size) + '\n');
    const { stopped } = untilStopped(); // (before the line that says the server listens)
    process.stdout.write(
      t.listening(srv.url, values.postgres ? 'PostgreSQL' : `PGlite ${values.db ?? DEFAULT_DIR}`) + '\n',
    );
    const prune = setInterval(() => void store.pruneNonces().catch(() => {}), 3600_000);
    prune.unref();
    await stopped;
    process.stderr.write(t.stopping + '\n');
    await srv.close();
    await store.db.close();
    return 0;
  }

  if (sub === 'notice') {
    const [verb, ...files] = rest;
    if (verb === 'publish' && files.length === 1) {
      const store = await openStore();
      await publish(store, files[0], false, lang).finally(() => store.db.close());
      return 0;
    }
    if (verb === 'show' && files.length === 0) {
      const store = await openStore();
      const n = await store.latestNotice().finally(() => store.db.close());
      if (values.json)
        process.stdout.write(
          JSON.stringify(n && { version: n.version, published_at: n.published_at, ...JSON.parse(n.text) }) + '\n',
        );
      else
        process.stdout.write((n ? t.noticeLatest(n.version, iso(n.published_at)) + '\n' + n.text : t.noNotice) + '\n');
      return 0;
    }
    throw new UsageError((m) => m.help.registry);
  }

  if (sub === 'devices') {
    const [verb, ...ids] = rest;
    if (verb === 'add' && ids.length === 2) {
      const id = ids[0];
      if (!DEVICE_ID.test(id)) throw new UsageError((m) => m.registry.deviceId(id));
      // 64 hex digits or a key file, read as every key option is (a seed in the file gives its public key).
      let key: string;
      try {
        key = toHex(publicKeyArg('CLÉ', ids[1]));
      } catch {
        throw new UsageError((m) => m.registry.pubkey(ids[1]));
      }
      // Refused on every registry: enrolled, the published key would speak for this id to anyone.
      if (key.toLowerCase() === DEV_DEVICE_PUBLIC_KEY_HEX) throw new UsageError((m) => m.registry.devKeyEnrol(id));
      const store = await openStore();
      try {
        await store.addDevice(id, key);
        if (values.group) await store.setGroup(id, values.group);
      } catch (e) {
        if (e instanceof AlreadyEnrolled) throw new Failure((m) => m.registry.already(id));
        throw e;
      } finally {
        await store.db.close();
      }
      process.stdout.write(t.added(ids[0]) + '\n');
      return 0;
    }
    if (verb === 'group' && ids.length === 2) {
      const store = await openStore();
      const ok = await store.setGroup(ids[0], ids[1]).finally(() => store.db.close());
      process.stdout.write((ok ? t.groupSet(ids[0], ids[1]) : t.notRevoked(ids[0])) + '\n');
      return ok ? 0 : 1;
    }
    if (verb === 'revoke' && ids.length === 1) {
      const store = await openStore();
      const ok = await store.revokeDevice(ids[0]).finally(() => store.db.close());
      process.stdout.write((ok ? t.revoked(ids[0]) : t.notRevoked(ids[0])) + '\n');
      return ok ? 0 : 1;
    }
    if (verb === 'list' && ids.length === 0) {
      const store = await openStore();
      const list = await store.listDevices({ staleDays }).finally(() => store.db.close());
      if (values.json) {
        process.stdout.write(JSON.stringify(list) + '\n');
        return 0;
      }
      if (list.length === 0) {
        process.stdout.write(t.none + '\n');
        return 0;
      }
      const rows = [
        t.healthCols,
        ...list.map((d) => {
          const h = d.health;
          return [
            d.device_id + (d.group_name ? ` (${d.group_name})` : ''),
            d.last_seen_at === null ? t.never : iso(d.last_seen_at),
            d.revoked_at !== null
              ? t.revokedWord
              : d.stale
                ? t.stale(staleDays)
                : d.enrolled_at === null
                  ? t.notEnrolled
                  : t.active,
            ...(h
              ? [
                  h.fw,
                  h.slot,
                  String(h.notice),
                  String(h.ledger),
                  String(h.outbox),
                  h.boot,
                  t.uptime(h.up),
                  String(h.errors),
                ]
              : Array(8).fill('—')),
          ];
        }),
      ];
      process.stdout.write(textTable(rows) + '\n');
      return 0;
    }
    throw new UsageError((m) => m.help.registry);
  }

  if (sub === 'report' && rest.length === 0) {
    const since = values.since === undefined ? 0 : sinceOf(values.since);
    const store = await openStore();
    const rep = await store.report({ since, staleDays }).finally(() => store.db.close());
    if (values.json) {
      process.stdout.write(JSON.stringify(rep) + '\n');
      return 0;
    }
    const out = [
      t.totals(Number(rep.totals.payments), Number(rep.totals.total_eur)),
      t.conflicts(rep.conflicts.length),
    ];
    for (const c of rep.conflicts) out.push(t.conflictLine(c, iso(c.first_paid_at), iso(c.paid_at)));
    out.push(t.regrants(rep.regrants.length));
    for (const c of rep.regrants) out.push(t.regrantLine(c, iso(c.confirmed_at ?? c.paid_at), iso(c.asked_at)));
    out.push(t.released(rep.released.length));
    for (const c of rep.released) out.push(t.releasedLine(c, iso(c.reserved_at), iso(c.released_at)));
    out.push(t.perDevice);
    for (const d of rep.per_device)
      out.push(`  ${d.device_id}  ${d.payments}  ${d.total_eur} €  (${t.offline(Number(d.offline))})`);
    out.push(t.perDay);
    for (const d of rep.per_day) out.push(`  ${d.day}  ${d.payments}  ${d.total_eur} €`);
    out.push(t.notSeen(rep.not_seen.days));
    for (const d of rep.not_seen.devices)
      out.push(`  ${d.device_id}  ${d.last_seen_at === null ? t.never : iso(d.last_seen_at)}`);
    process.stdout.write(out.join('\n') + '\n');
    return 0;
  }

  if (sub === 'campaign') return campaign(rest, values, imagesDir, openStore, lang);
  throw new UsageError((m) => m.help.registry);
}

/** `--images DIR`: a folder that exists (campaign images kept as files there). */
function imagesDirOf(dir: string): string {
  let ok = false;
  try {
    ok = statSync(dir).isDirectory();
  } catch {
    // said below
  }
  if (!ok) throw new Failure((m) => m.registry.imagesDir(dir));
  return dir;
}

/** `campaign create IMAGE --name N …`, `campaign status [NAME]`, `campaign pause|resume|abort NAME`. */
async function campaign(
  rest: string[],
  values: {
    name?: string;
    group?: string;
    phases?: string;
    'max-failures'?: string;
    'device-deadline'?: string;
    retries?: string;
    json?: boolean;
  },
  imagesDir: string | undefined,
  openStore: () => Promise<RegistryStore>,
  lang: Lang,
): Promise<number> {
  const t = messages(lang).registry;
  const [verb, ...args] = rest;
  const usage = () => new UsageError((m) => m.registry.campaignUsage);
  let image: Uint8Array | null = null;
  let phases: number[] = [];
  let maxFailures = 1;
  let deviceDeadlineMs = 0;
  let retries = 0;
  if (verb === 'create') {
    if (args.length !== 1 || !values.name) throw usage();
    try {
      phases = parsePhases(values.phases ?? '1,10,100');
    } catch (e) {
      throw new UsageError((m) => m.registry.campaignError((e as Error).message));
    }
    maxFailures =
      values['max-failures'] === undefined ? 1 : intOf(values['max-failures'], '--max-failures', 1, 100_000);
    if (values['device-deadline'] !== undefined)
      deviceDeadlineMs = intOf(values['device-deadline'], '--device-deadline', 1, 24 * 365) * 3_600_000;
    if (values.retries !== undefined) retries = intOf(values.retries, '--retries', 0, 100);
    try {
      image = readFileSync(args[0]);
    } catch (e) {
      throw new Failure((m) => m.registry.campaignFile(args[0], (e as Error).message));
    }
    if (image.length > 512 * 1024) throw new Failure((m) => m.registry.campaignFile(args[0], 'over 512 KiB (a slot)'));
  } else if (verb === 'status' ? args.length > 1 : !['pause', 'resume', 'abort'].includes(verb) || args.length !== 1)
    throw usage();
  const store = await openStore();
  const now = Date.now();
  const say = (c: CampaignStatus) => {
    const out = [t.campaignHead(c)];
    for (const p of c.per_phase)
      out.push(
        t.campaignPhase(
          p.phase,
          p.devices,
          Object.entries(p.states)
            .map(([k, n]) => `${n} ${k}`)
            .join(', '),
        ),
      );
    for (const d of c.devices) if (d.state !== 'pending') out.push(t.campaignDevice(d.device_id, d.state, d.detail));
    return out.join('\n') + '\n';
  };
  try {
    if (verb === 'create') {
      const c = await store.db.tx((q) =>
        createCampaign(q, {
          name: values.name!,
          image: image!,
          group: values.group,
          phases,
          maxFailures,
          deviceDeadlineMs,
          retries,
          imagesDir,
          now,
        }),
      );
      process.stdout.write(
        values.json
          ? JSON.stringify(c) + '\n'
          : t.campaignCreated(c.name, c.version, c.devices.length, c.phases) + '\n',
      );
      return 0;
    }
    // Fleet-wide, once: the devices past their deadline fail before any campaign is read.
    if (verb === 'status') await store.db.tx((q) => expireSilent(q, now));
    if (verb === 'status' && args.length === 0) {
      const all = await listCampaigns(store.db);
      const full = [];
      for (const c of all) full.push((await campaignStatus(store.db, c.name))!);
      if (values.json) process.stdout.write(JSON.stringify(full) + '\n');
      else process.stdout.write(full.length ? full.map(say).join('') : t.campaignNone + '\n');
      return 0;
    }
    const name = args[0];
    if (verb !== 'status') {
      const state = await store.db.tx((q) => setCampaignState(q, name, verb as 'pause' | 'resume' | 'abort', now));
      process.stdout.write(t.campaignState(name, state) + '\n');
      return 0;
    }
    const c = await campaignStatus(store.db, name);
    if (!c) throw new CampaignError('unknown', `no campaign ${name}`);
    process.stdout.write(values.json ? JSON.stringify(c) + '\n' : say(c));
    return 0;
  } catch (e) {
    if (e instanceof CampaignError) throw new Failure((m) => m.registry.campaignError(e.message));
    throw e;
  } finally {
    await store.db.close();
  }
}
