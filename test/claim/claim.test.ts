import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import {
  claimDeadline,
  claimEndMs,
  dateOfDay,
  dayNumber,
  easterSunday,
  isClaimable,
  isDate,
  isPublicHoliday,
  isWorkingDay,
  parisDate,
  parisMidnightUtc,
  parisOffsetMinutes,
  publicHolidays,
} from '../../src/claim.ts';
import { frenchDateTime } from '../../src/paris-time.ts';

const utc = (s: string) => Date.parse(s); // ISO with Z only, in tests

test('Easter Sunday of known years', () => {
  const known: Record<number, string> = {
    1818: '1818-03-22',
    1943: '1943-04-25',
    2000: '2000-04-23',
    2019: '2019-04-21',
    2024: '2024-03-31',
    2025: '2025-04-20',
    2026: '2026-04-05',
    2027: '2027-03-28',
    2038: '2038-04-25',
    2285: '2285-03-22',
  };
  for (const [y, d] of Object.entries(known)) assert.is(easterSunday(+y), d, y);
});

test('Easter is always a Sunday between 22 March and 25 April', () => {
  for (let y = 1583; y <= 3000; y++) {
    const e = easterSunday(y);
    assert.is(new Date(dayNumber(e) * 86_400_000).getUTCDay(), 0, e);
    assert.ok(e.slice(5) >= '03-22' && e.slice(5) <= '04-25', e);
  }
  assert.throws(() => easterSunday(1500), RangeError);
  assert.throws(() => easterSunday(2026.5), RangeError);
});

test('the public holidays of 2026 and 2027', () => {
  assert.equal(publicHolidays(2026), [
    '2026-01-01',
    '2026-04-06',
    '2026-05-01',
    '2026-05-08',
    '2026-05-14',
    '2026-05-25',
    '2026-07-14',
    '2026-08-15',
    '2026-11-01',
    '2026-11-11',
    '2026-12-25',
  ]);
  // 2027: Ascension (6 May) falls before 8 May
  assert.equal(publicHolidays(2027).slice(1, 6), [
    '2027-03-29',
    '2027-05-01',
    '2027-05-06',
    '2027-05-08',
    '2027-05-17',
  ]);
  assert.ok(isPublicHoliday('2025-06-09')); // Whit Monday
  assert.ok(!isPublicHoliday('2025-04-18')); // Good Friday: Alsace-Moselle only
  assert.ok(!isPublicHoliday('2025-12-26'));
});

test('working days: Saturday works, Sunday and holidays do not', () => {
  assert.ok(isWorkingDay('2026-05-02')); // Saturday
  assert.ok(!isWorkingDay('2026-05-03')); // Sunday
  assert.ok(!isWorkingDay('2026-05-01')); // Friday, Labour Day
  assert.ok(isWorkingDay('2026-05-04'));
});

test('deadline: closing + 30 days on a working day', () => {
  assert.is(claimDeadline('2026-01-05'), '2026-02-04'); // Wednesday
  assert.is(claimDeadline('2026-01-31'), '2026-03-02'); // across February
  assert.is(claimDeadline('2024-01-31'), '2024-03-01'); // leap year (29 days in February)
  assert.is(claimDeadline('2026-12-15'), '2027-01-14'); // across the year
});

test('deadline on a Saturday stays', () => {
  assert.is(claimDeadline('2026-01-03'), '2026-02-02'); // sanity: Monday
  assert.is(claimDeadline('2026-01-01'), '2026-01-31'); // 31 Jan 2026 is a Saturday
});

test('deadline on a Sunday moves to Monday', () => {
  assert.is(claimDeadline('2026-01-02'), '2026-02-02'); // 1 Feb 2026 is a Sunday
});

test('deadline on a holiday moves; a Sunday then a holiday moves twice', () => {
  assert.is(claimDeadline('2026-06-14'), '2026-07-15'); // 14 July, Tuesday → Wednesday
  assert.is(claimDeadline('2026-03-06'), '2026-04-07'); // 5 Apr Easter Sunday, 6 Apr Easter Monday → Tuesday
  assert.is(claimDeadline('2026-04-24'), '2026-05-26'); // 24 May Whit Sunday, 25 Whit Monday → 26
  assert.is(claimDeadline('2026-10-02'), '2026-11-02'); // 1 Nov, Sunday and All Saints → Monday
  assert.is(claimDeadline('2026-11-25'), '2026-12-26'); // 25 Dec Friday → Saturday 26
  assert.is(claimDeadline('2027-12-02'), '2028-01-03'); // 1 Jan 2028 Saturday is a holiday, 2 Sunday → Monday 3
});

