// `saphir sim` with a registry, as a developer runs it: the real binary, an embedded registry.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, longTest } from '../helpers.ts';
import { noStack, saphir, saphirIn } from '../cli/run-cli.ts';

/** A temp folder of this file's, removed at its end. */
const made: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'saphir-fleet-'));
  made.push(d);
  return d;
};
test.after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

test('interactive with --registry embedded: paid online, then offline once the network is cut', () => {
  const script = [
    'ticket 30',
    'attendre 1s',
    'ok',
    'attendre 3s',
    'réseau coupé',
    'ticket 15',
    'attendre 1s',
    'ok',
    'attendre 3s',
    'journal',
    'quitter',
    '',
  ].join('\n');
  const r = saphir(['sim', '--registry', 'embedded'], script);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /registre central intégré : http:\/\/127\.0\.0\.1:\d+/);
  assert.match(r.stdout, /PAYÉ/);
  assert.match(r.stdout, /réseau coupé/);
  assert.match(r.stdout, /hors ligne/);
  assert.match(r.stdout, /2 paiement\(s\) au journal des paiements/);
});

longTest('a fleet scenario starts its own registry; a wrong expectation fails with the registry state', () => {
  const dir = temp();
  const bad = join(dir, 'bad.yaml');
  writeFileSync(
    bad,
    readFileSync(join(ROOT, 'hw-sim', 'scenarios', 'fleet.yaml'), 'utf8').replace(
      'claims: 2, conflicts: 1, within: 60s',
      'claims: 2, conflicts: 0, within: 5s',
    ),
  );
  // One run of both (each scenario meets a fresh registry): the shipped one passes, the changed one fails.
  const fleet = join(ROOT, 'hw-sim', 'scenarios', 'fleet.yaml');
  const r = saphir(['sim', '--scenario', fleet, bad, '--quiet', '--lang', 'en']);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /1\/2 scenarios passed/);
  assert.match(r.stdout, /expected the registry claims 2, conflicts 0; it holds \d ticket/);
  assert.ok(noStack(r.stdout + r.stderr));
});

test('scenario problems with devices and on: name their line', async () => {
  const dir = temp();
  const f = join(dir, 'p.yaml');
  writeFileSync(f, 'name: p\ndevices: [A, A]\nsteps:\n  - boot\n  - press: OK\n    on: B\n  - network: sideways\n');
  const r = await saphirIn(['sim', '--scenario', f, '--lang', 'en']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /p\.yaml:2: device A is listed twice/);
  assert.match(r.stderr, /p\.yaml:5: on: B is not one of the scenario's devices/);
  assert.match(r.stderr, /p\.yaml:7: network must be one of down, up/);
  assert.equal((await saphirIn(['sim', '--registry', 'ftp://x'])).code, 2);
});

test.run();
