// tools/write-whole.ts: a file is replaced whole, and a failed write leaves no temp file behind.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeWhole } from '../../tools/write-whole.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-whole-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('replaces the file, leaving nothing else in its folder', () => {
  const f = join(dir, 'a.txt');
  writeFileSync(f, 'old');
  writeWhole(f, 'new');
  writeWhole(f, new Uint8Array([0x6f, 0x6b]));
  assert.is(readFileSync(f, 'utf8'), 'ok');
  assert.equal(readdirSync(dir), ['a.txt']);
});

test('a rename that fails throws and removes its temp file', () => {
  const sub = join(dir, 'b');
  mkdirSync(sub);
  const target = join(sub, 'busy');
  mkdirSync(join(target, 'inside'), { recursive: true }); // a non-empty folder: no file renames over it
  assert.throws(() => writeWhole(target, 'x'));
  assert.equal(readdirSync(sub), ['busy']);
});

test.run();
