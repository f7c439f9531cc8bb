// The names the firmware build shortens (tools/mangle.ts): every property name but those crossing a
// boundary. A small program shows each rule; the real build shows it on the firmware.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reservedNames } from '../../tools/mangle.ts';
import { ensureBuilt, BUNDLE_PATH, CORE_PATH, DIST, LAZY_PARTS, ROOT } from '../../tools/build.ts';
import { partPath } from '../../tools/paths.ts';
import { unpack } from '../../firmware/unpack.ts';
import { longTest } from '../helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'saphir-mangle-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

test('kept: JSON records, listed keys, string keys, globalThis, library members, plain JS words, enum members; the rest is shortened', () => {
  const entry = join(tmp, 'entry.ts');
  writeFileSync(
    entry,
    `interface Wire { sentField: number; nested: { deepField: string } }
     interface Answer { answerField: number }
     class A {
       private innerCount = 0;
       private sent: Wire = { sentField: 1, nested: { deepField: 'x' } };
       publicThing(): number { return this.innerCount++; }
       out(): string { return JSON.stringify(this.sent); }
       readAnswer(s: string): number { return (JSON.parse(s) as Answer).answerField; }
       listed(o: { listedField: number }): string[] { return Object.keys(o); }
       quoted(o: Record<string, number>): boolean { return 'quotedName' in o; }
     }
     (globalThis as unknown as { hostThing: A }).hostThing = new A();
     export const plainLocal = { localField: [1].map((x) => x) };
     export enum Shade { EnumMember = 1 }`,
  );
  const kept = reservedNames([entry], [{ what: 'plain.js', text: 'function f(o) { return o.plainWord }' }]);
  for (const n of [
    'sentField',
    'nested',
    'deepField',
    'answerField',
    'listedField',
    'quotedName',
    'hostThing',
    'map',
    'plainWord',
    'EnumMember',
  ])
    assert.ok(kept.has(n), `${n} must be kept`);
  for (const n of ['innerCount', 'sent', 'publicThing', 'out', 'readAnswer', 'localField'])
    assert.not.ok(kept.has(n), `${n} may be shortened (${kept.get(n)})`);
});

test("the built core keeps the HAL and config names and shortens the app's own", async () => {
  await ensureBuilt();
  const core = readFileSync(CORE_PATH, 'utf8');
  const kept = reservedNames([join(ROOT, 'firmware', 'main.ts'), join(ROOT, 'firmware', 'camera-none.ts')], []);
  for (const n of ['deviceId', 'eraseBlock', 'payoutLimitEur', 'ticket']) {
    assert.ok(kept.has(n), `${n} must be kept`);
    assert.ok(core.includes(`.${n}`) || core.includes(`${n}:`), `${n} in the core as written`);
  }
  for (const n of ['discarding', 'slotsPerSector', 'markStored']) {
    assert.not.ok(kept.has(n), `${n} may be shortened (${kept.get(n)})`);
    assert.not.ok(core.includes(n), `${n} is shortened in the core`);
  }
});

longTest(
  "the camera module is shortened with the core's names: jsQR's own names shortened, its enums kept",
  async () => {
    await ensureBuilt();
    const size = JSON.parse(readFileSync(join(DIST, 'size.json'), 'utf8')) as { camera_bytes: number };
    const bundle = readFileSync(BUNDLE_PATH, 'utf8');
    // The packed camera text (tools/build.ts lazyCamera): the longest template literal of the bundle.
    const lit = [...bundle.matchAll(/`((?:[^`\\]|\\.)*)`/g)].sort((a, b) => b[1].length - a[1].length)[0][1];
    const camera = unpack((0, eval)('`' + lit + '`') as string, size.camera_bytes);
    const kept = reservedNames(
      ['main.ts', 'camera-none.ts', 'camera.ts'].map((f) => join(ROOT, 'firmware', f)),
      [],
    );
    // jsQR's result and locator names (its npm .d.ts would have kept them as a library's).
    for (const n of ['alignmentPattern', 'topRightCorner', 'chunks', 'dimension']) {
      assert.not.ok(kept.has(n), `${n} may be shortened (${kept.get(n)})`);
      assert.not.ok(camera.includes(`.${n}`) || camera.includes(`${n}:`), `${n} is shortened in the camera module`);
    }
    // Still mode's extra locations (jsQR tryHarder, firmware/jsqr/locator) are not carried: the device's stream never asks.
    assert.not.ok(camera.includes('[-1,-1]'), "the camera module carries jsQR's tryHarder block");
    // A TypeScript enum's members: esbuild defines them as written (or inlines them), so no use may be
    // shortened (jsQR's decoder read every segment's mode as undefined: the text came out empty).
    for (const n of ['Terminator', 'Alphanumeric']) assert.ok(kept.has(n), `${n} must be kept`);
    assert.not.ok(
      /\.Terminator\b/.test(camera) && !/\.Terminator=/.test(camera),
      'an enum read under its name is defined so',
    );
  },
);

longTest("the parts compiled apart are shortened with the core's names, and take the core's helpers", async () => {
  await ensureBuilt();
  const link = readFileSync(partPath('registry'), 'utf8');
  const entries = [
    join(ROOT, 'firmware', 'main.ts'),
    join(ROOT, 'firmware', 'camera-none.ts'),
    ...LAZY_PARTS.map((p) => p.entry),
  ];
  const kept = reservedNames(entries, []);
  // The link's own names and the application's it uses (LinkHost): shortened, the same as in the core.
  for (const n of ['nonceBase', 'toConfirm', 'markStored', 'noticeRefused', 'takeNotice']) {
    assert.not.ok(kept.has(n), `${n} may be shortened (${kept.get(n)})`);
    assert.not.ok(link.includes(n), `${n} is shortened in the registry link's part`);
  }
  // The HAL's names as written.
  for (const n of ['registryKey', 'publicKey']) assert.ok(link.includes(`.${n}`), `${n} in the link as written`);
  // The verifier and SHA-512 are the core's (firmware/kit.ts), not copies: the part reads them from its kit.
  assert.ok(/SAPHIR_KIT\./.test(link), 'the part reads the kit');
  assert.not.ok(link.includes('0x6a09e667') || /1779033703/.test(link), 'no SHA-512 of its own');
});

test.run();
