// Small argument parser shared by every command (node:util parseArgs, with usage errors typed).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Lang } from '../i18n.ts';

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

export function parse<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function langOf(value: unknown): Lang {
  if (value === undefined) return 'fr';
  if (value === 'fr' || value === 'en') return value;
  throw new UsageError(`--lang must be fr or en, not '${String(value)}'`);
}

/** Parses a non-negative integer option; `name` is used in the error. */
export function intOf(value: unknown, name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`${name} must be an integer from ${min} to ${max}`);
  return n;
}
