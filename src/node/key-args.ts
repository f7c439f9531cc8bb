// Key options of the service commands and the simulator: `--tech-key FILE` (a technician's private
// seed) and `--firmware-key HEX|FILE` / `--tech-key HEX|FILE` (public keys a simulated device trusts).
// Files: JSON {"seed_hex": "…"} (as `saphir gen --key`, key_id optional), JSON {"public_key_hex": "…"},
// or the 64 hex digits alone (a seed for --tech-key FILE of the service commands, a public key for the
// simulator's options).
import { readFileSync } from 'node:fs';
import { UsageError } from './args.ts';
import { fromHex } from '../hex.ts';
import { publicKeyOf } from '../crypto/ed25519.ts';
import { DEV_TECH_SEED_HEX } from '../service/auth.ts';
import type { Lang } from '../i18n.ts';

const HEX64 = /^[0-9a-fA-F]{64}$/;

function readKeyText(option: string, path: string): { bare?: string; seed?: string; pub?: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (e) {
    throw new UsageError(
      `${option}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  if (HEX64.test(text)) return { bare: text };
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    throw new UsageError(
      `${option}: ${path} is neither 64 hex digits nor JSON ({"seed_hex": "…"} or {"public_key_hex": "…"})`,
    );
  }
  const k = (o && typeof o === 'object' ? o : {}) as { seed_hex?: unknown; public_key_hex?: unknown };
  const seed = typeof k.seed_hex === 'string' && HEX64.test(k.seed_hex) ? k.seed_hex : undefined;
  const pub = typeof k.public_key_hex === 'string' && HEX64.test(k.public_key_hex) ? k.public_key_hex : undefined;
  if (!seed && !pub) throw new UsageError(`${option}: ${path}: needs seed_hex or public_key_hex, 64 hex digits`);
  return { seed, pub };
}

/** `--tech-key FILE` of flash / device / ledger: the technician's private seed; `dev` when absent. */
export function techSeedOf(path: string | undefined): { seed: Uint8Array; dev: boolean } {
  if (path === undefined) return { seed: fromHex(DEV_TECH_SEED_HEX), dev: true };
  const k = readKeyText('--tech-key', path);
  const seed = k.seed ?? k.bare;
  if (!seed) throw new UsageError(`--tech-key: ${path}: needs the private seed (seed_hex), not a public key`);
  return { seed: fromHex(seed), dev: false };
}

/** `saphir sim --device-key FILE`: the device's private registry seed, from a file only (a secret). */
export function deviceSeedArg(path: string): string {
  const k = readKeyText('--device-key', path);
  const seed = k.seed ?? k.bare;
  if (!seed) throw new UsageError(`--device-key: ${path}: needs the private seed (seed_hex), not a public key`);
  return seed.toLowerCase();
}

/** A public key given as 64 hex digits or a file (a seed in the file gives its public key). */
export function publicKeyArg(option: string, arg: string): Uint8Array {
  if (HEX64.test(arg)) return fromHex(arg);
  const k = readKeyText(option, arg);
  if (k.bare) return fromHex(k.bare);
  if (k.pub) return fromHex(k.pub);
  return publicKeyOf(fromHex(k.seed!));
}

/** The warning of the commands when the published development technician key is used. */
export function devTechKeyWarning(command: string, lang: Lang): string {
  return lang === 'fr'
    ? `saphir ${command}: attention : clé de technicien de DÉVELOPPEMENT publiée (--tech-key FICHIER pour la vôtre) ; un appareil de production la refuse\n`
    : `saphir ${command}: warning: using the published DEVELOPMENT technician key (--tech-key FILE for yours); a production device refuses it\n`;
}
