// saphir image inspect [--key HEX] [--json] [--lang fr|en] FILE
import { readFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { BOARD_ID, DEV_FIRMWARE_PUBLIC_KEY_HEX, equalBytes, parseImage, verifyImage } from '../../image/format.ts';
import { fromHex, toHex } from '../../hex.ts';
import { hostVerify } from '../node-crypto.ts';
import { UsageError, parseCommand } from '../args.ts';

const HELP = `usage: saphir image inspect [--key HEX] [--json] [--lang fr|en] FILE
Prints a signed firmware image's header and checks its SHA-256 and Ed25519 signature, by default
against the published development key (--key: another public key, 64 hex digits).
Exit 0 when the image is intact and signed by that key, 1 when not, 2 on a usage error.`;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    key: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  const [sub, file, ...extra] = positionals;
  if (sub !== 'inspect' || !file || extra.length) throw new UsageError(HELP);
  let key: Uint8Array;
  try {
    key = fromHex(values.key ?? DEV_FIRMWARE_PUBLIC_KEY_HEX);
    if (key.length !== 32) throw new Error();
  } catch {
    throw new UsageError('--key must be 64 hex digits (an Ed25519 public key)');
  }
  const isDev = toHex(key) === DEV_FIRMWARE_PUBLIC_KEY_HEX;
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(file));
  } catch (e) {
    process.stderr.write(`saphir image: ${lang === 'fr' ? 'lecture impossible' : 'cannot read'} ${file}: ${(e as Error).message}\n`);
    return 1;
  }
  const fr = lang === 'fr';
  const p = parseImage(bytes);
  if ('error' in p) {
    if (values.json) process.stdout.write(JSON.stringify({ file, ok: false, reason: 'malformed', detail: p.error }) + '\n');
    else process.stdout.write(`${file}: ${fr ? 'image NON VALIDE' : 'INVALID image'} — ${p.error}\n`);
    return 1;
  }
  const v = verifyImage(bytes, key, { verify: hostVerify });
  const h = p.header;
  const hashOk = v.ok || v.reason === 'signature';
  const sigOk = v.ok;
  const signer = p.keyHash ? (equalBytes(p.keyHash, sha256(key)) ? (isDev ? 'dev' : 'given') : 'other') : 'unknown';
  if (values.json) {
    process.stdout.write(
      JSON.stringify({
        file,
        ok: v.ok,
        reason: v.ok ? null : v.reason,
        detail: v.ok ? null : v.detail,
        size: bytes.length,
        version: p.versionText,
        board_id: h.boardId,
        security_counter: h.securityCounter,
        flags: h.flags,
        bundle_size: h.imageSize,
        sha256: toHex(p.hash),
        signer,
      }) + '\n',
    );
    return v.ok ? 0 : 1;
  }
  const board = `0x${h.boardId.toString(16).padStart(8, '0')}` + (h.boardId === BOARD_ID ? (fr ? ' (terminal SAPHIR)' : ' (SAPHIR handheld)') : fr ? ' (autre carte)' : ' (another board)');
  const signerText = {
    dev: fr ? 'clé de développement publiée' : 'published development key',
    given: fr ? 'clé donnée (--key)' : 'given key (--key)',
    other: fr ? 'une autre clé' : 'another key',
    unknown: fr ? 'clé non indiquée' : 'key not recorded',
  }[signer];
  const rows: [string, string][] = fr
    ? [
        ['Fichier', `${file} (${bytes.length} octets)`],
        ['Version', p.versionText],
        ['Carte', board],
        ['Compteur de sécurité', String(h.securityCounter)],
        ['Bundle', `${h.imageSize} octets`],
        ['SHA-256', `${toHex(p.hash)} ${hashOk ? 'conforme' : 'NON CONFORME'}`],
        ['Signature', `${signerText} : ${sigOk ? 'valide' : hashOk ? 'NON VALIDE' : 'non vérifiée'}`],
      ]
    : [
        ['File', `${file} (${bytes.length} bytes)`],
        ['Version', p.versionText],
        ['Board', board],
        ['Security counter', String(h.securityCounter)],
        ['Bundle', `${h.imageSize} bytes`],
        ['SHA-256', `${toHex(p.hash)} ${hashOk ? 'matches' : 'MISMATCH'}`],
        ['Signature', `${signerText}: ${sigOk ? 'valid' : hashOk ? 'INVALID' : 'not checked'}`],
      ];
  const w = Math.max(...rows.map((r) => r[0].length));
  let out = rows.map(([k, val]) => `${k.padEnd(w)}  ${val}`).join('\n') + '\n';
  out += v.ok ? (fr ? 'Image intègre et signée.\n' : 'Image intact and signed.\n') : `${fr ? 'Image NON VALIDE' : 'INVALID image'} — ${v.detail}\n`;
  process.stdout.write(out);
  return v.ok ? 0 : 1;
}
