// saphir image inspect [--key HEX] [--json] [--lang fr|en] FILE
import { readFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  BOARD_ID,
  DEV_FIRMWARE_PUBLIC_KEY_HEX,
  manifestStatus,
  parseImage,
  verifyImage,
} from '../../src/image/format.ts';
import { equalBytes } from '../../src/bytes.ts';
import { toHex } from '../../src/hex.ts';
import { hostVerify } from '../../tools/node-crypto.ts';
import { UsageError, parseCommand, reasonOf } from '../args.ts';
import { firmwareKeyOption } from '../key-args.ts';
import type { Lang } from '../../src/i18n.ts';
import { messages } from '../../src/messages/index.ts';

const HELP = (lang: Lang) => messages(lang).help.image;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    key: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  const [sub, file, ...extra] = positionals;
  if (sub !== 'inspect' || !file || extra.length) throw new UsageError((m) => m.image.usage);
  const key = firmwareKeyOption(values.key);
  const isDev = toHex(key) === DEV_FIRMWARE_PUBLIC_KEY_HEX;
  const t = messages(lang).image;
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(file));
  } catch (e) {
    process.stderr.write(`saphir image: ${t.cannotRead(file, reasonOf(e, messages(lang)))}\n`);
    return 1;
  }
  const p = parseImage(bytes);
  if ('error' in p) {
    if (values.json)
      process.stdout.write(JSON.stringify({ file, ok: false, reason: 'malformed', detail: p.error }) + '\n');
    else process.stdout.write(`${file}${t.colon} ${t.invalid} — ${t.detail(p.error)}\n`);
    return 1;
  }
  const v = verifyImage(bytes, key, { verify: hostVerify });
  const h = p.header;
  const hashOk = v.ok || v.reason === 'signature';
  const sigOk = v.ok;
  const manifest = manifestStatus(p, key, hostVerify);
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
        manifest,
      }) + '\n',
    );
    return v.ok ? 0 : 1;
  }
  const board = `0x${h.boardId.toString(16).padStart(8, '0')}` + (h.boardId === BOARD_ID ? t.thisBoard : t.otherBoard);
  const rows: [string, string][] = [
    [t.file, t.fileSize(file, bytes.length)],
    [t.version, p.versionText],
    [t.board, board],
    [t.counter, String(h.securityCounter)],
    [t.bundle, t.bytes(h.imageSize)],
    [t.sha, `${toHex(p.hash)} ${hashOk ? t.hashOk : t.hashBad}`],
    [t.signature, `${t.signer[signer]}${t.colon} ${sigOk ? t.sigOk : hashOk ? t.sigBad : t.sigUnchecked}`],
    [t.manifest, t.manifestState[manifest]],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  let out = rows.map(([k, val]) => `${k.padEnd(w)}  ${val}`).join('\n') + '\n';
  out += v.ok ? `${t.intact}\n` : `${t.invalid[0].toUpperCase()}${t.invalid.slice(1)} — ${t.detail(v.detail)}\n`;
  process.stdout.write(out);
  return v.ok ? 0 : 1;
}
