// saphir ledger export --port PATH [--baud N] [--format csv|json] [--quiet] [--lang fr|en]
import { withServiceClient } from './service-text.ts';
import { UsageError, intOf, parseCommand } from '../args.ts';
import { devTechKeyWarning, techSeedOf } from '../key-args.ts';
import type { Lang } from '../../i18n.ts';
import { messages } from '../../messages/index.ts';
import { exportRow, toCsv } from '../../ledger/csv.ts';

const HELP = (lang: Lang) => messages(lang).help.ledger;
import { progressOffTty } from '../progress.ts';
import { Failure } from '../args.ts';
import type { ServiceClient } from '../flash-client.ts';
import type { RegistryError } from '../../registry/protocol.ts';
import { postSigned, type ClientAnswer } from '../registry/client.ts';

export { exportRow, toCsv };

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    port: { type: 'string', short: 'p' },
    baud: { type: 'string', short: 'b' },
    format: { type: 'string' },
    'tech-key': { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
    to: { type: 'string' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'export') throw new UsageError((m) => m.ledger.usage);
  if (!values.port) throw new UsageError((m) => m.service.port);
  const format = values.format ?? 'csv';
  if (format !== 'csv' && format !== 'json') throw new UsageError((m) => m.ledger.format);
  const baud = values.baud === undefined ? 115200 : intOf(values.baud, '--baud', 300, 4000000);
  if (values.to !== undefined && !/^https?:\/\/[\x21-\x7e]+$/.test(values.to))
    throw new UsageError((m) => m.ledger.toUrl);
  const tech = techSeedOf(values['tech-key']);
  if (tech.dev) process.stderr.write(devTechKeyWarning('ledger', lang));
  if (values.to !== undefined)
    return withServiceClient(
      'ledger',
      values.port,
      baud,
      lang,
      (client) => pushOutbox(client, values.to!, lang),
      tech.seed,
    );
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

/**
 * `--to URL`: the device's offline payments, signed by the device itself (OUTBOX), carried to the fleet
 * registry; each batch the registry answered is marked heard on the device. Idempotent: a batch sent
 * twice is `granted` again, never counted twice.
 */
export async function pushOutbox(client: ServiceClient, url: string, lang: Lang): Promise<number> {
  const t = messages(lang).ledger;
  let sent = 0;
  let conflicts = 0;
  let invalid = 0;
  for (let round = 0; round < 100; round++) {
    const { request, slots } = await client.outbox();
    if (!request) break;
    let res: ClientAnswer;
    try {
      res = await postSigned(url, request, 30_000);
    } catch (e) {
      throw new Failure((m) => m.ledger.noRegistry(url, e instanceof Error ? e.message : String(e)));
    }
    if (!res.ok || !Array.isArray(res.body.results)) {
      const b = res.body as Partial<RegistryError>;
      throw new Failure((m) => m.ledger.registryRefused(String(b.error ?? res.status), String(b.detail ?? '')));
    }
    const body = res.body;
    for (const r of body.results) {
      if (r.result === 'conflict') conflicts++;
      else if (r.result === 'invalid') invalid++;
    }
    sent += body.results.length;
    await client.outboxDone(slots);
  }
  process.stdout.write(t.pushed(sent, conflicts, invalid) + '\n');
  return 0;
}
