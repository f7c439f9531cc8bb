// Issue #35, item 7: a scenario's `screenshot:` stays in the scenario's folder (or `--screenshots DIR`):
// an absolute path or `..` is a scenario error with its line, and a symbolic link on the way, the file
// itself included, is refused at the step (nothing is written where it points).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  mkdtempSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseScenario } from '../../hw-sim/scenario.ts';
import { runScenario } from '../../hw-sim/runner.ts';
import { simHost } from '../../hw-sim/host.ts';
import '../../hw-sim/node-host.ts';

const root = mkdtempSync(join(tmpdir(), 'saphir-shot-'));
const here = join(root, 'scenarios');
const away = join(root, 'elsewhere');
mkdirSync(here);
mkdirSync(away);
const yaml = (shot: string) => `name: shot\nsteps:\n  - boot\n  - screenshot: ${JSON.stringify(shot)}\n`;
const run = (shot: string, screenshotDir?: string) =>
  runScenario(parseScenario(yaml(shot), join(here, 'shot.yaml')), { screenshotDir });

test('an absolute path or .. is a scenario error', () => {
  for (const shot of ['/tmp/x.png', '../x.png', 'a/../../x.png', 'a\\\\..\\\\x.png', 'C:/x.png']) {
    assert.throws(
      () => parseScenario(yaml(shot), join(here, 'shot.yaml')),
      (e: Error) => /shot\.yaml:4: screenshot must stay in the scenario's folder/.test(e.message),
      shot,
    );
  }
});

test('a symbolic link on the way or as the file is refused, nothing written where it points', async () => {
  symlinkSync(away, join(here, 'linked'));
  const r = await run('linked/a.png');
  assert.not.ok(r.ok);
  assert.match(JSON.stringify(r.steps), /lien symbolique \(non suivi\)/);
  assert.equal(readdirSync(away), []);
  const target = join(away, 'target.png');
  writeFileSync(target, 'precious');
  symlinkSync(target, join(here, 'b.png'));
  const r2 = await run('b.png');
  assert.not.ok(r2.ok);
  assert.match(JSON.stringify(r2.steps), /lien symbolique \(non suivi\)/);
  assert.is(readFileSync(target, 'utf8'), 'precious');
  // --screenshots DIR: the same rules under it.
  const out = join(root, 'out');
  mkdirSync(out);
  symlinkSync(away, join(out, 'l'));
  assert.not.ok((await run('l/c.png', out)).ok);
  assert.equal(readdirSync(away), ['target.png']);
});

test('a path inside the folder is written, folders made', async () => {
  const r = await run('shots/deep/ok.png');
  assert.ok(r.ok, JSON.stringify(r.steps));
  assert.ok(existsSync(join(here, 'shots', 'deep', 'ok.png')));
  const out = join(root, 'out2');
  assert.ok((await run('x/ok.png', out)).ok);
  assert.ok(existsSync(join(out, 'x', 'ok.png')));
  // The host refuses what a parser let through (another caller): .. and absolute.
  const files = simHost().files;
  assert.throws(() => files.writeInside(here, '../z.png', new Uint8Array(1)), /leaves/);
  assert.throws(() => files.writeInside(here, join(away, 'z.png'), new Uint8Array(1)), /leaves/);
  assert.not.ok(existsSync(join(root, 'z.png')));
});

test.after(() => rmSync(root, { recursive: true, force: true }));
test.run();
