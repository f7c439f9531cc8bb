// Every command's help, walked in both languages (#33 point 11): the two usages name the same options,
// each help says its exit codes, the list describes each command in words (not its syntax, no stray
// quotes), `saphir help CMD` is `saphir CMD --help`, and no help slips into the other language.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { saphirIn } from './run-cli.ts';
import { messages } from '../../src/messages/index.ts';

const COMMANDS = Object.keys(messages('en').cli.summaries).filter((c) => c !== 'help');
const LANGS = ['fr', 'en'] as const;

const help: Record<string, Record<'fr' | 'en', string>> = {};

test.before(async () => {
  for (const c of COMMANDS) {
    help[c] = { fr: '', en: '' };
    for (const lang of LANGS) {
      const r = await saphirIn([c, '--help', '--lang', lang]);
      assert.is(r.code, 0, `${c} --help --lang ${lang}: ${r.stderr}`);
      assert.is(r.stderr, '', `${c} --help --lang ${lang}`);
      help[c][lang] = r.stdout;
    }
  }
});

const options = (s: string) => [...new Set(s.match(/--[a-z][a-z0-9-]*/g) ?? [])].sort();
/** The usage lines: from `usage` to the first line that is neither a usage nor its continuation. */
const synopsis = (s: string) => {
  const lines = s.split('\n');
  let n = 1;
  while (n < lines.length && /^\s+(\S.*)?[[(|]|^\s+saphir /.test(lines[n]) && !/^\s+--/.test(lines[n])) n++;
  return lines.slice(0, n).join('\n');
};

test('fr and en usages name the same options, in the usage lines and in the whole help', () => {
  for (const c of COMMANDS) {
    assert.equal(options(synopsis(help[c].fr)), options(synopsis(help[c].en)), `${c}: usage lines`);
    assert.equal(options(help[c].fr), options(help[c].en), `${c}: whole help`);
  }
  // The case the issue met: gen's --quiet was in the English usage only.
  assert.match(synopsis(help.gen.fr), '[--quiet]');
});

test('every help says its exit codes, a usage error included', () => {
  for (const c of COMMANDS) {
    const fr = help[c].fr.replace(/\s+/g, ' ');
    const en = help[c].en.replace(/\s+/g, ' ');
    assert.match(fr, /(Sortie|Code|sortie) 0/, `${c} fr`);
    assert.match(fr, /2 (pour une|en cas d[’']) ?erreur d['’]usage/, `${c} fr`);
    assert.match(en, /Exit 0/, `${c} en`);
    assert.match(en, /2 on a usage error/, `${c} en`);
  }
});

test('no help in the other language: English without French letters, French without English sentences', () => {
  for (const c of COMMANDS) {
    // (The device's screen texts, DÉJÀ PAYÉ, are French in both.)
    assert.not.match(help[c].en, /[àâçéèêëîïôûùœ«»]/, `${c} en`);
    assert.not.match(help[c].fr, /\b(the|when|with|without|default|prints|exit)\b/, `${c} fr`);
  }
});

test('the list describes each command in words: not its syntax, no stray quotes', async () => {
  for (const lang of LANGS) {
    const r = await saphirIn(['--help', '--lang', lang]);
    assert.is(r.code, 0);
    for (const c of COMMANDS) {
      const line = r.stdout.split('\n').find((l) => l.startsWith(`  ${c} `));
      assert.ok(line, `${c} listed (${lang})`);
      const summary = line!.slice(2 + c.length).trim();
      // `device info --port PATH` was device's: a subcommand and its options.
      assert.not.match(summary, new RegExp(`^${c} \\S+ --`), `${c} (${lang}): its syntax, not a description`);
      assert.not.match(summary, /'\w+'/, `${c} (${lang}): ${summary}`);
    }
  }
});

test('saphir help CMD is saphir CMD --help', async () => {
  for (const c of COMMANDS) {
    const r = await saphirIn(['help', c, '--lang', 'en']);
    assert.is(r.code, 0);
    assert.is(r.stdout, help[c].en, c);
  }
});

test('usage errors exit 2 with the reason: gen --from -1, scan --hid zzz', async () => {
  const gen = await saphirIn([
    'gen',
    '--emission',
    '1',
    '--block',
    '1',
    '--from',
    '-1',
    '--count',
    '2',
    '--lang',
    'en',
  ]);
  assert.is(gen.code, 2);
  assert.match(gen.stderr, 'saphir gen: --from must be an integer from 0 to 2999999');
  const fr = await saphirIn(['gen', '--emission', '1', '--block', '1', '--from', '-1', '--count', '2']);
  assert.match(fr.stderr, '--from doit être un entier de 0 à 2999999');
  const scan = await saphirIn(['scan', '--hid', 'zzz', '--lang', 'en']);
  assert.is(scan.code, 2);
  assert.match(scan.stderr, '--hid takes VID:PID (hex ids, e.g. 0c2e:0b61) or a path (/dev/hidraw0), not "zzz"');
  const bridge = await saphirIn(['sim', '--bridge-hid', 'zzz']);
  assert.is(bridge.code, 2);
  assert.match(bridge.stderr, '--bridge-hid attend VID:PID');
});

test.run();
