// The message catalogues (src/messages/): the same keys in French and English, nothing empty, and no
// English left in the French one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CATALOGUES } from '../../src/messages/index.ts';
import { REASON_TEXT, WORDS } from '../../src/i18n.ts';
import { parseImage } from '../../src/image/format.ts';
import { ensureImage } from '../../hw-sim/sim.ts';
import { parseScenario, ScenarioError } from '../../hw-sim/scenario.ts';
import '../../hw-sim/node-host.ts';

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
    for (const k of fk)
      walk((fr as Record<string, unknown>)[k], (en as Record<string, unknown>)[k], path ? `${path}.${k}` : k, out);
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
  (
    'the and with cannot can must of is are to from give only missing expected found no not none line lines bytes ' +
    'key number warning error ready unplugged failed passed summary scanned winning losing refused payment recorded ' +
    'building unknown command wrong should quote hint here when which what this that for into unreadable size ' +
    'neither nor convert decoded lost queue overflowed incomplete too cut noise bad report again garbled ' +
    'disturbed plugged back waiting stop scan prints reads writes checks trust instead default per each every ' +
    'exit when otherwise usage:'
  )
    .split(/\s+/)
    .filter(Boolean),
);

/** The words of a text, without what is the same in every language: options, JSON, paths, commands. */
function words(s: string): string[] {
  const plain = s
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/--[\w-]+/g, ' ')
    .replace(/\b\w+_\w+\b/g, ' ')
    .replace(/'[^']*'|"[^"]*"/g, ' ')
    .replace(/\S*\/\S*/g, ' ')
    .replace(/saphir [a-z]+( (serve|devices|add|list|revoke|report|inspect|info|export)\b)*/g, ' ');
  return plain.toLowerCase().match(/[a-zà-ÿ]+/g) ?? [];
}

/** Keys whose text is the same in both languages on purpose. */
const SAME = new Set([
  'cli.version',
  // A device's id, state and detail, nothing to translate.
  'registry.campaignDevice',
  // Units (h, min) the same in both.
  'registry.uptime',
  // "invariant" is a French word too.
  'explore.failure',
  'image.version',
  'image.bundle',
  'image.sha',
  'image.signature',
  'image.detail',
  'flash.image',
  'flash.version',
  'sim.pass',
  'demo.mode',
  // Translators of English problems: one they do not know stays as it is (web.detail is tried below).
  'sim.detail',
  // The device's log lines: English ones it does not know stay as they are (tried below).
  'web.log',
  'step.ledColor',
  'web.mode',
]);

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
    if (!SAME.has(l.path) && !/^drop|^words/.test(l.path))
      assert.is.not(l.fr, l.en, `fr ${l.path} is the English text`);
  }
});

test('the boot modes of the simulator in words a newcomer reads (#33 point 13), in French', () => {
  assert.is(
    CATALOGUES.fr.demo.mode('developer'),
    'développement : le firmware de ce dépôt (firmware/dist), sans image signée',
  );
  assert.is(CATALOGUES.fr.demo.mode('image slot B v1.2.0'), 'image, emplacement B, v1.2.0');
  assert.is(
    CATALOGUES.en.demo.mode('developer'),
    "developer: this checkout's firmware (firmware/dist), no signed image",
  );
  assert.not.match(CATALOGUES.fr.demo.firmware('x', 'ab'.repeat(32)), /\bimage\b|bundle/);
});

test("the web page's worker says the scanner models' and scenarios' problems in French", () => {
  const fr = CATALOGUES.fr.sim.detail;
  assert.is(fr("serial option 'baud' must be a number"), "l'option « baud » du lecteur serial doit être un nombre");
  assert.is(fr("unknown step 'jump' (known: boot)"), 'étape inconnue « jump » (connues : boot)');
  assert.is(fr('noise must be from 0 to 1'), 'noise doit valoir de 0 à 1');
  assert.is(fr('delay must be from 0.5 to 1000 ms'), 'delay doit valoir de 0.5 à 1000 ms');
  assert.is(fr('emission must be 0 … 65535'), 'emission doit valoir de 0 à 65535');
  assert.is(CATALOGUES.en.sim.detail("serial option 'baud' must be a number"), "serial option 'baud' must be a number");
});

