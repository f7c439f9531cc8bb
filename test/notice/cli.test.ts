// saphir notice create / sign / inspect with department holidays (docs/operations.md), through the CLI's
// main in this process (test/cli/run-cli.ts saphirIn).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saphirIn } from '../cli/run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'saphir-notice-cli-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const f = (name: string) => join(dir, name);

test('create --holiday DEPT:DATE, sign, inspect --department: each department’s deadline', async () => {
  // Emission 4 closes Friday 19 June 2026: day 30 is Sunday 19 July, moved to Monday 20.
  let r = await saphirIn([
    'notice',
    'create',
    '--version',
    '7',
    '--emission',
    '4:SAPHIR 4:2026-05-04:2026-06-19',
    '--holiday',
    '974:2026-07-20',
    '--holiday',
    '971:2026-07-21',
    '--holiday',
    '2026-12-24',
    '-o',
    f('n.json'),
  ]);
  assert.is(r.code, 0, r.stderr);
  const n = JSON.parse(readFileSync(f('n.json'), 'utf8')).notice;
  assert.equal(n.holidays, ['2026-12-24']);
  assert.equal(n.departments, [
    { code: '971', holidays: ['2026-07-21'] },
    { code: '974', holidays: ['2026-07-20'] },
  ]);
  r = await saphirIn(['notice', 'sign', f('n.json'), '-o', f('s.json')]);
  assert.is(r.code, 0, r.stderr);
  r = await saphirIn(['notice', 'inspect', f('s.json'), '--department', '974']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /Jours fériés du département 974 : 2026-07-20/);
  assert.match(r.stdout, /Jours fériés du département 971 : 2026-07-21/);
  assert.match(r.stdout, /Limites de paiement pour un appareil du département 974/);
  assert.match(r.stdout, /2026-06-19\s+2026-07-21/);
  r = await saphirIn(['notice', 'inspect', f('s.json'), '--department', '971', '--lang', 'en']);
  assert.match(r.stdout, /2026-06-19\s+2026-07-20/);
  assert.match(r.stdout, /Claim deadlines for a device of department 971/);
  r = await saphirIn(['notice', 'inspect', f('s.json'), '--json']);
  assert.is(JSON.parse(r.stdout).emissions[0].claim_deadline, '2026-07-20');
  r = await saphirIn(['notice', 'inspect', f('s.json'), '--json', '--department', '974']);
  assert.is(JSON.parse(r.stdout).emissions[0].claim_deadline, '2026-07-21');
});

test('a department that is none is a usage error saying what a department is', async () => {
  const create = (holiday: string) =>
    saphirIn(['notice', 'create', '--version', '1', '--emission', '4:X:2026-05-04', '--holiday', holiday]);
  let r = await create('977:2026-07-20');
  assert.is(r.code, 2);
  assert.match(r.stderr, /977:2026-07-20 : pas un département \(01…95, 2A, 2B, 971…976\)/);
  r = await create('974:2026-13-01');
  assert.is(r.code, 1);
  assert.match(r.stderr, /departments\[0\]\.holidays\[0\] : pas une date AAAA-MM-JJ/);
  r = await saphirIn(['notice', 'inspect', f('s.json'), '--department', 'x', '--lang', 'en']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /x: not a department/);
});

test.run();
