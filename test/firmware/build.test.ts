// The firmware build (tools/build.ts): the artifacts, the signed image, the refusal of Node imports and of exceeded budgets, and
// a production build (its own key, no trust in the test key).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyImage, DEV_FIRMWARE_PUBLIC_KEY_HEX } from '../../src/image/format.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { publicKeyOf } from '../../src/crypto/ed25519.ts';
import { boot, bundleText, chipWith, flat, scanSerial, testConfig, ticket, ROOT_DIR } from './harness.ts';

import * as mod from '../../tools/build.ts';
import { longTest } from '../helpers.ts';
const tmp = mkdtempSync(join(tmpdir(), 'saphir-build-'));

test.after(() => rmSync(tmp, { recursive: true, force: true }));

test('dev build: bundle, size.json, signed image holding exactly the bundle', async () => {
  const bundle = await bundleText();
  assert.ok(bundle.length > 10000);
  assert.not.match(bundle, /require\(["']/);
  const size = JSON.parse(readFileSync(join(mod.DIST, 'size.json'), 'utf8'));
  assert.ok(size.bundle_bytes <= mod.BUDGET_BUNDLE && size.core_bytes <= mod.BUDGET_CORE);
  assert.ok(size.modules['firmware/app.ts'] > 0);
  assert.ok(
    Object.keys(size.camera_modules).some((m) => /jsqr/i.test(m)),
    'the camera path carries jsQR',
  );
  assert.ok(size.modules['lazy-camera:camera'] > 15000, 'inside the full bundle, as packed text compiled on first use');
  // (a half until jsQR's version table, which packed well, became one string of numbers: 0.55 since;
  // 0.60 since the camera module's names are shortened: 20.2 KiB for 32.6, 20.4 for 37.3 before)
  assert.ok(
    size.modules['lazy-camera:camera'] < size.camera_bytes * 0.65,
    `packed: ${size.modules['lazy-camera:camera']} B for ${size.camera_bytes} B`,
  );
  assert.not.ok(
    Object.keys(size.core_modules).some((m) => /jsqr/i.test(m)),
    'the core variant has no camera path',
  );
  const img = new Uint8Array(readFileSync(join(mod.DIST, 'saphir-fw.img')));
  const v = verifyImage(img, fromHex(DEV_FIRMWARE_PUBLIC_KEY_HEX));
  assert.ok(v.ok, JSON.stringify(v));
  if (v.ok) {
    assert.is(Buffer.from(v.image.bundle).toString('utf8'), bundle);
    assert.is(v.image.versionText, JSON.parse(readFileSync(join(ROOT_DIR, 'package.json'), 'utf8')).version);
  }
  const map = JSON.parse(readFileSync(join(mod.DIST, 'saphir-fw.js.map'), 'utf8')) as { sources: string[] };
  assert.ok(
    map.sources.some((s) => s.endsWith('/app.ts')),
    'source map lists the firmware sources',
  );
});

test('the build refuses Node built-ins and Node-only modules in the firmware', async () => {
  const cases: [string, RegExp][] = [
    [`import { readFileSync } from 'node:fs'; readFileSync('x');`, /Node built-in 'node:fs'/],
    [`import * as p from 'path'; globalThis.x = p.join('a');`, /Node built-in 'path'/],
    [
      `import { parse } from '${join(ROOT_DIR, 'host/args.ts')}'; globalThis.x = parse;`,
      /Node-only module host\/args\.ts/,
    ],
    [
      `import { Scheduler } from '${join(ROOT_DIR, 'hw-sim/scheduler.ts')}'; globalThis.x = Scheduler;`,
      /Node-only module hw-sim\/scheduler\.ts/,
    ],
  ];
  for (const [src, re] of cases) {
    const entry = join(tmp, `entry-${Math.random().toString(36).slice(2)}.ts`);
    writeFileSync(entry, src);
    let err: unknown;
    try {
      await mod.build({ entry, outDir: join(tmp, 'out'), quiet: true });
    } catch (e) {
      err = e;
    }
    assert.ok(err, `built: ${src}`);
    const text = String(
      (err as { errors?: { text: string }[] }).errors?.map((x) => x.text).join('; ') ?? (err as Error).message,
    );
    assert.match(text, re);
  }
});

longTest('the build fails when a size budget is exceeded', async () => {
  // One build over both budgets (a build is ~1 s of CPU): each is checked on its own and named.
  try {
    await mod.build({ outDir: join(tmp, 'small'), quiet: true, budgets: { bundle: 60 * 1024, core: 20 * 1024 } });
    assert.unreachable('built over budget');
  } catch (e) {
    assert.match((e as Error).message, /bundle \d+ B exceeds its budget of 61440 B/);
    assert.match((e as Error).message, /camera-less core \d+ B exceeds its budget of 20480 B/);
  }
});

test('production build: needs a key file, signs with it, never trusts the test key', async () => {
  try {
    await mod.build({ production: true, outDir: join(tmp, 'prod'), quiet: true, keyFile: undefined });
    if (!process.env.SAPHIR_FW_KEY_FILE) assert.unreachable('production build without a key');
  } catch (e) {
    assert.match((e as Error).message, /needs the signing key file/);
  }
  const seed = new Uint8Array(32).map((_, i) => (i * 37 + 11) & 255);
  const keyFile = join(tmp, 'fw.key');
  writeFileSync(keyFile, toHex(seed) + '\n');
  const out = await mod.build({ production: true, keyFile, outDir: join(tmp, 'prod'), quiet: true });
  const img = new Uint8Array(readFileSync(out.imagePath));
  assert.ok(verifyImage(img, publicKeyOf(seed)).ok);
  assert.not.ok(verifyImage(img, fromHex(DEV_FIRMWARE_PUBLIC_KEY_HEX)).ok);

  const bundle = readFileSync(out.bundlePath, 'utf8');
  // The test configuration trusts key 0: a production firmware refuses that config and halts (no defaults).
  const refused = await boot(chipWith(), { bundle });
  try {
    assert.ok(
      refused.periph!.logs.some((l) => /config defaults .*test key id 0/.test(l)),
      refused.periph!.logs.join('\n'),
    );
    assert.match(flat(refused.screen), /^ERREUR \| configuration \| invalide/);
  } finally {
    refused.dispose();
  }
  // Without key 0 in it, the configuration is taken, and a code signed with the test key is unknown.
  const sim = await boot(chipWith(testConfig({ keys: [] })), { bundle });
  try {
    assert.match(flat(sim.screen), /PRÊT/);
    await scanSerial(sim, ticket({ number: 1, prizeEur: 150 }));
    assert.match(flat(sim.screen), /^NON VALIDE \| clé de signature \| inconnue/);
  } finally {
    sim.dispose();
  }
});

test.run();
