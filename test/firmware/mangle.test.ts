// The names the firmware build shortens (tools/mangle.ts): every property name but those crossing a
// boundary. A small program shows each rule; the real build shows it on the firmware.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reservedNames } from '../../tools/mangle.ts';
import { ensureBuilt, CORE_PATH, ROOT } from '../../tools/build.ts';

const tmp = mkdtempSync(join(tmpdir(), 'saphir-mangle-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

test('kept: JSON records, listed keys, string keys, globalThis, library members, plain JS words; the rest is shortened', () => {
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
     export const plainLocal = { localField: [1].map((x) => x) };`,
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

test.run();
