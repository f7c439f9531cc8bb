// saphir ledger export --port PATH [--baud N] [--format csv|json] [--quiet] [--lang fr|en]
import { withServiceClient } from '../flash-client.ts';
import { UsageError, intOf, parseCommand } from '../args.ts';
import { devTechKeyWarning, techSeedOf } from '../key-args.ts';
import type { Lang } from '../../i18n.ts';
import { messages } from '../../messages/index.ts';
import { exportRow, toCsv } from '../../ledger/csv.ts';

const HELP = (lang: Lang) => messages(lang).help.ledger;
import { progressOffTty } from '../progress.ts';

export { exportRow, toCsv };

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    port: { type: 'string', short: 'p' },
    baud: { type: 'string', short: 'b' },
    format: { type: 'string' },
    'tech-key': { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'export') throw new UsageError((m) => m.ledger.usage);
  if (!values.port) throw new UsageError((m) => m.service.port);
  const format = values.format ?? 'csv';
  if (format !== 'csv' && format !== 'json') throw new UsageError((m) => m.ledger.format);
  const baud = values.baud === undefined ? 115200 : intOf(values.baud, '--baud', 300, 4000000);
  const tech = techSeedOf(values['tech-key']);
  if (tech.dev) process.stderr.write(devTechKeyWarning('ledger', lang));
  return withServiceClient('ledger', values.port, baud, lang, async (client) => {
    const entries = await client.ledger({ onProgress: progressOffTty('', !!values.quiet) });
    process.stdout.write(format === 'json' ? JSON.stringify(entries.map(exportRow), null, 1) + '\n' : toCsv(entries));
    process.stderr.write(messages(lang).ledger.exported(entries.length) + '\n');
    return 0;
  }, tech.seed);
}
