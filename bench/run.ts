// npm run bench [-- AREA…]: runs every bench/<area>.bench.ts (or the named ones), prints a table and
// merges the figures into bench/results.json as {"name": value}, each stamped with the commit and time it
// was measured in bench/results-stamps.json (bench/stamps.ts). The table lists the figures measured now,
// then every other figure of results.json marked as older than the working tree.
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { targetText } from './targets.ts';
import { olderRows, resultsHistory, stampsFromHistory, treeStamp, type Stamp } from './stamps.ts';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const areas = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''))
  .sort();
const usage = `usage: npm run bench [-- AREA…]\nareas: ${areas.join(', ')}\n`;
if (only.some((a) => a === '--help' || a === '-h')) {
  process.stdout.write(usage);
  process.exit(0);
}
const unknown = only.filter((a) => !areas.includes(a));
if (unknown.length > 0) {
  process.stderr.write(`unknown area: ${unknown.join(', ')}\n${usage}`);
  process.exit(2);
}
const files = areas.filter((a) => only.length === 0 || only.includes(a)).map((a) => `${a}.bench.ts`);

const resultsPath = join(here, 'results.json');
const results: Record<string, number> = existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, 'utf8')) : {};
const stampsPath = join(here, 'results-stamps.json');
const stamps: Record<string, Stamp> = existsSync(stampsPath) ? JSON.parse(readFileSync(stampsPath, 'utf8')) : {};
// A figure without a stamp (written by hand, or before stamps) gets the commit that recorded it.
if (Object.keys(results).some((k) => !stamps[k]))
  Object.assign(stamps, stampsFromHistory(results, stamps, resultsHistory(join(here, '..'))));
// Taken before the run: a file edited while it runs makes its figures older than the tree, not newer.
const now = treeStamp(join(here, '..'));
const rows: [string, string, number][] = [];
for (const f of files) {
  const area = f.replace(/\.bench\.ts$/, '');
  process.stderr.write(`bench ${area}…\n`);
  const mod = (await import(pathToFileURL(join(here, f)).href)) as { default(): Promise<Record<string, number>> };
  const figures = await mod.default();
  for (const [k, v] of Object.entries(figures)) {
    results[k] = v;
    stamps[k] = { ...now, measured_at: new Date().toISOString() };
    rows.push([area, k, v]);
  }
  writeFileSync(resultsPath, JSON.stringify(results, null, 2) + '\n');
  writeFileSync(stampsPath, JSON.stringify(stamps, null, 2) + '\n');
}
const w = Math.max(4, ...rows.map((r) => r[1].length));
process.stdout.write(`${'area'.padEnd(10)} ${'name'.padEnd(w)} ${'value'.padEnd(12)} target\n`);
for (const [a, k, v] of rows) {
  process.stdout.write(
    `${a.padEnd(10)} ${k.padEnd(w)} ${String(Number.isInteger(v) ? v : v.toFixed(3)).padEnd(12)} ${targetText(k, v)}\n`,
  );
}
const fresh = new Set(rows.map((r) => r[1]));
const older = olderRows(results, stamps, fresh, now.commit);
if (older.length > 0) {
  process.stdout.write(`\nother figures in results.json, older than the working tree (${now.commit.slice(0, 10)}):\n`);
  for (const [k, why] of older)
    process.stdout.write(`${''.padEnd(10)} ${k.padEnd(w)} ${String(results[k]).slice(0, 12).padEnd(12)} ${why}\n`);
}
if (now.commit.endsWith('+dirty') || now.commit === 'unknown')
  process.stdout.write(`\nthe working tree has uncommitted changes: today's figures are stamped ${now.commit}\n`);
process.stdout.write(`\nwritten to ${resultsPath} (stamps: ${stampsPath})\n`);
