// saphir ledger export --port PATH [--baud N] [--format csv|json] [--quiet] [--lang fr|en]
import { withServiceClient } from '../flash-client.ts';
import { UsageError, intOf, parseCommand } from '../args.ts';
import { devTechKeyWarning, techSeedOf } from '../key-args.ts';
import type { Lang } from '../../i18n.ts';
import { messages } from '../../messages/index.ts';

const HELP = (lang: Lang) => messages(lang).help.ledger;
import { progressOffTty } from '../progress.ts';

const COLUMNS = ['emission', 'block', 'number', 'prize_eur', 'paid_at', 'device_id'] as const;

function csvField(v: unknown): string {
  const s = v === undefined || v === null ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One payment as the export shows it (ISO time; snake_case names). */
export function exportRow(e: unknown): Record<(typeof COLUMNS)[number], unknown> {
  const o = (e && typeof e === 'object' ? e : {}) as Record<string, unknown>;
  const t = typeof o.paidAtMs === 'number' && isFinite(o.paidAtMs) ? new Date(o.paidAtMs).toISOString() : '';
  return {
    emission: o.emission,
    block: o.block,
    number: o.number,
    prize_eur: o.prizeEur,
    paid_at: t,
    device_id: o.deviceId,
  };
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
  return withServiceClient(
    'ledger',
    values.port,
    baud,
    lang,
    async (client) => {
      const entries = await client.ledger({ onProgress: progressOffTty('', !!values.quiet) });
      process.stdout.write(format === 'json' ? JSON.stringify(entries.map(exportRow), null, 1) + '\n' : toCsv(entries));
      process.stderr.write(messages(lang).ledger.exported(entries.length) + '\n');
      return 0;
    },
    tech.seed,
  );
}