test('the deadline is never a Sunday or a holiday, never earlier than 30 days, at most a few days more', () => {
  fc.assert(
    fc.property(fc.integer({ min: dayNumber('1990-01-01'), max: dayNumber('2200-12-31') }), (d) => {
      const closing = dateOfDay(d);
      const dl = claimDeadline(closing);
      const gap = dayNumber(dl) - d;
      return isWorkingDay(dl) && gap >= 30 && gap <= 33;
    }),
    { numRuns: 3000, seed: 4 },
  );
});

test('bad dates are refused with a reason', () => {
  for (const bad of ['2026-02-29', '2026-13-01', '2026-00-10', '2026-1-5', '05/01/2026', '', 'x', null, 20260101]) {
    assert.throws(() => claimDeadline(bad as string), /not a date/);
    assert.throws(() => isClaimable(bad as string, 0), /not a date/);
  }
  assert.is(dayNumber('2024-02-29'), 19782);
  for (const d of ['0050-03-01', '0000-02-29'])
    assert.is(dateOfDay(dayNumber(d)), d, 'years 0…99 are not read as 1900…1999');
  assert.throws(() => isClaimable('2026-01-01', NaN), RangeError);
});

test('isDate: the one date check (configuration, scenarios): real dates the claim rules can handle', () => {
  for (const good of ['2026-02-28', '2024-02-29', '1583-01-01', '9998-12-31']) assert.ok(isDate(good), good);
  for (const bad of [
    '2026-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-1-5',
    '05/01/2026',
    '',
    '1582-12-31',
    '9999-01-01',
    '0050-01-01',
    null,
    20260101,
  ]) {
    assert.not.ok(isDate(bad), String(bad));
  }
  // What isDate accepts, the claim rules compute without throwing.
  for (const d of ['1583-01-01', '9998-12-31']) assert.type(claimEndMs(d), 'number');
});

test('Paris offset follows the EU rule at its exact instants', () => {
  assert.is(parisOffsetMinutes(utc('2026-03-29T00:59:59.999Z')), 60);
  assert.is(parisOffsetMinutes(utc('2026-03-29T01:00:00Z')), 120);
  assert.is(parisOffsetMinutes(utc('2026-10-25T00:59:59.999Z')), 120);
  assert.is(parisOffsetMinutes(utc('2026-10-25T01:00:00Z')), 60);
  assert.is(parisOffsetMinutes(utc('2027-03-28T01:00:00Z')), 120);
  assert.is(parisOffsetMinutes(utc('2026-07-01T12:00:00Z')), 120);
  assert.is(parisOffsetMinutes(utc('2026-12-01T12:00:00Z')), 60);
  assert.is(parisDate(utc('2026-12-31T23:30:00Z')), '2027-01-01');
  assert.is(parisDate(utc('2026-06-30T22:00:00Z')), '2026-07-01');
  assert.is(parisDate(utc('2026-06-30T21:59:59Z')), '2026-06-30');
});

test('Paris midnight on and around DST change days', () => {
  assert.is(parisMidnightUtc('2026-01-10'), utc('2026-01-09T23:00:00Z'));
  assert.is(parisMidnightUtc('2026-03-29'), utc('2026-03-28T23:00:00Z')); // change day: still winter at 00:00
  assert.is(parisMidnightUtc('2026-03-30'), utc('2026-03-29T22:00:00Z'));
  assert.is(parisMidnightUtc('2026-10-25'), utc('2026-10-24T22:00:00Z')); // change day: still summer at 00:00
  assert.is(parisMidnightUtc('2026-10-26'), utc('2026-10-25T23:00:00Z'));
});

