// The camera path travels packed (tools/pack-text.ts) and is unpacked on the device (firmware/unpack.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pack } from '../../tools/pack-text.ts';
import { unpack } from '../../firmware/unpack.ts';
import { getQuickJS } from 'quickjs-emscripten';
import { build } from 'esbuild';
import { FIRMWARE_ESBUILD } from '../../tools/build.ts';
import { ROOT_DIR } from './harness.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const roundTrip = (s: string) => unpack(pack(s), s.length);

test('round trip: empty, the markers themselves, long runs, far and near references', () => {
  // jsQR's three main sources (one file alone is too small a sample: its comments moved its ratio past ½).
  const jsqr = ['index.ts', 'locator/index.ts', 'decoder/decoder.ts']
    .map((f) => readFileSync(join(ROOT_DIR, 'firmware', 'jsqr', f), 'utf8'))
    .join('\n')
    .replace(/[^\n\x20-\x7e]/g, '?');
  for (const s of [
    '',
    'a',
    '@#~@@##~~ @',
    'abcabcabcabcabc@abc@abc@abc~',
    'x'.repeat(10_000) + '\n' + 'y'.repeat(300),
    jsqr,
    jsqr + jsqr.slice(100, 9_000), // a reference more than 95² back
  ])
    assert.is(roundTrip(s), s);
  assert.ok(pack(jsqr).length < jsqr.length / 2, `it packs: ${pack(jsqr).length} of ${jsqr.length}`);
});

test('refuses what it cannot carry as is', () => {
  assert.throws(() => pack('é'), /printable ASCII/);
  assert.throws(() => pack('\t'), /printable ASCII/);
});

test('the same text in QuickJS, the device engine class', async () => {
  const code = (
    await build({
      ...FIRMWARE_ESBUILD,
      entryPoints: [join(ROOT_DIR, 'firmware', 'unpack.ts')],
      globalName: 'U',
      write: false,
    })
  ).outputFiles[0].text;
  const vm = (await getQuickJS()).newContext();
  try {
    const s = readFileSync(join(ROOT_DIR, 'firmware', 'decide.ts'), 'utf8')
      .replace(/[^\n\x20-\x7e]/g, '?')
      .repeat(3);
    vm.setProp(vm.global, 'P', vm.newString(pack(s)));
    const r = vm.unwrapResult(vm.evalCode(`${code}; U.unpack(P, ${s.length})`));
    assert.is(vm.getString(r), s);
    r.dispose();
  } finally {
    vm.dispose();
  }
});

test.run();
