// SAPHIR_PGLITE_TEMPLATE (set by test/run.mjs): new PGlite databases start from one dump of a fresh one,
// written by the first, and then from the first migrated (a dump, a folder); each is still its own, empty and migrated.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS, openPglite } from '../../host/registry/db.ts';
import { longTest } from '../helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-pg-template-'));
const before = process.env.SAPHIR_PGLITE_TEMPLATE;
const buffersBefore = process.env.SAPHIR_PGLITE_SHARED_BUFFERS;
test.after(() => {
  if (before === undefined) delete process.env.SAPHIR_PGLITE_TEMPLATE;
  else process.env.SAPHIR_PGLITE_TEMPLATE = before;
  if (buffersBefore === undefined) delete process.env.SAPHIR_PGLITE_SHARED_BUFFERS;
  else process.env.SAPHIR_PGLITE_SHARED_BUFFERS = buffersBefore;
  rmSync(dir, { recursive: true, force: true });
});

const row = `INSERT INTO devices (device_id, public_key, enrolled_at) VALUES ('CAISSE-1', 'ab', 1)`;
const buffers = async (db: Awaited<ReturnType<typeof openPglite>>) =>
  (await db.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0].shared_buffers;
const count = async (db: Awaited<ReturnType<typeof openPglite>>, table = 'devices') =>
  Number((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n);
/** The migrated templates beside template.tar: `template.tar-KEY.tar` (a dump), `template.tar-KEY` (a folder). */
const migrated = () => readdirSync(dir).filter((f) => /^template\.tar-[0-9a-f]{12}(\.tar)?$/.test(f));

// In the long tier only (~8 s of CPU: the registry's tests in npm test use the templates anyway), from none:
// the first database writes it.
longTest(
  'the first new database writes the template (none: test:long) and the migrated one; the next ones (memory, a new folder) start from it, empty and migrated',
  async () => {
    const file = join(dir, 'template.tar');
    process.env.SAPHIR_PGLITE_TEMPLATE = file;
    process.env.SAPHIR_PGLITE_SHARED_BUFFERS = '16MB';
    const a = await openPglite();
    assert.ok(existsSync(file), 'template written');
    assert.is(await buffers(a), '16MB', 'SAPHIR_PGLITE_SHARED_BUFFERS');
    assert.equal(
      migrated().map((f) => f.endsWith('.tar')),
      [true],
      'the migrated dump, written by the first database in memory',
    );
    await a.query(row);
    assert.is(await count(a), 1);
    await a.close();
    // db makes the migrated folder, db2 is a copy of it.
    for (const where of [undefined, join(dir, 'db'), join(dir, 'db2')]) {
      const b = await openPglite(where);
      assert.is(await count(b), 0, `${where ?? 'memory'}: the template holds no data of the first database`);
      assert.is(await count(b, 'schema_migrations'), MIGRATIONS.length, `${where ?? 'memory'}: migrated`);
      await b.query(row);
      await b.close();
    }
    assert.is(migrated().length, 2, 'the migrated folder, written by the first new folder');
    // The folder is a database of its own that opens again (without the template, with PostgreSQL's buffers).
    delete process.env.SAPHIR_PGLITE_TEMPLATE;
    delete process.env.SAPHIR_PGLITE_SHARED_BUFFERS;
    for (const where of ['db', 'db2']) {
      const again = await openPglite(join(dir, where));
      assert.is(await count(again), 1, where);
      assert.is(await buffers(again), '128MB');
      await again.close();
    }
  },
);

test('a template that is no dump: the database cannot open, and says so', async () => {
  const file = join(dir, 'garbage.tar');
  writeFileSync(file, 'not a dump');
  process.env.SAPHIR_PGLITE_TEMPLATE = file;
  await openPglite().then(
    (db) => (db.close(), assert.unreachable('opened')),
    (e: Error) => assert.match(e.message, /:memory:/),
  );
});

test.run();
