// What the service commands (flash, device, ledger) say about the service port: its errors in the
// technician's words (src/messages), and the open / run / close around a request.
import { messages } from '../../src/messages/index.ts';
import type { Lang } from '../../src/i18n.ts';
import { FlashError, ServiceClient } from '../flash-client.ts';
import { reasonOf } from '../args.ts';

/** The technician-facing sentence for a service client's error. */
export function errorText(e: unknown, lang: Lang, path?: string): string {
  if (!(e instanceof FlashError)) return reasonOf(e, messages(lang));
  const m = messages(lang).service;
  const p = e.detail.path ?? path ?? '';
  switch (e.code) {
    case 'no-port':
      return m.noPort(p);
    case 'busy':
      return m.busy(p);
    case 'open-failed':
      return m.openFailed(p, reasonOf({ message: e.message }, messages(lang)));
    case 'no-answer':
      return m.noAnswer(String(e.detail.baud));
    case 'link-lost':
      return m.linkLost(e.detail.reason !== 'aborted');
    case 'refused': {
      const why = m.refusal[e.detail.reason ?? ''] ?? e.detail.reason ?? '';
      return m.refused(why, e.message);
    }
    case 'verify':
      return m.verify(e.message);
    case 'auth':
      return m.auth(e.message);
    default:
      return m.protocol(e.message);
  }
}

/** A device's refusal reason (BEGIN, the image checks) in the technician's words. */
export function refusalText(reason: string, lang: Lang): string {
  return messages(lang).service.refusal[reason] ?? reason;
}

/**
 * What `saphir device` and `saphir ledger` do around their request: open the service port, run `fn`,
 * close; a link or device failure becomes its message on stderr and exit code 1.
 */
export async function withServiceClient(
  command: string,
  port: string,
  baud: number,
  lang: Lang,
  fn: (client: ServiceClient) => Promise<number>,
  techSeed?: Uint8Array,
): Promise<number> {
  let client: ServiceClient | null = null;
  try {
    client = await ServiceClient.open(port, { baud, techSeed });
    return await fn(client);
  } catch (e) {
    if (e instanceof FlashError) {
      process.stderr.write(`saphir ${command}: ${errorText(e, lang, port)}\n`);
      return 1;
    }
    throw e;
  } finally {
    await client?.close();
  }
}
