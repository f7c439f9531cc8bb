// saphir ledger export --port PATH [--baud N] [--format csv|json] [--lang fr|en]
import { withServiceClient } from '../flash-client.ts';
import { UsageError, intOf, parseCommand } from '../args.ts';
import { exportRow, toCsv } from '../../ledger/csv.ts';

const HELP = `usage: saphir ledger export --port PATH [--baud N] [--format csv|json] [--lang fr|en]
Reads the paid-ticket ledger of a device over its service port and writes it to standard output:
CSV (default; one payment a line) or JSON (an array). Exit 0, 1 on an error, 2 on a usage error.`;

export { exportRow, toCsv };

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    port: { type: 'string', short: 'p' },
    baud: { type: 'string', short: 'b' },
    format: { type: 'string' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'export') throw new UsageError(HELP);
  if (!values.port) throw new UsageError('--port PATH is required');
  const format = values.format ?? 'csv';
  if (format !== 'csv' && format !== 'json') throw new UsageError('--format must be csv or json');
  const baud = values.baud === undefined ? 115200 : intOf(values.baud, '--baud', 300, 4000000);
  return withServiceClient('ledger', values.port, baud, lang, async (client) => {
    const entries = await client.ledger();
    process.stdout.write(format === 'json' ? JSON.stringify(entries.map(exportRow), null, 1) + '\n' : toCsv(entries));
    process.stderr.write(lang === 'fr' ? `${entries.length} paiement(s) exporté(s)\n` : `${entries.length} payment(s) exported\n`);
    return 0;
  });
}
