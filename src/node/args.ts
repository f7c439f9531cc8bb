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

const COMMON = {
  lang: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Parses a command's arguments plus the `--lang` and `--help` every command takes. Prints `help` and
 * returns null when asked for it.
 */
export function parseCommand<O extends Options>(args: string[], help: string, options: O) {
  const r = parse(args, { ...options, ...COMMON } as O & typeof COMMON);
  const common = r.values as { help?: boolean; lang?: string };
  if (common.help) {
    process.stdout.write(help + '\n');
    return null;
  }
  return { values: r.values, positionals: r.positionals, lang: langOf(common.lang) };
}
