// Key options of the service commands and the simulator: `--tech-key FILE` (a technician's private
// seed) and `--firmware-key HEX|FILE` / `--tech-key HEX|FILE` (public keys a simulated device trusts).
// The files are read by tools/key-files.ts (64 hex digits alone: a seed for --tech-key FILE of the
// service commands, a public key for the simulator's options); their problems are usage errors here.
import { UsageError } from './args.ts';
import { fromHex } from '../src/hex.ts';
import { DEV_TECH_SEED_HEX } from '../src/service/auth.ts';
import type { Lang } from '../src/i18n.ts';
import { messages } from '../src/messages/index.ts';
import { HEX64, KeyFileError, publicKeyFrom, readKeyFile } from '../tools/key-files.ts';
import { DEV_FIRMWARE_PUBLIC_KEY_HEX } from '../src/image/format.ts';
import type { Messages } from '../src/messages/index.ts';

/** A key file's problem as the command's usage error. */
function usage<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw e instanceof KeyFileError ? new UsageError(e.message) : e;
  }
}

/** `--tech-key FILE` of flash / device / ledger: the technician's private seed; `dev` when absent. */
export function techSeedOf(path: string | undefined): { seed: Uint8Array; dev: boolean } {
  if (path === undefined) return { seed: fromHex(DEV_TECH_SEED_HEX), dev: true };
  return { seed: fromHex(seedOf('--tech-key', path)), dev: false };
}

/** The private seed (hex) a key file holds: alone, or as seed_hex; a public key alone is a usage error. */
function seedOf(option: string, path: string): string {
  const k = usage(() => readKeyFile(option, path));
  const seed = k.seed ?? k.bare;
  if (!seed) throw new UsageError(`${option}: ${path}: needs the private seed (seed_hex), not a public key`);
  return seed;
}

/** `saphir sim --device-key FILE`: the device's private registry seed, from a file only (a secret). */
export function deviceSeedArg(path: string): string {
  return seedOf('--device-key', path).toLowerCase();
}

/** A public key given as 64 hex digits or a file (a seed in the file gives its public key). */
export function publicKeyArg(option: string, arg: string): Uint8Array {
  return usage(() => publicKeyFrom(option, arg));
}

/** `--key HEX` of flash and image inspect: the firmware public key, the development one when absent. */
export function firmwareKeyOption(hex: string | undefined, wrong: (m: Messages) => string): Uint8Array {
  const v = hex ?? DEV_FIRMWARE_PUBLIC_KEY_HEX;
  if (!HEX64.test(v)) throw new UsageError(wrong);
  return fromHex(v);
}

/** The warning of the commands when the published development technician key is used. */
export function devTechKeyWarning(command: string, lang: Lang): string {
  return messages(lang).service.devTechKey(command) + '\n';
}
