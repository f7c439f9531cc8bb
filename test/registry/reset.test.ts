// A reset (the embedded registry's, between the fleet explorer's schedules; the tests' shared database,
// between cases) leaves no row in any table the migrations create: the tables are read from the catalog,
// so a table a new migration adds and REGISTRY_TABLES leaves out turns this red.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite, type Query } from '../../host/registry/db.ts';
import { startEmbeddedRegistry } from '../../host/registry/embedded.ts';
import { enrolDevelopmentKey, postRegistry } from '../../host/registry/client.ts';
import { fromHex } from '../../src/hex.ts';
import { nodeSign } from '../../tools/node-crypto.ts';
import { dev, ownKey, win } from './cases.ts';
import { sharedDb } from './shared-db.ts';
import { longTest } from '../helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-reset-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** Every table of the database but the migrations' bookkeeping, from the catalog. */
async function tables(q: Query): Promise<string[]> {
  const r = await q.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'
      ORDER BY table_name`,
  );
  return r.rows.map((x) => x.table_name);
}

/** An SQL value of each column type the migrations use (a new type: add it here). */
const VALUE: Record<string, string> = { text: `'x'`, integer: '1', bigint: '1', boolean: 'true', bytea: `'\\x00'` };

/** One row in every table, whatever its columns: a table no migration had when this was written too. */
async function fillEveryTable(q: Query): Promise<void> {
  for (const t of await tables(q)) {
    const cols = (
      await q.query<{ column_name: string; data_type: string }>(
        `SELECT column_name, data_type FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
        [t],
      )
    ).rows;
    for (const c of cols) assert.ok(c.data_type in VALUE, `${t}.${c.column_name}: no test value for ${c.data_type}`);
    await q.query(
      `INSERT INTO ${t} (${cols.map((c) => c.column_name).join(', ')}) VALUES (${cols.map((c) => VALUE[c.data_type]).join(', ')})`,
    );
  }
}

/** The tables that still hold a row. */
async function nonEmpty(q: Query): Promise<string[]> {
  const out: string[] = [];
  for (const t of await tables(q)) if ((await q.query(`SELECT 1 FROM ${t} LIMIT 1`)).rows.length > 0) out.push(t);
  return out;
}

longTest('the tests’ shared database: opened again, every table the migrations create is empty', async () => {
  const shared = sharedDb(() => openPglite());
  try {
    const db = await shared.open();
    await fillEveryTable(db);
    assert.equal((await nonEmpty(db)).length, (await tables(db)).length, 'every table filled');
    assert.equal(await nonEmpty(await shared.open()), []);
  } finally {
    await shared.closeAll();
  }
});

test('the embedded registry’s reset: every table the migrations create is empty', async () => {
  const d = join(dir, 'embedded');
  const before = await openPglite(d);
  await fillEveryTable(before);
  await before.close();
  const reg = await startEmbeddedRegistry({ dir: d });
  try {
    await reg.reset();
  } finally {
    await reg.close();
  }
  const after = await openPglite(d);
  try {
    assert.equal(await nonEmpty(after), []);
  } finally {
    await after.close();
  }
});

test('a per-run device key (POST /v1/enrol) does not survive the embedded registry’s reset', async () => {
  const reg = await startEmbeddedRegistry();
  const result = (a: Awaited<ReturnType<typeof postRegistry>>) => (a.ok ? a.body.results[0].result : a.body.error);
  const claim = (who: Parameters<typeof postRegistry>[2], n: number) =>
    postRegistry(reg.url, 'claim', who, [{ code: win(n), paid_at: Date.now() }]).then(result);
  try {
    const k = ownKey('SIM-R1');
    const e = await enrolDevelopmentKey(reg.url, 'SIM-R1', {
      publicKey: fromHex(k.publicHex),
      sign: (m) => nodeSign(m, fromHex(k.seedHex)),
    });
    assert.ok(e.ok, JSON.stringify(e.body));
    assert.is(await claim(k, 1), 'granted');
    assert.is(await claim(dev('SIM-R1'), 2), 'bad_signature');
    await reg.reset();
    // A fresh development fleet: the id speaks with the published key again, and the run's key is gone.
    assert.is(await claim(dev('SIM-R1'), 3), 'granted');
    assert.is(await claim(k, 4), 'bad_signature');
  } finally {
    await reg.close();
  }
});

test.run();
