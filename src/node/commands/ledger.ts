// saphir ledger export --port PATH [--baud N] [--format csv|json] [--quiet] [--lang fr|en]
import { withServiceClient } from '../flash-client.ts';
import { UsageError, intOf, parseCommand } from '../args.ts';
import { progressOffTty } from '../progress.ts';

const HELP = `usage: saphir ledger export --port PATH [--baud N] [--format csv|json] [--quiet] [--lang fr|en]
Reads the paid-ticket ledger of a device over its service port and writes it to standard output:
CSV (default; one payment a line) or JSON (an array). Progress goes to stderr every 10 % when it is
not a terminal (--quiet: none). Exit 0, 1 on an error, 2 on a usage error.`;

const COLUMNS = ['emission', 'block', 'number', 'prize_eur', 'paid_at', 'device_id'] as const;

function csvField(v: unknown): string {
  const s = v === undefined || v === null ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One payment as the export shows it (ISO time; snake_case names). */
export function exportRow(e: unknown): Record<(typeof COLUMNS)[number], unknown> {
  const o = (e && typeof e === 'object' ? e : {}) as Record<string, unknown>;
  const t = typeof o.paidAtMs === 'number' && isFinite(o.paidAtMs) ? new Date(o.paidAtMs).toISOString() : '';
  return { emission: o.emission, block: o.block, number: o.number, prize_eur: o.prizeEur, paid_at: t, device_id: o.deviceId };
}

export function toCsv(entries: unknown[]): string {
  const lines = [COLUMNS.join(',')];
  for (const e of entries) {
    const r = exportRow(e);
    lines.push(COLUMNS.map((c) => csvField(r[c])).join(','));
  }
  return lines.join('\n') + '\n';
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    port: { type: 'string', short: 'p' },
    baud: { type: 'string', short: 'b' },
    format: { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'export') throw new UsageError(HELP);
  if (!values.port) throw new UsageError('--port PATH is required');
  const format = values.format ?? 'csv';
  if (format !== 'csv' && format !== 'json') throw new UsageError('--format must be csv or json');
  const baud = values.baud === undefined ? 115200 : intOf(values.baud, '--baud', 300, 4000000);
  return withServiceClient('ledger', values.port, baud, lang, async (client) => {
    const entries = await client.ledger({ onProgress: progressOffTty('', !!values.quiet) });
    process.stdout.write(format === 'json' ? JSON.stringify(entries.map(exportRow), null, 1) + '\n' : toCsv(entries));
    process.stderr.write(lang === 'fr' ? `${entries.length} paiement(s) exporté(s)\n` : `${entries.length} payment(s) exported\n`);
    return 0;
  });
}
