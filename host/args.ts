// Small argument parser shared by every command (node:util parseArgs, with usage errors typed).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Lang } from '../src/i18n.ts';
import { messages, type Messages } from '../src/messages/index.ts';
import { errnoOf } from '../src/system-error.ts';

/**
 * A usage error (exit 2). Give it a catalogue message, `(m) => m.decode.noFile`, and the dispatcher prints
 * it in the user's language; `message` is the English text.
 */
export class UsageError extends Error {
  readonly say: (m: Messages) => string;
  constructor(say: string | ((m: Messages) => string)) {
    const f = typeof say === 'string' ? () => say : say;
    super(f(messages('en')));
    this.say = f;
  }
  text(lang: Lang): string {
    return this.say(messages(lang));
  }
}

/** A failure the user can act on (exit 1), said in the user's language like a UsageError. */
export class Failure extends UsageError {}

/**
 * What went wrong, as text, for anything thrown: an Error's message; else a `message` (or `code`) field
 * of an object (some libraries, PGlite among them, throw plain objects); else its JSON; else String().
 */
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'object' && e !== null) {
    const o = e as { message?: unknown; code?: unknown };
    if (typeof o.message === 'string' && o.message) return o.message;
    if (typeof o.code === 'string' && o.code) return o.code;
    try {
      const json = JSON.stringify(e);
      if (json && json !== '{}') return json.length > 500 ? json.slice(0, 500) + '…' : json;
    } catch {
      // a cycle: String() below
    }
    const name = (e as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name !== 'Object' ? name : `{ ${Object.keys(e).join(', ')} }`;
  }
  return String(e);
}

/**
 * What went wrong, in the user's language: a system error (errno code, on the error or its cause) in
 * words from the catalogue (src/system-error.ts), else errorText through m.sim.detail.
 */
export function reasonOf(e: unknown, m: Messages): string {
  const n = errnoOf(e);
  // An English problem of the simulator or the device (provisioning, bootloader, scanners…) through the
  // catalogue's table; one it does not know as it is.
  return n ? m.os.errno(n.code, n.where) : m.sim.detail(errorText(e).replace(/^Error: /, ''));
}

type Options = NonNullable<ParseArgsConfig['options']>;

export function parse<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args: negativeValues(args, options), options, allowPositionals: true, strict: true });
  } catch (e) {
    throw parseError(e as Error & { code?: string });
  }
}

/**
 * `--from -1`: node:util reads `-1` as an option and says "--from expects a value"; joined as
 * `--from=-1`, the value reaches the option's own check, which says what it takes.
 */
function negativeValues(args: string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return [...out, ...args.slice(i)];
    const name = a.startsWith('--') ? a.slice(2) : undefined;
    if (name && options[name]?.type === 'string' && /^-\d/.test(args[i + 1] ?? '')) {
      out.push(`${a}=${args[++i]}`);
    } else out.push(a);
  }
  return out;
}

/** node:util's parse errors (English) as catalogue messages. */
function parseError(e: Error & { code?: string }): UsageError {
  const quoted = /'([^']+)'/.exec(e.message)?.[1] ?? '';
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError((m) => m.args.unknownOption(quoted));
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError((m) => m.args.unexpected(quoted));
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const opt = /(--[\w-]+)/.exec(e.message)?.[1] ?? quoted;
      return /does not take an argument/.test(e.message)
        ? new UsageError((m) => m.args.noValue(opt))
        : new UsageError((m) => m.args.needsValue(opt));
    }
    default:
      return new UsageError((m) => m.args.other(e.message));
  }
}

/** The language of the environment: English when LC_ALL, LC_MESSAGES or LANG (the first set) is en*. */
export function envLang(env: NodeJS.ProcessEnv = process.env): Lang {
  const v = env.LC_ALL || env.LC_MESSAGES || env.LANG || '';
  return /^en/i.test(v) ? 'en' : 'fr';
}

export function langOf(value: unknown): Lang {
  if (value === undefined) return envLang();
  if (value === 'fr' || value === 'en') return value;
  throw new UsageError((m) => m.args.lang(String(value)));
}

/** The language asked for in `args` (`--lang X`, `--lang=X`) or by the environment, before parsing them. */
export function langOfArgs(args: string[]): Lang {
  for (let i = 0; i < args.length; i++) {
    const v = args[i] === '--lang' ? args[i + 1] : args[i].startsWith('--lang=') ? args[i].slice(7) : undefined;
    if (v === 'fr' || v === 'en') return v;
  }
  return envLang();
}

/** Parses a non-negative integer option; `name` is used in the error. */
export function intOf(value: unknown, name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError((m) => m.args.int(name, min, max));
  return n;
}

const COMMON = {
  lang: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A command's --help: one text, or one per language. */
export type HelpText = string | ((lang: Lang) => string);

/**
 * Parses a command's arguments plus the `--lang` and `--help` every command takes. Prints `help` and
 * returns null when asked for it.
 */
export function parseCommand<O extends Options>(args: string[], help: HelpText, options: O) {
  const r = parse(args, { ...options, ...COMMON } as O & typeof COMMON);
  const common = r.values as { help?: boolean; lang?: string };
  const lang = langOf(common.lang);
  if (common.help) {
    process.stdout.write((typeof help === 'string' ? help : help(lang)) + '\n');
    return null;
  }
  return { values: r.values, positionals: r.positionals, lang };
}
