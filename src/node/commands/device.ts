// saphir device info --port PATH [--port PATH…] [--baud N] [--json] [--lang fr|en]
import { withServiceClient } from '../flash-client.ts';
import type { Identity } from '../../service/protocol.ts';
import { UsageError, intOf, parseCommand } from '../args.ts';

const HELP = `usage: saphir device info --port PATH [--port PATH…] [--baud N] [--json] [--lang fr|en]
Asks a device over its service port who it is and what it runs (board, device id, both image slots,
security counter, an interrupted transfer). Several --port: each in turn, under its port's name (--json:
one object a line). Exit 0, 1 on an error (on any port), 2 on a usage error.`;

export function infoText(id: Identity, lang: 'fr' | 'en'): string {
  const fr = lang === 'fr';
  const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
  const rows: [string, string][] = [
    [fr ? 'Identifiant' : 'Device id', id.deviceId],
    [fr ? 'Carte' : 'Board', hex(id.boardId)],
    [
      fr ? 'En cours' : 'Running',
      id.running
        ? `${id.running.version} (${fr ? 'emplacement' : 'slot'} ${id.running.slot}${id.running.pendingConfirm ? (fr ? ', mode test, non confirmée' : ', test mode, unconfirmed') : ''})`
        : fr
          ? 'aucune image valide'
          : 'no valid image',
    ],
    ['SHA-256', id.running ? id.running.hash : '—'],
    [fr ? 'Compteur de sécurité' : 'Security counter', String(id.securityCounter)],
  ];
  for (const s of id.slots) {
    const what =
      s.status === 'valid'
        ? `${s.version}, ${fr ? 'compteur' : 'counter'} ${s.securityCounter}, ${s.size} ${fr ? 'octets' : 'bytes'}${id.confirmed === s.slot ? (fr ? ', confirmée' : ', confirmed') : ''}${id.trial === s.slot ? (fr ? ', à tester' : ', to test') : ''}`
        : s.status === 'empty'
          ? fr
            ? 'vide'
            : 'empty'
          : `${fr ? 'invalide' : 'invalid'} (${s.detail ?? ''})`;
    rows.push([`${fr ? 'Emplacement' : 'Slot'} ${s.slot}`, what]);
  }
  if (id.session) {
    const got = id.session.received.reduce((n, [a, b]) => n + b - a, 0);
    rows.push([fr ? 'Transfert interrompu' : 'Interrupted transfer', `${got} / ${id.session.size} ${fr ? 'octets' : 'bytes'} (${id.session.hash.slice(0, 16)}…)`]);
  }
  const w = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n');
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    port: { type: 'string', short: 'p', multiple: true },
    baud: { type: 'string', short: 'b' },
    json: { type: 'boolean' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'info') throw new UsageError(HELP);
  const ports = values.port ?? [];
  if (ports.length === 0) throw new UsageError('--port PATH is required');
  const baud = values.baud === undefined ? 115200 : intOf(values.baud, '--baud', 300, 4000000);
  let code = 0;
  for (const port of ports) {
    const c = await withServiceClient('device', port, baud, lang, async (client) => {
      const id = await client.identify();
      const head = ports.length > 1 && !values.json ? `== ${port}\n` : '';
      process.stdout.write(head + (values.json ? JSON.stringify(ports.length > 1 ? { port, ...id } : id) : infoText(id, lang)) + '\n');
      return 0;
    });
    code = Math.max(code, c);
  }
  return code;
}
