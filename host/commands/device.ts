// saphir device info --port PATH [--port PATH…] [--baud N] [--json] [--tech-key FILE] [--lang fr|en]
import { FlashError } from '../flash-client.ts';
import { errorText, withServiceClient } from './service-text.ts';
import { devTechKeyWarning, techSeedOf } from '../key-args.ts';
import type { Identity } from '../../src/service/protocol.ts';
import { UsageError, intOf, parseCommand } from '../args.ts';
import { snakeKeys } from '../json.ts';
import type { Lang } from '../../src/i18n.ts';
import { messages } from '../../src/messages/index.ts';

const HELP = (lang: Lang) => messages(lang).help.device;

export function infoText(id: Identity, lang: Lang, access?: string): string {
  const t = messages(lang).device;
  const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
  const rows: [string, string][] = [
    [t.deviceId, id.deviceId],
    [t.board, hex(id.boardId)],
    [
      t.running,
      id.running
        ? `${id.running.version} (${t.slotOf(id.running.slot)}${id.running.pendingConfirm ? t.testMode : ''})`
        : t.noImage,
    ],
    ['SHA-256', id.running ? id.running.hash : '—'],
    [t.counter, String(id.securityCounter)],
  ];
  if (id.trust) {
    rows.push([t.firmwareKey, id.trust.firmwareKeySha256]);
    rows.push([t.techKey, id.trust.techKeySha256]);
    rows.push([t.kind, id.trust.production ? t.production : t.development(id.trust.provisioned)]);
  } else rows.push([t.trusted, t.trustUnknown]);
  for (const s of id.slots) {
    const what =
      s.status === 'valid'
        ? `${s.version}, ${t.counterOf(s.securityCounter ?? 0)}, ${t.bytes(s.size ?? 0)}${id.confirmed === s.slot ? t.confirmed : ''}${id.trial === s.slot ? t.toTest : ''}`
        : s.status === 'empty'
          ? t.empty
          : t.invalid(s.detail ?? '');
    rows.push([t.slot(s.slot), what]);
  }
  if (id.session) {
    const got = id.session.received.reduce((n, [a, b]) => n + b - a, 0);
    rows.push([t.interrupted, t.received(got, id.session.size, id.session.hash.slice(0, 16))]);
  }
  if (id.notice !== undefined) rows.push([t.notice, id.notice ? String(id.notice) : t.noNotice]);
  if (access !== undefined) rows.push([t.access, access]);
  const w = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n');
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    port: { type: 'string', short: 'p', multiple: true },
    baud: { type: 'string', short: 'b' },
    json: { type: 'boolean' },
    'tech-key': { type: 'string' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'info') throw new UsageError((m) => m.device.usage);
  const ports = values.port ?? [];
  if (ports.length === 0) throw new UsageError((m) => m.service.port);
  const baud = values.baud === undefined ? 115200 : intOf(values.baud, '--baud', 300, 4000000);
  const tech = techSeedOf(values['tech-key']);
  if (tech.dev) process.stderr.write(devTechKeyWarning('device', lang));
  const t = messages(lang).device;
  let code = 0;
  // Several ports: each in turn, under its port's name (--json: one object a line).
  for (const port of ports) {
    const c = await withServiceClient(
      'device',
      port,
      baud,
      lang,
      async (client) => {
        const id = await client.identify();
        // IDENTIFY is open; whether this technician key opens a session is worth knowing before a flash.
        let access: string;
        let granted = false;
        try {
          await client.authenticate();
          granted = true;
          access = t.granted;
        } catch (e) {
          if (!(e instanceof FlashError) || e.code !== 'auth') throw e;
          access = t.refused(errorText(e, lang));
        }
        const head = ports.length > 1 && !values.json ? `== ${port}\n` : '';
        const json = snakeKeys({ ...(ports.length > 1 ? { port } : {}), ...id, serviceAccess: granted });
        process.stdout.write(head + (values.json ? JSON.stringify(json) : infoText(id, lang, access)) + '\n');
        return 0;
      },
      tech.seed,
    );
    code = Math.max(code, c);
  }
  return code;
}
