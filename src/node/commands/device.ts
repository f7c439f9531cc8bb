// saphir device info --port PATH [--baud N] [--json] [--lang fr|en]
import { FlashError, errorText, withServiceClient } from '../flash-client.ts';
import { devTechKeyWarning, techSeedOf } from '../key-args.ts';
import type { Identity } from '../../service/protocol.ts';
import { UsageError, intOf, parseCommand } from '../args.ts';

const HELP = `usage: saphir device info --port PATH [--baud N] [--json] [--tech-key FILE] [--lang fr|en]
Asks a device over its service port who it is and what it runs (board, device id, both image slots,
security counter, an interrupted transfer), which firmware key it trusts (SHA-256), whether it is a
production device, and whether the technician key (--tech-key; default: the published development
key, with a warning) opens its service session. Exit 0, 1 on an error, 2 on a usage error.`;

export function infoText(id: Identity, lang: 'fr' | 'en', access?: string): string {
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
  if (id.trust) {
    const t = id.trust;
    rows.push([fr ? 'Clé firmware (SHA-256)' : 'Firmware key (SHA-256)', t.firmwareKeySha256]);
    rows.push([fr ? 'Clé technicien (SHA-256)' : 'Technician key (SHA-256)', t.techKeySha256]);
    rows.push([
      fr ? 'Type' : 'Kind',
      t.production
        ? fr
          ? 'appareil de PRODUCTION'
          : 'PRODUCTION device'
        : fr
          ? `appareil de développement (${t.provisioned ? 'clés provisionnées' : 'clés de développement publiées'})`
          : `development device (${t.provisioned ? 'provisioned keys' : 'published development keys'})`,
    ]);
  } else rows.push([fr ? 'Clés de confiance' : 'Trusted keys', fr ? 'inconnues (provisionnement illisible ?)' : 'unknown (provisioning unreadable?)']);
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
  if (access !== undefined) rows.push([fr ? 'Accès de service' : 'Service access', access]);
  const w = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n');
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    port: { type: 'string', short: 'p' },
    baud: { type: 'string', short: 'b' },
    json: { type: 'boolean' },
    'tech-key': { type: 'string' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'info') throw new UsageError(HELP);
  if (!values.port) throw new UsageError('--port PATH is required');
  const baud = values.baud === undefined ? 115200 : intOf(values.baud, '--baud', 300, 4000000);
  const tech = techSeedOf(values['tech-key']);
  if (tech.dev) process.stderr.write(devTechKeyWarning('device', lang));
  return withServiceClient('device', values.port, baud, lang, async (client) => {
    const id = await client.identify();
    // IDENTIFY is open; whether this technician key opens a session is worth knowing before a flash.
    let access: string;
    let granted = false;
    try {
      await client.authenticate();
      granted = true;
      access = lang === 'fr' ? 'accordé (clé de technicien reconnue)' : 'granted (technician key trusted)';
    } catch (e) {
      if (!(e instanceof FlashError) || e.code !== 'auth') throw e;
      access = (lang === 'fr' ? 'refusé : ' : 'refused: ') + errorText(e, lang);
    }
    process.stdout.write((values.json ? JSON.stringify({ ...id, serviceAccess: granted }) : infoText(id, lang, access)) + '\n');
    return 0;
  }, tech.seed);
}