test('claimable through the end of the deadline day, Paris time', () => {
  // closing 2026-01-01 → deadline Saturday 2026-01-31 (winter, UTC+1)
  assert.ok(isClaimable('2026-01-01', utc('2026-01-31T22:59:59.999Z')));
  assert.ok(!isClaimable('2026-01-01', utc('2026-01-31T23:00:00Z')));
  // closing 2026-06-14 → deadline 2026-07-15 (summer, UTC+2)
  assert.ok(isClaimable('2026-06-14', utc('2026-07-15T21:59:59.999Z')));
  assert.ok(!isClaimable('2026-06-14', utc('2026-07-15T22:00:00Z')));
  // before closing, of course
  assert.ok(isClaimable('2026-06-14', utc('2026-01-01T00:00:00Z')));
});

test('claimable at the DST edges: deadline the day before a change', () => {
  // deadline Saturday 2026-03-28: ends at 00:00 Paris on 29 March, still UTC+1 → 23:00Z
  assert.is(claimDeadline('2026-02-26'), '2026-03-28');
  assert.ok(isClaimable('2026-02-26', utc('2026-03-28T22:59:59Z')));
  assert.ok(!isClaimable('2026-02-26', utc('2026-03-28T23:00:00Z')));
  // deadline Saturday 2026-10-24: ends at 00:00 Paris on 25 October, still UTC+2 → 22:00Z
  assert.is(claimDeadline('2026-09-24'), '2026-10-24');
  assert.ok(isClaimable('2026-09-24', utc('2026-10-24T21:59:59Z')));
  assert.ok(!isClaimable('2026-09-24', utc('2026-10-24T22:00:00Z')));
  // deadline on the change day itself (Sunday → moves to Monday 30 March, UTC+2 by then)
  assert.is(claimDeadline('2026-02-27'), '2026-03-30');
  assert.ok(isClaimable('2026-02-27', utc('2026-03-30T21:59:59Z')));
  assert.ok(!isClaimable('2026-02-27', utc('2026-03-30T22:00:00Z')));
});

// The calendar is arithmetic (the device's engine has no Date): it must agree with Date everywhere.
test('day numbers, dates, Paris offsets and times agree with Date from year 0 to 9999', () => {
  const dateRef = (day: number) => {
    const t = new Date(day * 86_400_000);
    const y = t.getUTCFullYear();
    const p = (n: number) => String(n).padStart(2, '0');
    return `${String(y).padStart(4, '0')}-${p(t.getUTCMonth() + 1)}-${p(t.getUTCDate())}`;
  };
  const first = dayNumber('0000-01-01');
  const last = dayNumber('9999-12-31');
  assert.is(first, new Date(0).setUTCFullYear(0, 0, 1) / 86_400_000);
  assert.is(last, Date.UTC(9999, 11, 31) / 86_400_000);
  const check = (day: number) => {
    const d = dateOfDay(day);
    assert.is(d, dateRef(day), `day ${day}`);
    assert.is(dayNumber(d), day, d);
  };
  // Every day around the era and century edges, then a sample of the rest.
  for (const edge of [
    '0000-01-01',
    '1600-02-28',
    '1700-02-28',
    '1900-02-28',
    '1970-01-01',
    '2000-02-28',
    '2100-02-28',
    '9999-12-01',
  ])
    for (let k = -400; k <= 400; k++)
      if (dayNumber(edge) + k >= first && dayNumber(edge) + k <= last) check(dayNumber(edge) + k);
  fc.assert(
    fc.property(fc.integer({ min: first, max: last }), (day) => (check(day), true)),
    { numRuns: 3000 },
  );
  // The year of an instant, and so the Paris offset (+ the time the screens print: frenchDateTime).
  const offsetRef = (ms: number) => {
    const y = new Date(ms).getUTCFullYear();
    const lastSun = (m: number) => {
      const t = Date.UTC(y, m, 0);
      return t - new Date(t).getUTCDay() * 86_400_000 + 3_600_000;
    };
    return ms >= lastSun(3) && ms < lastSun(10) ? 120 : 60;
  };
  fc.assert(
    fc.property(fc.integer({ min: Date.UTC(1583, 0, 1), max: Date.UTC(9998, 11, 31) }), (ms) => {
      assert.is(parisOffsetMinutes(ms), offsetRef(ms), new Date(ms).toISOString());
      const local = new Date(ms + offsetRef(ms) * 60_000);
      assert.is(frenchDateTime(ms).slice(-5), local.toISOString().slice(11, 16), new Date(ms).toISOString());
      return true;
    }),
    { numRuns: 3000 },
  );
});

test.run();
