// A stale firmware/dist (tools/build.ts): a source newer than it is named, and ensureBuilt and saphir sim
// rebuild (and the explorer's cached host-Ed25519 build goes stale). It touches a firmware source's date, so test/run.mjs runs this file alone, before the others
// (every saphir sim elsewhere would rebuild meanwhile); the rest of the build's tests are build.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT_DIR } from './harness.ts';
import { saphir } from '../cli/run-cli.ts';
import * as mod from '../../tools/build.ts';
import { HOST_BUNDLE_PATH, staleReason } from '../../tools/build-stale.ts';
import { BUNDLE_PATH } from '../../tools/paths.ts';

test('a source newer than firmware/dist makes it stale (named); ensureBuilt and saphir sim rebuild and say so', async () => {
  await mod.ensureBuilt();
  assert.is(mod.staleReason(), null);
  const src = join(ROOT_DIR, 'firmware', 'jsqr', 'Point.ts');
  const st = statSync(src);
  const touch = () => utimesSync(src, new Date(), new Date());
  try {
    touch();
    assert.equal(mod.staleReason(), { newer: 'firmware/jsqr/Point.ts' });
    const heard: unknown[] = [];
    await mod.ensureBuilt((why) => heard.push(why));
    assert.equal(heard, [{ newer: 'firmware/jsqr/Point.ts' }]);
    assert.is(mod.staleReason(), null, 'current after the rebuild');
    await mod.ensureBuilt((why) => heard.push(why));
    assert.is(heard.length, 1, 'no second build when current');

    touch();
    // The explorer's host-Ed25519 build kept in node_modules/.cache goes by the same rule, over its own file.
    assert.equal(staleReason([BUNDLE_PATH]), { newer: 'firmware/jsqr/Point.ts' });
    assert.equal(staleReason([join(ROOT_DIR, 'firmware', 'dist', 'none.js')]), { missing: 'firmware/dist/none.js' });
    assert.ok(staleReason([HOST_BUNDLE_PATH]) !== null, 'the cached host build is stale too');
    const r = saphir(['sim', '--lang', 'en'], 'quit\n');
    assert.is(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stderr, /firmware\/jsqr\/Point\.ts changed since the last build: rebuilding the firmware/);
    assert.is(mod.staleReason(), null);
    const again = saphir(['sim', '--lang', 'en'], 'quit\n');
    assert.not.match(again.stderr, /rebuilding/);
  } finally {
    utimesSync(src, st.atime, st.mtime);
  }
});

test.run();
