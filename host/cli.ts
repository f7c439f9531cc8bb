// `saphir` command dispatcher. Each command lives in commands/<name>.ts and exports
// `run(args: string[]): Promise<number>` (the exit code).
import { readFileSync } from 'node:fs';
import { Failure, UsageError, langOfArgs, reasonOf } from './args.ts';
import { messages, type Messages } from '../src/messages/index.ts';
import type { Lang } from '../src/i18n.ts';
import { watchStdout } from './stdout.ts';

type Name = keyof Messages['cli']['summaries'];
/** Commands and the file of each under commands/ (`help` is the dispatcher's own). */
const COMMANDS: Partial<Record<Name, string>> = {
  check: 'check',
  gen: 'gen',
  audit: 'audit',
  decode: 'decode',
  scan: 'scan',
  image: 'image',
  sim: 'sim',
  demo: 'demo',
  flash: 'flash',
  device: 'device',
  ledger: 'ledger',
  registry: 'registry',
  notice: 'notice',
  ports: 'ports',
};

function commandFile(name: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name as Name] : undefined;
}

function usage(lang: Lang): string {
  const m = messages(lang).cli;
  const rows = (Object.keys(m.summaries) as Name[]).map((n) => `  ${n.padEnd(8)} ${m.summaries[n]}`);
  return [m.usage, '', ...rows, '', m.more].join('\n');
}

export function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export async function main(argv: string[]): Promise<number> {
  watchStdout();
  const lang = langOfArgs(argv);
  const m = messages(lang);
  // A leading --lang belongs to the command that follows.
  const lead: string[] = [];
  let args = argv;
  while (args[0] === '--lang' || args[0]?.startsWith('--lang=')) {
    const n = args[0] === '--lang' ? 2 : 1;
    lead.push(...args.slice(0, n));
    args = args.slice(n);
  }
  const [first, ...after] = args;
  if (first === '--version' || first === '-V') {
    process.stdout.write(m.cli.version(version()) + '\n');
    return 0;
  }
  if (!first || first === '--help' || first === '-h') {
    process.stdout.write(usage(lang) + '\n');
    return first ? 0 : 2;
  }
  let name = first;
  let rest = [...lead, ...after];
  if (first === 'help') {
    // saphir help COMMAND is saphir COMMAND --help.
    const i = after.findIndex((a, k) => !a.startsWith('-') && after[k - 1] !== '--lang');
    // `saphir help help` is the list too.
    if (i < 0 || after[i] === 'help') {
      process.stdout.write(usage(lang) + '\n');
      return 0;
    }
    name = after[i];
    rest = [...lead, ...after.slice(0, i), ...after.slice(i + 1), '--help'];
  }
  const file = commandFile(name);
  if (!file) {
    process.stderr.write(`saphir: ${m.cli.unknown(name)}\n${usage(lang)}\n`);
    return 2;
  }
  try {
    const mod = (await import(`./commands/${file}.ts`)) as { run(args: string[]): Promise<number> };
    return await mod.run(rest);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`saphir ${name}: ${e.text(lang)}\n`);
      return e instanceof Failure ? 1 : 2;
    }
    process.stderr.write(`saphir ${name}: ${reasonOf(e, m)}\n`);
    if (process.env.SAPHIR_DEBUG) process.stderr.write(`${(e as Error)?.stack}\n`);
    return 1;
  }
}
