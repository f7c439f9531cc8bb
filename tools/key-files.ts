// Ed25519 key files, read by the CLI's key options and by the simulator's scenarios: JSON
// {"seed_hex": "…"} (as `saphir gen --key`, key_id optional), JSON {"public_key_hex": "…"}, or the 64
// hex digits alone. A file that cannot serve is a KeyFileError (English, as the CLI's usage errors).
import { readFileSync } from 'node:fs';
import { fromHex } from '../src/hex.ts';
import { publicKeyOf } from '../src/crypto/ed25519.ts';

export const HEX64 = /^[0-9a-fA-F]{64}$/;

export class KeyFileError extends Error {}

/** What a key file holds: 64 hex digits alone (`bare`), or a JSON seed and/or public key. */
export function readKeyFile(option: string, path: string): { bare?: string; seed?: string; pub?: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (e) {
    throw new KeyFileError(
      `${option}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  if (HEX64.test(text)) return { bare: text };
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    throw new KeyFileError(
      `${option}: ${path} is neither 64 hex digits nor JSON ({"seed_hex": "…"} or {"public_key_hex": "…"})`,
    );
  }
  const k = (o && typeof o === 'object' ? o : {}) as { seed_hex?: unknown; public_key_hex?: unknown };
  const seed = typeof k.seed_hex === 'string' && HEX64.test(k.seed_hex) ? k.seed_hex : undefined;
  const pub = typeof k.public_key_hex === 'string' && HEX64.test(k.public_key_hex) ? k.public_key_hex : undefined;
  if (!seed && !pub) throw new KeyFileError(`${option}: ${path}: needs seed_hex or public_key_hex, 64 hex digits`);
  return { seed, pub };
}

/** A public key given as 64 hex digits or a file (a seed in the file gives its public key). */
export function publicKeyFrom(option: string, arg: string): Uint8Array {
  if (HEX64.test(arg)) return fromHex(arg);
  const k = readKeyFile(option, arg);
  if (k.bare) return fromHex(k.bare);
  if (k.pub) return fromHex(k.pub);
  return publicKeyOf(fromHex(k.seed!));
}
