// Operator notices (src/notice.ts): every refusal, the canonical text, and the record on flash.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DEV_OPERATOR_PUBLIC_KEY_HEX,
  DEV_OPERATOR_SEED_HEX,
  NOTICE_TEXT_MAX,
  loadNotice,
  noticeProblem,
  noticeHolidays,
  noticeRefusal,
  parseNoticeText,
  signNotice,
  signedNoticeText,
  storeNotice,
  type Notice,
  type SignedNotice,
} from '../../src/notice.ts';
import { nobleSign, nobleVerify, publicKeyOf } from '../../src/crypto/ed25519.ts';
import { fromHex } from '../../src/hex.ts';
import { messages } from '../../src/messages/index.ts';
import { ENGLISH, prose } from '../voice.ts';

/** Every problem the malformed-notice test met, for the French test after it. */
const PROBLEMS: string[] = [];
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { partitionFlash } from '../../hw-sim/device.ts';
import { LAYOUT } from '../../rom/layout.ts';

const SEED = fromHex(DEV_OPERATOR_SEED_HEX);
const PUB = fromHex(DEV_OPERATOR_PUBLIC_KEY_HEX);
const OTHER = new Uint8Array(32).fill(7);

const base: Notice = {
  version: 2,
  payout_limit_eur: 300,
  offline_limit_eur: 150,
  id_threshold_eur: 5000,
  emissions: [
    { number: 1, name: 'SAPHIR 250 000 €', on_sale: '2026-01-05', closes: '2026-06-30' },
    { number: 2, name: 'SAPHIR 2', on_sale: '2026-06-01' },
  ],
  holidays: ['2026-05-22'],
};
const sign = (n: Notice, seed = SEED) => signNotice(n, (m) => nobleSign(m, seed));

test('the development operator key is the seed’s', () => {
  assert.is(Buffer.from(publicKeyOf(SEED)).toString('hex'), DEV_OPERATOR_PUBLIC_KEY_HEX);
});

test('a valid notice round-trips through its text and verifies; any JSON spelling of it verifies', () => {
  const s = sign(base);
  const p = parseNoticeText(signedNoticeText(s));
  assert.not.ok('error' in p);
  assert.is(noticeRefusal(p as SignedNotice, PUB, 1, nobleVerify), null);
  // Reordered fields and other whitespace: the same notice.
  const n = base;
  const respelled = JSON.stringify(
    {
      signature: s.signature,
      notice: {
        holidays: n.holidays,
        emissions: n.emissions.map((e) => ({ ...e })).map((e) => Object.fromEntries(Object.entries(e).reverse())),
        id_threshold_eur: n.id_threshold_eur,
        offline_limit_eur: n.offline_limit_eur,
        payout_limit_eur: n.payout_limit_eur,
        version: n.version,
      },
    },
    null,
    2,
  );
  const q = parseNoticeText(respelled) as SignedNotice;
  assert.is(noticeRefusal(q, PUB, 1, nobleVerify), null);
});

test('refusals: unsigned, no operator key, foreign-signed, altered, older or the same version', () => {
  const s = sign(base);
  assert.is(noticeRefusal({ notice: base }, PUB, 0, nobleVerify), 'unsigned');
  assert.is(noticeRefusal(s, null, 0, nobleVerify), 'no-key');
  assert.is(noticeRefusal(sign(base, new Uint8Array(32).fill(9)), PUB, 0, nobleVerify), 'signature');
  assert.is(noticeRefusal(s, OTHER, 0, nobleVerify), 'signature');
  const altered = { ...s, notice: { ...base, payout_limit_eur: 400 } };
  assert.is(noticeRefusal(altered, PUB, 0, nobleVerify), 'signature');
  const reclosed = {
    ...s,
    notice: { ...base, emissions: [base.emissions[0], { ...base.emissions[1], closes: '2026-07-01' }] },
  };
  assert.is(noticeRefusal(reclosed, PUB, 0, nobleVerify), 'signature');
  assert.is(noticeRefusal(s, PUB, 2, nobleVerify), 'older');
  assert.is(noticeRefusal(s, PUB, 3, nobleVerify), 'older');
  assert.is(noticeRefusal(s, PUB, 1, nobleVerify), null);
});

