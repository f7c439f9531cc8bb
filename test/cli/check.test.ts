// `saphir check`, run as the real CLI: JSON shape and order, exit codes, hostile input.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadVectors } from '../helpers.ts';
import { noStack, saphir, saphirIn } from './run-cli.ts';
import { run } from '../../host/commands/check.ts';
import { UsageError } from '../../host/args.ts';

const { vectors } = loadVectors();
const byName = (n: string) => vectors.find((v) => v.name === n)!.code;
const win30 = byName('win-30-0');
const lose = byName('lose-0');
const badSig = vectors.find((v) => v.expect.reason === 'E_SIGNATURE')!.code;

test('--json: one object per input, in order, with the documented fields', () => {
  const r = saphir(['check', '--json', win30, lose, badSig, 'hello']);
  assert.is(r.code, 1);
  const rows = r.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.is(rows.length, 4);
  assert.equal(
    rows.map((o) => o.code),
    [win30, lose, badSig, 'hello'],
  );
  assert.equal(
    rows.map((o) => o.status),
    ['win', 'lose', 'invalid', 'invalid'],
  );
  assert.equal(
    rows.map((o) => o.reason),
    [null, null, 'E_SIGNATURE', 'E_PREFIX'],
  );
  const w = rows[0];
  assert.equal(Object.keys(w), ['code', 'status', 'prize_eur', 'reason', 'ticket', 'winning', 'player', 'matched']);
  assert.is(w.prize_eur, 30);
  assert.equal(Object.keys(w.ticket), ['game', 'emission', 'block', 'number', 'key_id']);
  assert.is(w.winning.length, 6);
  assert.is(w.player.length, 20);
  assert.equal(Object.keys(w.player[0]), ['number', 'amount_eur']);
  const matchedSum = w.player
    .filter((p: { number: number }) => w.matched.includes(p.number))
    .reduce((s: number, p: { amount_eur: number }) => s + p.amount_eur, 0);
  assert.is(matchedSum, 30);
  assert.ok(rows[2].ticket, 'a bad signature still shows the ticket');
  assert.is(rows[3].ticket, undefined);
  assert.is(rows[3].prize_eur, 0);
});

test('readable lines in French by default, English with --lang en; exit 0 when all genuine', async () => {
  const fr = saphir(['check', win30, lose]);
  assert.is(fr.code, 0);
  const [a, b] = fr.stdout.trimEnd().split('\n');
  assert.ok(a.startsWith('GAGNANT 30 €'), a);
  assert.ok(b.startsWith('PERDANT'), b);
  const en = await saphirIn(['check', '--lang', 'en', badSig]); // the same main, in this process
  assert.is(en.code, 1);
  assert.ok(en.stdout.startsWith('NOT VALID — invalid signature'), en.stdout);
});

test('usage errors exit 2 without a stack trace', async () => {
  for (const args of [['--lang', 'de', win30], ['--bogus']]) {
    try {
      await run(args);
      assert.unreachable(args.join(' '));
    } catch (e) {
      assert.instance(e, UsageError, args.join(' '));
    }
  }
  const r = await saphirIn(['check', '--lang', 'de', win30]);
  assert.is(r.code, 2);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /^saphir check: --lang vaut fr ou en, pas « de »/);
  assert.ok(noStack(r.stderr), r.stderr);
});

test('stdin: binary garbage, empty lines and a 10 MB line each get a reason, in order', () => {
  const garbage = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x1b, 0x5b, 0x41, 0xc3]);
  // 10 MiB ≡ 1 (mod 3): not Base45; one more character makes a valid Base45 length, far too long.
  const huge = 'SPH1:' + 'A'.repeat(10 * 1024 * 1024);
  const input = Buffer.concat([
    Buffer.from(win30 + '\n'),
    garbage,
    Buffer.from('\n\n\r\n'),
    Buffer.from(huge + '\n'),
    Buffer.from('SPH1:' + '0'.repeat(10 * 1024 * 1024 + 1) + '\n'),
    Buffer.from(lose),
  ]);
  const r = saphir(['check', '--json', '-'], input);
  assert.is(r.code, 1);
  assert.ok(noStack(r.stderr), r.stderr);
  const rows = r.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(
    rows.map((o) => o.reason),
    [null, 'E_PREFIX', 'E_PREFIX', 'E_PREFIX', 'E_BASE45', 'E_LENGTH', null],
  );
  assert.equal(
    rows.map((o) => o.status),
    ['win', 'invalid', 'invalid', 'invalid', 'invalid', 'invalid', 'lose'],
  );
});

test.run();
