// test/run.mjs makes a missing PGlite template (SAPHIR_PGLITE_TEMPLATE, host/registry/db.ts) itself, once,
// before it starts a worker (test/make-caches.ts): in a fresh clone the first files' databases each ran
// PGlite's initdb at once. (The missing firmware build goes the same way; it is not removed here, where the
// other files of the run use it.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRunner } from './runner-child.ts';

/** test/run.mjs on core/bytes (no database) with the template at `template`: its exit code and output. */
async function run(dir: string, template: string) {
  const times = join(dir, 'times.json');
  writeFileSync(times, '{}');
  return startRunner(['core/bytes'], { TMPDIR: dir, SAPHIR_TEST_LAST_TIMES: times, SAPHIR_PGLITE_TEMPLATE: template })
    .done;
}

test('no PGlite template: the runner makes it before its first file and says so; with one, it does nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-runner-template-'));
  try {
    const template = join(dir, 'template.tar');
    const first = await run(dir, template);
    assert.is(first.code, 0, first.out);
    assert.ok(existsSync(template), first.out);
    const said = first.out.search(
      /# made before the workers \([\d.]+ s\), for every test process: the PGlite template\n/,
    );
    assert.ok(said >= 0, first.out);
    assert.ok(said < first.out.indexOf('core/bytes.test.ts'), 'said before the first file ran');
    const again = await run(dir, template);
    assert.is(again.code, 0, again.out);
    assert.not.match(again.out, /before the workers/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
