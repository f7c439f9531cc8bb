// The payability rules that used to live in App (firmware/decide.ts): no trusted time or a doubtful
// ledger withholds a win, OK re-checks the claim deadline, a duplicate the ledger refuses is shown paid.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { atOk, plausible, PLAUSIBLE_FROM, recordRefused, withheld, type Verdict } from '../../firmware/decide.ts';

const ticket = { game: 0x250, emission: 1, block: 2, number: 3, keyId: 0 };
const win: Extract<Verdict, { kind: 'win' }> = { kind: 'win', ticket, prizeEur: 150 };
const paid = { prizeEur: 150, paidAtMs: PLAUSIBLE_FROM + 5, deviceId: 'SPH-7' };

test('withheld: no trusted time before 2024-01-01 UTC, then a doubtful ledger, else payable', () => {
  assert.is(withheld(0, false), 'clock', 'an unset clock');
  assert.is(withheld(PLAUSIBLE_FROM - 1, false), 'clock', 'the last moment of 2023');
  assert.is(withheld(PLAUSIBLE_FROM - 1, true), 'clock', 'the clock is said first');
  assert.is(withheld(PLAUSIBLE_FROM, false), '', 'from 2024-01-01 00:00 UTC');
  assert.is(withheld(PLAUSIBLE_FROM, true), 'ledger', 'both ledger copies damaged');
  assert.is(withheld(Date.UTC(2026, 11, 4), false), '');
  assert.is(PLAUSIBLE_FROM, Date.UTC(2024, 0, 1));
});

test('plausible: 2024-01-01 ≤ t < 2100-01-01 UTC', () => {
  assert.ok(plausible(Date.UTC(2024, 0, 1)));
  assert.not.ok(plausible(Date.UTC(2024, 0, 1) - 1));
  assert.ok(plausible(Date.UTC(2100, 0, 1) - 1));
  assert.not.ok(plausible(Date.UTC(2100, 0, 1)));
  assert.not.ok(plausible(NaN));
});

test('atOk: the claim period re-checked when OK is pressed', () => {
  assert.is(atOk(win, 1999, 2000), win, 'still open: the same win');
  assert.equal(
    atOk(win, 2000, 2000),
    { kind: 'expired', ticket, prizeEur: 150, deadlineMs: 2000 },
    'the deadline is exclusive',
  );
  assert.equal(atOk(win, 9999, 2000).kind, 'expired');
});

test('recordRefused: a duplicate is shown paid with the ledger’s record; a full ledger, any other failure', () => {
  assert.equal(recordRefused(win, 'DUPLICATE', paid), { kind: 'already-paid', ticket, prizeEur: 150, paid });
  assert.is(recordRefused(win, 'DUPLICATE', undefined), 'recordFailed', 'refused as a duplicate but not found');
  assert.is(recordRefused(win, 'FULL', undefined), 'ledgerFull');
  assert.is(recordRefused(win, 'FLASH', undefined), 'recordFailed');
  assert.is(recordRefused(win, undefined, paid), 'recordFailed', 'not a ledger error: never taken as paid');
});

test.run();
