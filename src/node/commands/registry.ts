// saphir registry serve | devices add|list|revoke | report — the fleet's paid-ticket registry.
import { readFileSync } from 'node:fs';
import { UsageError, intOf, parseCommand } from '../args.ts';
import { textTable } from '../table.ts';
import { openDb } from '../registry/db.ts';
import { RegistryStore } from '../registry/store.ts';
import { serveRegistry } from '../registry/server.ts';
import { testKeyRing } from '../../sph1/keys.ts';
import type { Lang } from '../../i18n.ts';
import { messages } from '../../messages/index.ts';

const HELP = (lang: Lang) => messages(lang).help.registry;

const DEFAULT_DIR = '.saphir-registry';

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
    json: { type: 'boolean' },
    since: { type: 'string' },
    'stale-days': { type: 'string' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  const t = messages(lang).registry;
  const [sub, ...rest] = positionals;
  if (values.db && values.postgres) throw new UsageError('--db and --postgres exclude each other');
  if (values.postgres && !/^postgres(ql)?:\/\//.test(values.postgres))
    throw new UsageError('--postgres takes a postgres://… URL');
  const openStore = async () =>
    new RegistryStore(await openDb({ postgres: values.postgres, dir: values.db ?? DEFAULT_DIR }), {
      keys: testKeyRing(),
      production: values.production,
    });

  if (sub === 'serve' && rest.length === 0) {
    const port = values.port === undefined ? 8750 : intOf(values.port, '--port', 0, 65535);
    const store = await openStore();
    const log = (e: Record<string, unknown>) =>
      process.stderr.write(JSON.stringify({ t: new Date().toISOString(), ...e }) + '\n');
    const srv = await serveRegistry(store, { port, host: values.host ?? '127.0.0.1', log });
    if (await store.isDevelopmentFleet()) process.stderr.write(t.dev + '\n');
    process.stdout.write(
      t.listening(srv.url, values.postgres ? 'PostgreSQL' : `PGlite ${values.db ?? DEFAULT_DIR}`) + '\n',
    );
    const prune = setInterval(() => void store.pruneNonces().catch(() => {}), 3600_000);
    prune.unref();
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    process.stderr.write(t.stopping + '\n');
    await srv.close();
    await store.db.close();
    return 0;
  }

  if (sub === 'devices') {
    const [verb, ...ids] = rest;
    if (verb === 'add' && ids.length === 2) {
      let key = ids[1];
      if (!/^[0-9a-fA-F]{64}$/.test(key)) {
        try {
          key = readFileSync(key, 'utf8').trim();
        } catch {
          throw new UsageError('PUBKEY: 64 hex digits, or a file holding them');
        }
      }
      const store = await openStore();
      try {
        await store.addDevice(ids[0], key);
      } finally {
        await store.db.close();
      }
      process.stdout.write(t.added(ids[0]) + '\n');
      return 0;
    }
    if (verb === 'revoke' && ids.length === 1) {
      const store = await openStore();
      const ok = await store.revokeDevice(ids[0]).finally(() => store.db.close());
      process.stdout.write((ok ? t.revoked(ids[0]) : t.notRevoked(ids[0])) + '\n');
      return ok ? 0 : 1;
    }
    if (verb === 'list' && ids.length === 0) {
      const store = await openStore();
      const list = await store.listDevices().finally(() => store.db.close());
      if (values.json) {
        process.stdout.write(JSON.stringify(list) + '\n');
        return 0;
      }
      if (list.length === 0) {
        process.stdout.write(t.none + '\n');
        return 0;
      }
      const rows = [
        t.cols,
        ...list.map((d) => [
          d.device_id,
          iso(d.enrolled_at),
          d.last_seen_at === null ? t.never : iso(d.last_seen_at),
          d.revoked_at === null ? t.active : t.revokedWord,
        ]),
      ];
      process.stdout.write(textTable(rows) + '\n');
      return 0;
    }
    throw new UsageError((m) => m.help.registry);
  }

  if (sub === 'report' && rest.length === 0) {
    let since = 0;
    if (values.since !== undefined) {
      since = /^\d{4}-\d{2}-\d{2}$/.test(values.since) ? Date.parse(`${values.since}T00:00:00Z`) : NaN;
      if (!Number.isFinite(since)) throw new UsageError('--since takes a date YYYY-MM-DD');
    }
    const staleDays = values['stale-days'] === undefined ? 7 : intOf(values['stale-days'], '--stale-days', 1, 3650);
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
    out.push(t.perDevice);
    for (const d of rep.per_device)
      out.push(`  ${d.device_id}  ${d.payments}  ${d.total_eur} €  (${d.offline} offline)`);
    out.push(t.perDay);
    for (const d of rep.per_day) out.push(`  ${d.day}  ${d.payments}  ${d.total_eur} €`);
    out.push(t.notSeen(rep.not_seen.days));
    for (const d of rep.not_seen.devices)
      out.push(`  ${d.device_id}  ${d.last_seen_at === null ? t.never : iso(d.last_seen_at)}`);
    process.stdout.write(out.join('\n') + '\n');
    return 0;
  }
  throw new UsageError((m) => m.help.registry);
}
