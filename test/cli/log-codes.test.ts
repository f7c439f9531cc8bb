// The device log as codes (src/messages/log-codes.ts, log.ts): every code has a text in English (the
// line as the device wrote it before) and in French (the English line through the French catalogue's
// device-log table), the firmware's coded lines read as before once expanded, and the firmware carries
// the codes, not the words.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import * as codes from '../../src/messages/log-codes.ts';
import { LOG_TEXT, expandLog, logArity } from '../../src/messages/log.ts';
import { messages } from '../../src/messages/index.ts';
import { ensureBuilt, CORE_PATH, LAZY_PARTS } from '../../tools/build.ts';
import { partPath } from '../../tools/paths.ts';

const { LOG_SEP, LOG_CODES } = codes;
const coded = (code: number, ...args: unknown[]) => LOG_SEP + [code, ...args].map(String).join(LOG_SEP);

test('every code has a text in en and in fr; the codes are 0…LOG_CODES-1, once each', () => {
  const values = Object.entries(codes)
    .filter(([k]) => k.startsWith('LOG_') && k !== 'LOG_SEP' && k !== 'LOG_CODES')
    .map(([, v]) => v as number)
    .sort((a, b) => a - b);
  assert.equal(
    values,
    Array.from({ length: LOG_CODES }, (_, i) => i),
  );
  assert.is(LOG_TEXT.length, LOG_CODES, 'one English text a code');
  // Arguments of the kinds the device logs: a count, a ticket, a source, the dev mark, a config source, a reason.
  const kinds = ['3', '1-9-501', 'registry', ' (dev)', 'flash sector 0', 'timeout', 'X', ''];
  const fr = messages('fr').web.log;
  for (let c = 0; c < LOG_CODES; c++) {
    const t = LOG_TEXT[c];
    assert.ok(t.trim(), `code ${c}: a text`);
    const k = logArity(t);
    for (let i = 0; i < k; i++) assert.ok(t.includes(`{${i}}`), `code ${c} uses {${i}}`);
    // Some arguments of those kinds give an English line the French table says in French.
    let said = false;
    for (let n = 0; n < kinds.length ** k && !said; n++) {
      const args = Array.from({ length: k }, (_, i) => kinds[Math.floor(n / kinds.length ** i) % kinds.length]);
      const en = expandLog(coded(c, ...args));
      said = fr(en) !== en;
    }
    assert.ok(said, `code ${c} (${t}): no French for it in messages('fr').web.log`);
  }
});

test("coded lines read as the device's lines read before (English), or in French", () => {
  assert.is(expandLog(coded(codes.LOG_READY, 3, 2, 1000)), 'ready: 3 payments held, 2 keys, limit 1000 EUR');
  assert.is(expandLog(coded(codes.LOG_PAID_OFFLINE, '1-9-1', 150)), 'paid 1-9-1 150 EUR offline');
  assert.is(expandLog(coded(codes.LOG_SYNC_NOT_SENT, 4, 'timeout')), 'sync: not sent (timeout), 4 waiting');
  assert.is(expandLog(coded(codes.LOG_REGISTRY_KEY, 'abcdef0123456789')), 'registry: device key abcdef0123456789…');
  assert.is(
    expandLog(coded(codes.LOG_NOTICE_REFUSED, 3, 'registry', 'no partition', '')),
    'notice 3 from registry refused: no partition',
  );
  assert.is(expandLog(coded(codes.LOG_IMAGE_CONFIRMED)), 'image confirmed');
  assert.is(messages('fr').web.log(expandLog(coded(codes.LOG_PAID, '1-9-1', 150))), 'payé 1-9-1 150 €');
  // The last argument takes the rest of the line (an error message may hold a separator).
  assert.is(expandLog(coded(codes.LOG_ERROR, `a${LOG_SEP}b`)), `error: a${LOG_SEP}b`);
  // Not a coded line: as it is; an unknown code: readable.
  assert.is(expandLog('plain line'), 'plain line');
  assert.is(expandLog(coded(999, 'x', 1)), '#999 x 1');
});

test('the firmware carries the codes, not the words', async () => {
  await ensureBuilt();
  // The core and the parts compiled apart (the registry link's lines are in its part).
  const firmware = [CORE_PATH, ...LAZY_PARTS.map((p) => partPath(p.name))].map((f) => readFileSync(f, 'utf8'));
  assert.ok(firmware[1].includes('/v1/'), "the registry link's part is read");
  const texts = [codes.LOG_REGISTRY_NONE, codes.LOG_UPDATE_OVER, codes.LOG_UPDATE_RESTART, codes.LOG_IMAGE_CONFIRMED];
  for (const words of [...texts.map((c) => LOG_TEXT[c]), ' keys, limit ', ' expired payments dropped'])
    for (const text of firmware) assert.not.ok(text.includes(words), `"${words}" is not in the firmware`);
});

test.run();
