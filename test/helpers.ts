// Shared test fixtures: the spec's vectors are read from ../shared, never copied.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SHARED = join(ROOT, '..', 'shared');

export interface Vector {
  name: string;
  code: string;
  expect: { status: 'win' | 'lose' | 'invalid'; prize_eur: number; reason: string | null };
}

export function loadVectors(): { test_public_key_hex: string; vectors: Vector[] } {
  return JSON.parse(readFileSync(join(SHARED, 'spec', 'sph1-vectors.json'), 'utf8'));
}