test('every malformed notice is refused with its reason', () => {
  const e0 = base.emissions[0];
  const d0 = { code: '974', holidays: ['2026-12-20'] };
  const cases: [unknown, RegExp][] = [
    [null, /^notice: not an object/],
    [[], /^notice: not an object/],
    [{ ...base, extra: 1 }, /unknown field "extra"/],
    [{ ...base, version: 0 }, /^version/],
    [{ ...base, version: 1.5 }, /^version/],
    [{ ...base, version: 2 ** 31 }, /^version/],
    [{ ...base, version: '2' }, /^version/],
    [{ ...base, payout_limit_eur: -1 }, /^payout_limit_eur: not a whole number 0…4294967295/],
    [{ ...base, offline_limit_eur: 2 ** 32 }, /^offline_limit_eur/],
    [{ ...base, id_threshold_eur: 0 }, /^id_threshold_eur/],
    [{ ...base, payout_limit_eur: 6000 }, /above the ID threshold/],
    [{ ...base, emissions: [] }, /^emissions: not a list/],
    [{ ...base, emissions: {} }, /^emissions: not a list/],
    [
      { ...base, emissions: Array.from({ length: 33 }, (_, i) => ({ ...e0, number: i })) },
      /^emissions: not a list of 1…32/,
    ],
    [{ ...base, emissions: [1] }, /emissions\[0\]: not an object/],
    [{ ...base, emissions: [{ ...e0, closing: '2026-01-01' }] }, /emissions\[0\]: unknown field "closing"/],
    [{ ...base, emissions: [{ ...e0, number: 65536 }] }, /emissions\[0\].number/],
    [{ ...base, emissions: [e0, { ...e0 }] }, /emissions\[1\].number: not 0…65535, once/],
    [{ ...base, emissions: [{ ...e0, name: '' }] }, /emissions\[0\].name/],
    [{ ...base, emissions: [{ ...e0, name: 'x'.repeat(33) }] }, /emissions\[0\].name/],
    [{ ...base, emissions: [{ ...e0, name: 'a\nb' }] }, /emissions\[0\].name/],
    [{ ...base, emissions: [{ ...e0, name: '\ud800' }] }, /emissions\[0\].name/],
    [{ ...base, emissions: [{ ...e0, on_sale: '2026-02-30' }] }, /emissions\[0\].on_sale/],
    [{ ...base, emissions: [{ ...e0, closes: null }] }, /emissions\[0\].closes/],
    [{ ...base, emissions: [{ ...e0, closes: '2025-12-31' }] }, /emissions\[0\].closes: .*from on_sale/],
    [{ ...base, holidays: 'x' }, /^holidays: not a list of 0…32/],
    [{ ...base, holidays: Array.from({ length: 33 }, () => '2026-01-01') }, /^holidays: not a list of 0…32/],
    [{ ...base, holidays: ['2026-13-01'] }, /holidays\[0\]: not a date/],
    [{ ...base, holidays: ['2026-05-22', '2026-05-22'] }, /holidays\[1\]: not a date YYYY-MM-DD after the one before/],
    [{ ...base, holidays: ['2026-05-22', '2026-05-21'] }, /holidays\[1\]: not a date YYYY-MM-DD after the one before/],
    [{ ...base, departments: {} }, /^departments: not a list of 0…16/],
    [{ ...base, departments: Array.from({ length: 17 }, () => ({ ...d0 })) }, /^departments: not a list of 0…16/],
    [{ ...base, departments: [1] }, /departments\[0\]: not an object/],
    [{ ...base, departments: [{ ...d0, name: 'x' }] }, /departments\[0\]: unknown field "name"/],
    [{ ...base, departments: [{ ...d0, code: 974 }] }, /departments\[0\].code: not a department/],
    [{ ...base, departments: [{ ...d0, code: '977' }] }, /departments\[0\].code: not a department/],
    [{ ...base, departments: [{ ...d0, code: '20' }] }, /departments\[0\].code: not a department/],
    [{ ...base, departments: [d0, { ...d0 }] }, /departments\[1\].code: .*once/],
    [
      { ...base, departments: [{ ...d0, holidays: ['2026-12-21', '2026-12-20'] }] },
      /departments\[0\].holidays\[1\]: not a date/,
    ],
    [{ ...base, departments: [{ code: '974' }] }, /departments\[0\].holidays: not a list/],
    [
      {
        ...base,
        emissions: Array.from({ length: 32 }, (_, i) => ({ ...e0, number: i, name: '€'.repeat(32) })),
      },
      /^notice: over 3072 bytes/,
    ],
  ];
  for (const [n, re] of cases) {
    const p = noticeProblem(n);
    assert.ok(p !== null && re.test(p), `${JSON.stringify(n)?.slice(0, 80)} → ${p}`);
    PROBLEMS.push(p!);
    // Never throws, whatever the text.
    const t = parseNoticeText(JSON.stringify({ notice: n }));
    assert.ok('error' in t && re.test(t.error), String('error' in t && t.error));
  }
  const bad: [string, RegExp][] = [
    ['', /not JSON/],
    ['{', /not JSON/],
    ['[]', /^signed notice: not an object/],
    ['x'.repeat(NOTICE_TEXT_MAX + 1), /over 8192 characters/],
    [JSON.stringify({ notice: base, signature: 'ab' }), /signature: not 128/],
    [JSON.stringify({ notice: base, signature: 'A'.repeat(128) }), /signature: not 128/],
    [JSON.stringify({ notice: base, signer: 'me' }), /^signed notice: unknown field "signer"/],
  ];
  for (const [text, re] of bad) {
    const p = parseNoticeText(text);
    assert.ok('error' in p && re.test(p.error), `${text.slice(0, 40)} → ${JSON.stringify(p).slice(0, 80)}`);
    if ('error' in p) PROBLEMS.push(p.error);
  }
});

