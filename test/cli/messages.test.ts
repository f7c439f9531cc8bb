// The message catalogues (src/messages/): the same keys in French and English, nothing empty, and no
// English left in the French one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CATALOGUES } from '../../src/messages/index.ts';
import { REASON_TEXT, WORDS } from '../../src/i18n.ts';
import { parseImage } from '../../src/image/format.ts';
import { ensureImage } from '../../hw-sim/sim.ts';

type Leaf = { path: string; fr: string; en: string };

/** A message as text: a function is called with numbers, or strings when numbers do not fit it. */
function say(v: unknown, path: string): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.join(' | ');
  if (typeof v === 'function') {
    const f = v as (...a: unknown[]) => unknown;
    for (const arg of [7, '7']) {
      try {
        const r = f(...Array(f.length).fill(arg));
        if (typeof r === 'string') return r;
      } catch {
        // try the other kind of argument
      }
    }
    throw new Error(`${path}: no text from its function`);
  }
  throw new Error(`${path}: neither a text nor a function`);
}

function walk(fr: unknown, en: unknown, path: string, out: Leaf[]): void {
  const isTree = (x: unknown) => x !== null && typeof x === 'object' && !Array.isArray(x);
  if (isTree(fr) || isTree(en)) {
    assert.ok(isTree(fr) && isTree(en), `${path}: a group in one language only`);
    const fk = Object.keys(fr as object).sort();
    const ek = Object.keys(en as object).sort();
    assert.equal(fk, ek, `${path}: the same keys in both languages`);
    for (const k of fk) walk((fr as Record<string, unknown>)[k], (en as Record<string, unknown>)[k], path ? `${path}.${k}` : k, out);
    return;
  }
  out.push({ path, fr: say(fr, `fr ${path}`), en: say(en, `en ${path}`) });
}

function leaves(): Leaf[] {
  const out: Leaf[] = [];
  walk(CATALOGUES.fr, CATALOGUES.en, '', out);
  walk(REASON_TEXT.fr, REASON_TEXT.en, 'reason', out);
  walk(WORDS.fr, WORDS.en, 'words', out);
  return out;
}

/** Words of English that French text never uses. */
const ENGLISH = new Set(
  ('the and with cannot can must of is are to from give only missing expected found no not none line lines bytes ' +
    'key number warning error ready unplugged failed passed summary scanned winning losing refused payment recorded ' +
    'building unknown command wrong should quote hint here when which what this that for into unreadable size ' +
    'neither nor convert decoded lost queue overflowed incomplete too cut noise bad report again garbled ' +
    'disturbed plugged back waiting stop scan prints reads writes checks trust instead default per each every ' +
    'exit when otherwise usage:' ).split(/\s+/).filter(Boolean),
);

/** The words of a text, without what is the same in every language: options, JSON, paths, commands. */
function words(s: string): string[] {
  const plain = s
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/--[\w-]+/g, ' ')
    .replace(/\b\w+_\w+\b/g, ' ')
    .replace(/'[^']*'|"[^"]*"/g, ' ')
    .replace(/\S*\/\S*/g, ' ')
    .replace(/saphir [a-z]+/g, ' ');
  return plain.toLowerCase().match(/[a-zà-ÿ]+/g) ?? [];
}

/** Keys whose text is the same in both languages on purpose. */
const SAME = new Set(['cli.version', 'image.version', 'image.bundle', 'image.sha', 'image.signature', 'image.detail']);

test('every key exists in French and English, and none is empty', () => {
  const all = leaves();
  assert.ok(all.length > 150, `${all.length} messages`);
  for (const l of all) {
    assert.ok(l.fr.trim().length > 0, `fr ${l.path} is empty`);
    assert.ok(l.en.trim().length > 0, `en ${l.path} is empty`);
  }
});

test('no English left in French: no English word, and no text left the same', () => {
  for (const l of leaves()) {
    const english = words(l.fr).filter((w) => ENGLISH.has(w));
    assert.equal(english, [], `fr ${l.path}: "${l.fr}"`);
    if (!SAME.has(l.path) && !/^drop|^words/.test(l.path)) assert.is.not(l.fr, l.en, `fr ${l.path} is the English text`);
  }
});

test('the French catalogue says every image check in French', () => {
  const good = ensureImage();
  const bad = (f: (b: Uint8Array) => Uint8Array) => {
    const p = parseImage(f(good.slice()));
    assert.ok('error' in p);
    return (p as { error: string }).error;
  };
  const details = [
    bad((b) => b.subarray(0, 20)),
    bad((b) => ((b[4] = 64), b)),
    bad((b) => ((b[0] ^= 1), b)),
    bad((b) => b.subarray(0, b.length - 10)),
    bad((b) => Uint8Array.from([...b, 0])),
    bad((b) => ((b[6] = 0x80), b)),
  ];
  for (const d of details) {
    const fr = CATALOGUES.fr.image.detail(d);
    assert.is.not(fr, d, `untranslated: ${d}`);
    assert.equal(words(fr).filter((w) => ENGLISH.has(w)), [], fr);
  }
});

test.run();
