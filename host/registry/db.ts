// One small database interface over PGlite (embedded, PostgreSQL in WebAssembly) and node-postgres
// (a real server): the registry's SQL runs unchanged on both. Migrations are versioned and applied at
// open; two processes opening one PostgreSQL database at once both succeed (the version's primary key
// decides). A PGlite directory is one process's: it is locked while open (dir-lock.ts).
import { setFlagsFromString } from 'node:v8';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Failure, reasonOf } from '../args.ts';
import { DirLocked, LOCK_FILE, lockDir, type DirLock } from './dir-lock.ts';
import { writeWhole } from '../../tools/write-whole.ts';

export interface Query {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

export interface Db extends Query {
  /** Runs `fn` in one transaction: committed when it returns, rolled back when it throws. */
  tx<T>(fn: (q: Query) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  readonly kind: 'pglite' | 'postgres';
}

/** What a payment and a conflict both record (stated once; migration 1's text is as shipped). */
const CLAIM_COLUMNS = `emission    INTEGER NOT NULL,
     block       INTEGER NOT NULL,
     number      BIGINT NOT NULL,
     device_id   TEXT NOT NULL,
     prize_eur   INTEGER NOT NULL,
     paid_at     BIGINT NOT NULL,
     recorded_at BIGINT NOT NULL,`;

/** The schema, one migration an entry; never edit a shipped one, add the next. See docs/registry.md. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE devices (
     device_id   TEXT PRIMARY KEY,
     public_key  TEXT NOT NULL,
     enrolled_at BIGINT NOT NULL,
     revoked_at  BIGINT
   );
   CREATE TABLE device_seen (
     device_id    TEXT PRIMARY KEY,
     last_seen_at BIGINT NOT NULL
   );
   CREATE TABLE nonces (
     device_id TEXT NOT NULL,
     nonce     TEXT NOT NULL,
     seen_at   BIGINT NOT NULL,
     PRIMARY KEY (device_id, nonce)
   );
   CREATE TABLE payments (
     ${CLAIM_COLUMNS}
     online      BOOLEAN NOT NULL,
     PRIMARY KEY (emission, block, number)
   );
   CREATE INDEX payments_by_device ON payments (device_id, paid_at);
   CREATE TABLE conflicts (
     ${CLAIM_COLUMNS}
     PRIMARY KEY (emission, block, number, device_id)
   );`,
  // Two-phase claims: a claim reserves (confirmed_at NULL), the device's sync after paying confirms.
  // Offline payments were confirmed payments already. A holder asking again for a confirmed ticket is
  // refused and recorded in regrants (a rolled-back or cloned device).
  `ALTER TABLE payments ADD COLUMN confirmed_at BIGINT;
   UPDATE payments SET confirmed_at = recorded_at WHERE NOT online;
   CREATE TABLE regrants (
     emission  INTEGER NOT NULL,
     block     INTEGER NOT NULL,
     number    BIGINT NOT NULL,
     device_id TEXT NOT NULL,
     asked_at  BIGINT NOT NULL,
     PRIMARY KEY (emission, block, number, device_id, asked_at)
   );`,
  // Health (each sync's, the latest a device), device groups, update campaigns and their images (chunks
  // as rows: a chunk served is one indexed read). See docs/registry.md, "Health" and "Update campaigns".
  `ALTER TABLE devices ADD COLUMN group_name TEXT;
   CREATE TABLE device_health (
     device_id   TEXT PRIMARY KEY,
     reported_at BIGINT NOT NULL,
     fw_version  TEXT NOT NULL,
     slot        TEXT NOT NULL,
     image_hash  TEXT NOT NULL,
     notice      INTEGER NOT NULL,
     ledger      INTEGER NOT NULL,
     outbox      INTEGER NOT NULL,
     boot_reason TEXT NOT NULL,
     uptime_s    BIGINT NOT NULL,
     errors      INTEGER NOT NULL
   );
   CREATE TABLE images (
     hash             TEXT PRIMARY KEY,
     version          TEXT NOT NULL,
     security_counter INTEGER NOT NULL,
     size             INTEGER NOT NULL,
     manifest         TEXT NOT NULL,
     path             TEXT,
     added_at         BIGINT NOT NULL
   );
   CREATE TABLE image_chunks (
     hash TEXT NOT NULL,
     idx  INTEGER NOT NULL,
     data BYTEA NOT NULL,
     PRIMARY KEY (hash, idx)
   );
   CREATE TABLE campaigns (
     name         TEXT PRIMARY KEY,
     image_hash   TEXT NOT NULL,
     group_name   TEXT,
     phases       TEXT NOT NULL,
     max_failures INTEGER NOT NULL,
     state        TEXT NOT NULL,
     phase        INTEGER NOT NULL,
     created_at   BIGINT NOT NULL,
     updated_at   BIGINT NOT NULL
   );
   CREATE TABLE campaign_devices (
     campaign   TEXT NOT NULL,
     device_id  TEXT NOT NULL,
     phase      INTEGER NOT NULL,
     state      TEXT NOT NULL,
     detail     TEXT,
     updated_at BIGINT NOT NULL,
     PRIMARY KEY (campaign, device_id)
   );`,
  // The device's time of payment as its confirmation gave it (a second, different one: paid twice), and
  // what each regrant was: refused (DÉJÀ PAYÉ), reserved (granted again before any confirmation), or
  // paid-twice (the holder confirmed a second payment of the ticket).
  `ALTER TABLE payments ADD COLUMN device_paid_at BIGINT;
   UPDATE payments SET device_paid_at = paid_at WHERE NOT online;
   ALTER TABLE regrants ADD COLUMN kind TEXT NOT NULL DEFAULT 'refused';`,
  // Operator notices (docs/operations.md): each signed notice published, by version; devices get the latest.
  `CREATE TABLE notices (
     version      BIGINT PRIMARY KEY,
     body         TEXT NOT NULL,
     published_at BIGINT NOT NULL
   );`,
  // Each offline payment a conflict (issue #30, explorer schedule 205): a clone paying a ticket under its
  // original's id, besides the original, is a second row, told apart by the device's time of payment (the
  // same payment retried keeps its time). A paid-twice regrant is recorded once per payment time too
  // (only those carry device_paid_at; NULLs never collide in a unique index).
  `ALTER TABLE conflicts DROP CONSTRAINT conflicts_pkey;
   ALTER TABLE conflicts ADD PRIMARY KEY (emission, block, number, device_id, paid_at);
   ALTER TABLE regrants ADD COLUMN device_paid_at BIGINT;
   CREATE UNIQUE INDEX regrants_paid_twice ON regrants (emission, block, number, device_id, device_paid_at);`,
  // A development fleet's own device keys (issue #30 item 7): a simulator run enrols the key it made
  // (POST /v1/enrol, signed by that key); not `devices`, so the fleet stays a development one.
  `CREATE TABLE dev_keys (
     device_id   TEXT PRIMARY KEY,
     public_key  TEXT NOT NULL,
     enrolled_at BIGINT NOT NULL
   );`,
  // A campaign's per-device deadline and download retries (issue #31): a device of a running phase that
  // says nothing of the image within device_deadline_ms (0: none) of its phase's start or of its last step
  // fails; a failed download is ordered again up to `retries` times. phase_at: when the phase started or
  // the campaign resumed.
  `ALTER TABLE campaigns ADD COLUMN device_deadline_ms BIGINT NOT NULL DEFAULT 0;
   ALTER TABLE campaigns ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE campaigns ADD COLUMN phase_at BIGINT NOT NULL DEFAULT 0;
   ALTER TABLE campaign_devices ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;`,
  // Bounded reservations (issue #30): a claim reserved and not confirmed within the reservation is
  // granted to another device's claim; each release is kept for the payment centre (registry report).
  `CREATE TABLE released (
     emission     INTEGER NOT NULL,
     block        INTEGER NOT NULL,
     number       BIGINT NOT NULL,
     device_id    TEXT NOT NULL,
     reserved_at  BIGINT NOT NULL,
     released_at  BIGINT NOT NULL,
     to_device_id TEXT NOT NULL,
     PRIMARY KEY (emission, block, number, reserved_at)
   );`,
];

/**
 * Every table the migrations create (not schema_migrations, their own bookkeeping): what a reset empties
 * (the embedded registry's, the tests' shared database). A new migration's table goes here too;
 * test/registry/reset.test.ts reads the catalog and fails on one left out.
 */
export const REGISTRY_TABLES: readonly string[] = [
  'devices',
  'device_seen',
  'nonces',
  'payments',
  'conflicts',
  'regrants',
  'device_health',
  'images',
  'image_chunks',
  'campaigns',
  'campaign_devices',
  'notices',
  'dev_keys',
  'released',
];

/** Empties every registry table: a fresh registry on the same database (its migrations stay applied). */
export async function emptyRegistry(q: Query): Promise<void> {
  await q.query(`TRUNCATE ${REGISTRY_TABLES.join(', ')}`);
}

async function migrate(db: Db): Promise<void> {
  await db.query(
    `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`,
  );
  for (let v = 1; v <= MIGRATIONS.length; v++) {
    await db.tx(async (q) => {
      const claimed = await q.query(
        `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING version`,
        [v, Date.now()],
      );
      if (claimed.rows.length === 0) return; // applied before (or by a process starting beside us)
      for (const stmt of MIGRATIONS[v - 1].split(/;\s*(?:\n|$)/)) if (stmt.trim()) await q.query(stmt);
    });
  }
}

/** mkdir -p one level at a time: Node's recursive mode loops for ever where mkdir says ENOENT (/proc/x). */
function makeDirs(dir: string): void {
  const parent = dirname(dir);
  if (parent !== dir && !existsSync(parent)) makeDirs(parent);
  mkdirSync(dir);
}

/**
 * `dir` for PGlite: a file, or a directory holding other files and no database, is refused (the user
 * mistyped a path); a new directory is created. The directory is locked for as long as it is open
 * (host/registry/dir-lock.ts): PGlite is one process's database. `fresh`: it holds no database yet.
 */
function preparePgliteDir(dir: string): { lock: DirLock; fresh: boolean } {
  try {
    const st = statSync(dir, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) throw new Failure((m) => m.registry.dbIsFile(dir));
    if (!st) makeDirs(dir);
  } catch (e) {
    if (e instanceof Failure) throw e;
    throw new Failure((m) => m.registry.cannotOpen(dir, reasonOf(e, m)));
  }
  let lock: DirLock;
  try {
    lock = lockDir(dir);
  } catch (e) {
    if (e instanceof DirLocked) throw new Failure((m) => m.registry.locked(dir, e.pid ?? '?', e.lockFile));
    throw new Failure((m) => m.registry.cannotOpen(dir, reasonOf(e, m)));
  }
  const others = readdirSync(dir).filter((f) => !f.startsWith(LOCK_FILE));
  const fresh = !others.includes('PG_VERSION');
  if (others.length > 0 && fresh) {
    lock.release();
    throw new Failure((m) => m.registry.notDb(dir));
  }
  return { lock, fresh };
}

/** The dumps this process read (a fresh cluster is ~40 MB, its 16 MB WAL segment included), by file. */
const dumps = new Map<string, { stamp: string; bytes: Uint8Array }>();

/**
 * SAPHIR_PGLITE_TEMPLATE=FILE (the test runner sets it): a new database starts from FILE, a dump of a
 * freshly initialised one (0.5 s of CPU, not the 2 to 5 s of PGlite's initdb), written there by the first
 * new database when FILE is missing. The schema is migrated after, as ever. Beside FILE, named by the
 * migrations' text (`FILE-KEY.tar`, the folder `FILE-KEY`), the first new database migrated (in memory, in
 * a folder) leaves itself as it is then, empty and migrated: the next new ones start from that, a folder
 * as a copy of the folder (0.3 s of CPU, not 1 s through PGlite's dump); their migrations find nothing to do.
 * A dump is read once per process (again when its file changes) and PGlite untars a copy of its bytes: a
 * Blob of it would cost two more copies of 40 MB, read back in chunks (an in-memory database from the
 * migrated dump 1.0 → 0.5 s of CPU).
 */
function readTemplate(file: string): Blob | undefined {
  try {
    const st = statSync(file);
    const stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    let dump = dumps.get(file);
    if (dump?.stamp !== stamp) {
      dump = { stamp, bytes: readFileSync(file) };
      dumps.set(file, dump);
    }
    const bytes = dump.bytes; // (a Buffer: its slice() is a view)
    // What PGlite's loadDataDir reads of a Blob: its type, size and bytes.
    return {
      type: 'application/x-tar',
      size: bytes.length,
      arrayBuffer: async () => new Uint8Array(bytes).buffer,
    } as Pick<Blob, 'type' | 'size' | 'arrayBuffer'> as Blob;
  } catch {
    return undefined; // none yet: this database makes it
  }
}

async function writeTemplate(file: string, pg: { dumpDataDir(c: 'none'): Promise<Blob | File> }): Promise<void> {
  try {
    // Whole or absent for the others.
    writeWhole(file, new Uint8Array(await (await pg.dumpDataDir('none')).arrayBuffer()));
  } catch {
    // No template: the next database runs initdb too.
  }
}

/** `FILE-KEY`: the migrated template of FILE for these migrations (KEY: a digest of their text). */
function migratedTemplate(template: string): string {
  const key = createHash('sha256').update(MIGRATIONS.join('\0')).digest('hex').slice(0, 12);
  return `${template}-${key}`;
}

/** Migrated templates of FILE for other migrations (40 MB each), removed when this one is made. */
function dropOtherTemplates(template: string, migrated: string): void {
  const name = basename(template);
  try {
    for (const f of readdirSync(dirname(template)))
      if (
        /^-[0-9a-f]{12}(\.tar)?$/.test(f.slice(name.length)) &&
        f.startsWith(name) &&
        !f.startsWith(basename(migrated))
      )
        rmSync(join(dirname(template), f), { recursive: true, force: true });
  } catch {
    // left for later
  }
}

/** The folder `from` (a closed database) copied whole to `to`, but for its lock. */
function writeTemplateDir(from: string, to: string): void {
  const tmp = `${to}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    cpSync(from, tmp, { recursive: true, filter: (f) => !basename(f).startsWith(LOCK_FILE) });
    renameSync(tmp, to); // whole or absent for the others; one made by another process meanwhile stays
  } catch {
    // no folder template: the next new folder loads the dump
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// (WebAssembly is a Node global; this project's ES2020 library declares no value for it.)
const Wasm = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object } }).WebAssembly;
let liftoff: { pglite: object; initdb: object } | undefined;

/**
 * SAPHIR_PGLITE_LIFTOFF=1 (the test runner sets it): PGlite's WebAssembly compiled once in this process by
 * V8's baseline compiler alone, never optimised, for every database opened here. A test's database lives
 * seconds, less than the optimising compile costs (an embedded registry's start 1.8 → 1.3 s of CPU, a
 * reset 0.5 → 0.03 s, a `registry … --db` process 1.5 → 0.6 s). Other WebAssembly (the device's QuickJS)
 * is optimised as ever (`compileOnLiftoff`).
 */
function liftoffModules(): typeof liftoff {
  if (process.env.SAPHIR_PGLITE_LIFTOFF !== '1') return undefined;
  if (!liftoff) {
    const dist = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
    const [pglite, initdb] = compileOnLiftoff([
      readFileSync(join(dist, 'pglite.wasm')),
      readFileSync(join(dist, 'initdb.wasm')),
    ]);
    liftoff = { pglite, initdb };
  }
  return liftoff;
}

/**
 * Modules whose code is V8's baseline compiler's (Liftoff) for good, in a process whose other WebAssembly
 * is optimised as ever. Under --liftoff-only, a lazy compile would leave each function to be compiled at
 * its first call, with the flags of that moment, and tiered up; and --liftoff-only turns tier-up off, which
 * turning it off again does not undo: every module compiled after would stay on Liftoff (a worker's QuickJS
 * ~2× slower after a registry test, 6 Dec). So every function is compiled now (~0.45 s of CPU for PGlite's
 * 9 MB) and the flags are all put back. In a process that runs on Liftoff from its start (bin/saphir.mjs
 * under SAPHIR_WASM_LIFTOFF=1), the compile stays lazy and each function is validated when first called
 * (PGlite's compile 120 → 80 ms of CPU: a process calls a fraction of it).
 */
export function compileOnLiftoff(wasm: Uint8Array[]): object[] {
  const whole = !(globalThis as Record<symbol, unknown>)[Symbol.for('saphir.liftoff')];
  setFlagsFromString('--liftoff-only');
  setFlagsFromString(whole ? '--no-wasm-lazy-compilation' : '--wasm-lazy-validation');
  try {
    return wasm.map((bytes) => new Wasm.Module(bytes));
  } finally {
    if (whole) {
      for (const f of ['--no-liftoff-only', '--wasm-tier-up', '--wasm-dynamic-tiering', '--wasm-lazy-compilation'])
        setFlagsFromString(f);
    } else setFlagsFromString('--no-wasm-lazy-validation');
  }
}

/**
 * SAPHIR_PGLITE_SHARED_BUFFERS=SIZE (the test runner sets 16MB): PostgreSQL's buffer cache for the databases
 * opened here, instead of the 128 MB every start zeroes (a reopen 0.27 → 0.15 s of CPU, a `registry … --db`
 * process 0.1 s less). A test's database is a few pages.
 */
function startParams(defaults: readonly string[]): string[] | undefined {
  const size = process.env.SAPHIR_PGLITE_SHARED_BUFFERS;
  return size ? [...defaults, '-c', `shared_buffers=${size}`] : undefined;
}

/** Opens PGlite with its data in `dir` (in memory when `dir` is undefined), locked while open. */
export async function openPglite(dir?: string): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  const prepared = dir === undefined ? { lock: null, fresh: true } : preparePgliteDir(dir);
  const lock = prepared.lock;
  const template = process.env.SAPHIR_PGLITE_TEMPLATE;
  const migrated = template ? migratedTemplate(template) : '';
  // What this new database leaves for the next (below): a dump in memory, a copy of its folder.
  let leave: 'dump' | 'folder' | null = null;
  let pg: InstanceType<typeof PGlite>;
  const options = () => {
    const wasm = liftoffModules();
    return {
      pgliteWasmModule: wasm?.pglite as never,
      initdbWasmModule: wasm?.initdb as never,
      startParams: startParams(PGlite.defaultStartParams),
    };
  };
  let o: ReturnType<typeof options> | undefined;
  try {
    o = options();
    let fresh = !!template && prepared.fresh;
    if (fresh && dir !== undefined) {
      if (existsSync(join(migrated, 'PG_VERSION'))) {
        try {
          cpSync(migrated, dir, { recursive: true });
          fresh = false; // a database now, migrated
        } catch {
          for (const f of readdirSync(dir)) if (!f.startsWith(LOCK_FILE)) rmSync(join(dir, f), { recursive: true });
        }
      } else leave = 'folder';
    }
    const migratedDump = fresh ? readTemplate(`${migrated}.tar`) : undefined;
    if (fresh && dir === undefined && !migratedDump) leave = 'dump';
    const loadDataDir = fresh ? (migratedDump ?? readTemplate(template!)) : undefined;
    pg = dir === undefined ? new PGlite({ ...o, loadDataDir }) : new PGlite(dir, { ...o, loadDataDir });
    await pg.waitReady;
    if (fresh && !loadDataDir) await writeTemplate(template!, pg);
  } catch (e) {
    lock?.release();
    // PGlite throws objects that are no Error (its WebAssembly file system's errors).
    throw new Failure((m) => m.registry.cannotOpen(dir ?? ':memory:', reasonOf(e, m)));
  }
  const db: Db = {
    kind: 'pglite',
    query: (sql, params) => pg.query(sql, params) as never,
    // PGlite has one connection: its transaction() holds it for the whole function.
    tx: (fn) => pg.transaction((t) => fn({ query: (sql, params) => t.query(sql, params) as never })),
    close: async () => {
      try {
        await pg.close();
      } finally {
        lock?.release();
      }
    },
  };
  try {
    await migrate(db);
    if (leave) dropOtherTemplates(template!, migrated);
    if (leave === 'dump') await writeTemplate(`${migrated}.tar`, pg);
    if (leave === 'folder') {
      // Closed to be copied (the lock stays held), then opened again.
      await pg.close();
      writeTemplateDir(dir!, migrated);
      pg = new PGlite(dir!, o!);
      await pg.waitReady;
    }
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
  return db;
}

/** Connects to PostgreSQL (`postgres://…`) through a pool of `max` connections. */
export async function openPostgres(url: string, max = 20): Promise<Db> {
  const { default: pg } = await import('pg');
  // BIGINT comes back as text by default; every BIGINT here is < 2^53 (ms times, ticket numbers).
  pg.types.setTypeParser(20, (v: string) => Number(v));
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => {}); // an idle client's error is reported by the next query that needs it
  const db: Db = {
    kind: 'postgres',
    query: (sql, params) => pool.query(sql, params) as never,
    async tx(fn) {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        const r = await fn({ query: (sql, params) => c.query(sql, params) as never });
        await c.query('COMMIT');
        return r;
      } catch (e) {
        await c.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        c.release();
      }
    },
    close: () => pool.end(),
  };
  await migrate(db);
  return db;
}

export function openDb(opts: { postgres?: string; dir?: string }): Promise<Db> {
  return opts.postgres ? openPostgres(opts.postgres) : openPglite(opts.dir);
}