test('every notice problem and device refusal is said in French under French, as it is under English', () => {
  // The device's refusal details (rom/service.ts NOTICE; the simulator's driver).
  const device = [
    'the notice is not signed',
    'this device has no operator key',
    'the signature does not verify with the operator key',
    'version 2 is not above the version held, 3',
    'not ASCII',
    'no answer',
    'reply is not JSON',
  ];
  assert.ok(PROBLEMS.length > 40, String(PROBLEMS.length));
  const bad: string[] = [];
  for (const p of [...PROBLEMS, ...device]) {
    const fr = [messages('fr').notice.malformed('avis.json', p), messages('fr').notice.refused('older', p)];
    for (const line of fr) {
      const left = prose(line.replace(/[\w.[\]]+ :/g, ' '));
      if (ENGLISH.test(left)) bad.push(`'${ENGLISH.exec(left)![0]}' in: ${line}`);
    }
    assert.is(messages('en').notice.malformed('n.json', p), `n.json is not a notice: ${p}`);
  }
  assert.is(bad.length, 0, bad.join('\n'));
});

test('department holidays: signed with the notice, each device takes its own department’s on top of all', () => {
  const n: Notice = {
    ...base,
    departments: [
      { code: '971', holidays: ['2026-05-27'] },
      { code: '974', holidays: ['2026-12-20'] },
      { code: '2A', holidays: [] },
    ],
  };
  assert.is(noticeProblem(n), null);
  assert.equal(noticeHolidays(n, '974'), ['2026-05-22', '2026-12-20']);
  assert.equal(noticeHolidays(n, '971'), ['2026-05-22', '2026-05-27']);
  assert.equal(noticeHolidays(n, '75'), ['2026-05-22']);
  assert.equal(noticeHolidays(n, ''), ['2026-05-22']);
  // The departments are signed: moving a holiday to another department breaks the signature.
  const s = sign(n);
  assert.is(noticeRefusal(parseNoticeText(signedNoticeText(s)) as SignedNotice, PUB, 1, nobleVerify), null);
  const moved = { ...n, departments: [{ code: '972', holidays: ['2026-05-27'] }, ...n.departments!.slice(1)] };
  assert.is(noticeRefusal({ ...s, notice: moved }, PUB, 1, nobleVerify), 'signature');
  // A notice without departments has the canonical text it had before the field existed.
  assert.not.match(signedNoticeText(sign(base)), /departments/);
});

test('on flash: the newest verified notice wins; a cut at any step keeps the old or the new one whole', () => {
  const part = (chip: NorFlash) => partitionFlash(chip, 'notice');
  const chip = new NorFlash();
  const f = part(chip);
  assert.is(loadNotice(f, PUB, nobleVerify), null);
  storeNotice(f, sign(base), null);
  assert.is(loadNotice(f, PUB, nobleVerify)?.signed.notice.version, 2);
  // Another key does not read it: a record that does not verify is no notice.
  assert.is(loadNotice(f, OTHER, nobleVerify), null);
  const v3 = sign({ ...base, version: 3 });
  for (let n = 1; n <= 4; n++) {
    const c = new NorFlash();
    const g = part(c);
    storeNotice(g, sign(base), null);
    c.cutAtOp(n);
    assert.throws(() => storeNotice(g, v3, loadNotice(g, PUB, nobleVerify)));
    c.powerOn();
    const l = loadNotice(g, PUB, nobleVerify);
    assert.ok(l && [2, 3].includes(l.signed.notice.version), `cut at ${n}`);
  }
  // Both sectors hold the newest: one damaged sector leaves it.
  storeNotice(f, v3, loadNotice(f, PUB, nobleVerify));
  for (const s of [0, 1]) {
    const c = new NorFlash();
    c.bytes.set(
      chip.bytes.subarray(LAYOUT.notice.offset, LAYOUT.notice.offset + LAYOUT.notice.size),
      LAYOUT.notice.offset,
    );
    c.bytes[LAYOUT.notice.offset + s * 4096 + 40] ^= 1;
    assert.is(loadNotice(part(c), PUB, nobleVerify)?.signed.notice.version, 3, `sector ${s} damaged`);
  }
});

test.run();
