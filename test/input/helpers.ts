// Shared helpers of the input tests: fixtures and running a decoder over a list of reports.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.ts';
import { parseHexReports } from '../../src/input/capture.ts';
import type { InputEvent } from '../../src/input/event.ts';

export const FIXTURES = join(ROOT, 'test', 'fixtures', 'input');
export const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';

export function fixture(name: string): Buffer {
  return readFileSync(join(FIXTURES, name));
}

export function reportsOf(name: string): Uint8Array[] {
  const c = parseHexReports(fixture(name).toString('utf8'));
  if (c.errors.length) throw new Error(`${name}: ${JSON.stringify(c.errors)}`);
  return c.reports;
}

interface Decoder {
  push(x: Uint8Array, nowMs: number): void;
  read(): InputEvent | undefined;
}

/** Pushes every item 10 ms apart and returns all the events. */
export function run(d: Decoder, items: Uint8Array[], stepMs = 10): InputEvent[] {
  const out: InputEvent[] = [];
  let t = 0;
  for (const it of items) {
    d.push(it, (t += stepMs));
    for (let e = d.read(); e; e = d.read()) out.push(e);
  }
  return out;
}

export const codes = (events: InputEvent[]) => events.filter((e) => e.type === 'code').map((e) => (e as { text: string }).text);