test('every fixed problem of hw-sim/scenario.ts is said in French, without an English connective', async () => {
  const { readFileSync } = await import('node:fs');
  const { ROOT } = await import('../helpers.ts');
  const src = readFileSync(`${ROOT}/hw-sim/scenario.ts`, 'utf8');
  const fixed = [...src.matchAll(/fail\([^,]+,\s*'([^'\n]*)'\)/g)].map((m) => m[1]);
  assert.ok(fixed.length >= 30, `${fixed.length} problems found`);
  for (const p of fixed) {
    const fr = CATALOGUES.fr.sim.detail(p);
    assert.is.not(fr, p, `untranslated: ${p}`);
    assert.not.match(fr, /\b(needs|must|the|or|and|of|with|only|not)\b/, fr);
  }
});

test('a campaign’s refusals in French (host/registry/campaigns.ts says them in English)', async () => {
  const { readFileSync } = await import('node:fs');
  const { ROOT } = await import('../helpers.ts');
  const src = readFileSync(`${ROOT}/host/registry/campaigns.ts`, 'utf8');
  const said = [...src.matchAll(/new CampaignError\('[\w-]+', ([`'])(.*?)\1\)/g)].map((m) =>
    m[2].replace(/\$\{[^}]*\}/g, 'X'),
  );
  assert.ok(said.length >= 7, said.join(' | '));
  for (const d of said) {
    const fr = CATALOGUES.fr.registry.campaignError(d);
    assert.is.not(fr, `campagne : ${d}`, `untranslated: ${d}`);
    assert.not.match(fr, /\b(no|not|the|exists|cannot|device|enrolled|printable)\b/, fr);
  }
});

test('French names the device ledger and the central registry apart: "journal des paiements", "registre central" (#33 point 13)', () => {
  for (const l of leaves()) {
    // The device's ledger is never "registre" in French.
    if (/\bledger\b/i.test(l.en) && !/registry/i.test(l.en))
      assert.not.match(l.fr, /registre/i, `fr ${l.path}: "${l.fr}"`);
    // "registre" alone stands for the central registry only where the English says registry.
    if (/\bregistre\b(?! central)/.test(l.fr) && !/^registry\.|^help\.registry$/.test(l.path)) {
      assert.match(l.en, /registry/i, `fr ${l.path}: "${l.fr}"`);
      // Outside the registry's own commands, it is named in full before it is « registre » alone.
      assert.match(l.fr, /registre central[\s\S]*\bregistre\b(?! central)/, `fr ${l.path}: "${l.fr}"`);
    }
  }
  assert.match(CATALOGUES.fr.sim.ledger(2), 'journal des paiements');
  assert.match(CATALOGUES.fr.help.ledger, "Lit le journal des paiements d'un appareil");
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
    assert.equal(
      words(fr).filter((w) => ENGLISH.has(w)),
      [],
      fr,
    );
  }
});

test('the French catalogue says every scenario problem in French', () => {
  const bad = [
    'steps: [boot]',
    '- a list',
    'name: x\nsteps: []',
    'name: x\nsteps: 3',
    'name: [1, 2]\nsteps: [boot]',
    'name: x\nseed: [1]\nsteps: [boot]',
    'name: x\nwhat: 1\nsteps: [boot]',
    'name: x\nconfig: { clock: yesterday, inputs: 3, emissions: 3, payout-limit: -1 }\nsteps: [boot]',
    'name: x\nconfig: { emissions: [{ emission: 1 }, { emission: 1, closes: soon }] }\nsteps: [boot]',
    'name: x\nconfig: 3\nsteps: [boot]',
    'name: x\nsteps:\n  - bootz\n  - boot: now\n  - delay\n  - delay: forever\n  - set-clock: later\n  - press: X\n  - press',
    'name: x\nsteps:\n  - { a: 1, b: 2 }\n  - expect-display: { contains: A, matches: B }\n  - expect-display: { matches: "(" }\n  - expect-beep\n  - expect-beep: { within: 1s }',
    'name: x\nsteps:\n  - expect-ledger: { within: 1s }\n  - expect-ledger: { contains: { emission: 1 } }\n  - screenshot: a.jpg\n  - screenshot',
    'name: x\nsteps:\n  - scan: { code: A, ticket: { emission: 1, number: 1, prize: 0 } }\n  - scan: { code: [1] }\n  - scan: { code: A, key: test }',
    'name: x\nsteps:\n  - scan: { ticket: { emission: 1 } }\n  - scan: { ticket: { emission: 1, number: 1, prize: 35 } }\n  - scan: { code: A, via: serial, bogus: 1 }\n  - scan: { code: A, via: serial, baud: fast }\n  - scan',
    'name: x\nsteps:\n  - power-cut: { after-flash-ops: 0 }\n  - scan: { code: A, via: telepathy }\n  - expect-led: purple',
  ];
  const seen = new Set<string>();
  for (const text of bad) {
    try {
      parseScenario(text, 's.yaml');
      assert.unreachable(text);
    } catch (e) {
      assert.instance(e, ScenarioError, text);
      for (const p of (e as ScenarioError).problems) {
        const fr = CATALOGUES.fr.scenario.problem('s.yaml', p.line, p.message);
        assert.not.match(fr, /: YAML : /, `untranslated: ${p.message}`);
        assert.is.not(fr, CATALOGUES.en.scenario.problem('s.yaml', p.line, p.message), p.message);
        seen.add(p.message.replace(/'[^']*'|\d+/g, '·'));
      }
    }
  }
  assert.ok(seen.size >= 25, `${seen.size} kinds of problem tried`);
});

/** One line of each kind the firmware logs (firmware/), as the web page's log panel gets them. */
const LOG_SAMPLES = [
  'boot 1.4.0 (dev) image 0123456789abcdef config flash sector 0',
  'boot 1.4.0 image 0123456789abcdef config defaults (no valid record)',
  'ready: 3 payments held, 2 keys, limit 2000 EUR',
  'image confirmed',
  'clock: RTC 1733300000000 not believed, trusted 1733300000001',
  'clock: no trusted time, 1-9-501 not payable',
  'ledger: damaged, 1-9-501 not payable',
  'clock: 1733300000000 far ahead of 1733200000000, asked',
  'clock: 1733300000000 confirmed',
  'clock: refused',
  'payment of 1-9-501 failed: flash write failed',
  'paid 1-9-501 150 EUR',
  'paid 1-9-501 150 EUR offline',
  'error after payment: display broken',
  'error: boom',
  '1-9-501: expired before OK',
  'receipt: reprint done',
  'receipt: reprint failed',
  'notice: no partition notice',
  'notice 3 from registry refused: older',
  'notice 3 from registry refused: signature',
  'notice 3 from registry refused: unsigned',
  'notice 3 from registry refused: no-key',
  'notice 0 from registry refused: malformed (not JSON)',
  'notice 4 from registry refused: no partition',
  'notice 3 applied (registry), 2 emissions',
  'journal: no partition journal',
  'registry: no network or key: payments stay local',
  'registry: no outbox (no partition outbox): payments stay local',
  'registry: device key 0123456789abcdef…',
  'registry: http://127.0.0.1:8080/, 2 to send',
  'registry: 1-9-501 already paid by SHOP-2',
  'registry refused the claim: bad signature',
  'registry: no answer (timeout)',
  'outbox: damaged',
  'outbox: 2 entries without a payment dropped',
  'sync: not sent (status 0), 3 waiting',
  'sync: 1-9-501 CONFLICT, also paid by SHOP-2',
  'sync: 1-9-501 refused: bad signature',
  'sync: 3 sent, 0 waiting',
  'update spring: from 4096',
  'update spring: refused: board',
  'update: restarting into the new image',
  'update: installed 1.5.0',
  'update: refused: signature',
  'update: campaign over, download dropped',
  'halted: self-test: Ed25519',
  'report X: 3 payments 170 EUR, 1 not paid',
  'report Z: 0 payments 0 EUR, 0 not paid',
  'ledger: 1 damaged, repaired 1-9-501 1-9-502',
  'ledger: clock implausible (0), no compaction',
  'ledger: compacted, 4 expired payments dropped',
  'fault interrupted in tick: interrupted',
  'printer: printer: paper out',
  'printer: printer: fault',
  'printer: jammed',
];

/**
 * The fixed text of every line the firmware logs: it logs codes (`this.say(LOG_…, …)`, src/messages/log-codes.ts),
 * whose English is src/messages/log.ts's LOG_TEXT; the parts of each text outside its `{n}`.
 */
async function firmwareLogSites(): Promise<{ at: string; parts: string[] }[]> {
  const { readFileSync, readdirSync } = await import('node:fs');
  const { ROOT } = await import('../helpers.ts');
  const codes = (await import('../../src/messages/log-codes.ts')) as unknown as Record<string, number>;
  const { LOG_TEXT } = await import('../../src/messages/log.ts');
  const files = ['firmware', 'firmware/app'].flatMap((d) =>
    readdirSync(`${ROOT}/${d}`)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `${d}/${f}`),
  );
  const sites: { at: string; parts: string[] }[] = [];
  for (const f of files) {
    const src = readFileSync(`${ROOT}/${f}`, 'utf8');
    assert.not.ok(src.includes('this.log.write(`') || src.includes("this.log.write('"), `${f}: a log line in words`);
    for (const m of src.matchAll(/\b(LOG_[A-Z_]+)\b/g)) {
      if (m[1] === 'LOG_SEP' || m[1] === 'LOG_CODES' || src.slice(0, m.index).endsWith('import { ')) continue;
      const code = codes[m[1]];
      assert.type(code, 'number', `${f}: ${m[1]} is a code`);
      const parts = LOG_TEXT[code]
        .replace(/\{\d+\}/g, ' ')
        .split(/\s+/)
        .filter((p) => /[a-z]{2}/i.test(p));
      sites.push({ at: `${f}: ${m[1]} (${LOG_TEXT[code]})`, parts });
    }
  }
  return sites;
}

test('every line the device logs is said in French in the web page’s log panel (#33 point 6)', async () => {
  const sites = await firmwareLogSites();
  assert.ok(sites.length >= 40, `${sites.length} log lines found in firmware/`);
  // Each log line of the firmware has a sample here: its fixed words, in order.
  for (const s of sites) {
    const covered = LOG_SAMPLES.some((line) => {
      let at = 0;
      for (const p of s.parts) {
        const k = line.indexOf(p, at);
        if (k < 0) return false;
        at = k + p.length;
      }
      return true;
    });
    assert.ok(covered, `no sample of ${s.at} (words ${s.parts.join(' ')}) in LOG_SAMPLES`);
  }
  for (const line of LOG_SAMPLES) {
    const fr = CATALOGUES.fr.web.log(line);
    assert.is.not(fr, line, `untranslated: ${line}`);
    // What the device said in its own words (an error's text) is quoted « … »; the rest is French.
    const english = words(fr.replace(/«[^»]*»|[\w[\]]+\.\w+/g, ' ')).filter(
      (w) => ENGLISH.has(w) || /^(eur|paid|payments|sent|waiting|update|refused|ready|boot|power)$/.test(w),
    );
    assert.equal(english, [], `${line} → ${fr}`);
    assert.is(CATALOGUES.en.web.log(line), line);
  }
});

test.run();
