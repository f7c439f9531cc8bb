// Key options of the service commands and the simulator: `--tech-key HEX|FILE` (a technician's private
// seed for flash / device / ledger; a public key a simulated device trusts for sim), `--key HEX|FILE` of
// flash and image inspect, `--firmware-key`, `--registry-pub`, `--device-key`. Every value is read by
// tools/key-files.ts (readKey: 64 hex digits, or a file); its problems are usage errors here.
import { UsageError } from './args.ts';
import { fromHex } from '../src/hex.ts';
import { DEV_TECH_SEED_HEX } from '../src/service/auth.ts';
import type { Lang } from '../src/i18n.ts';
import { messages } from '../src/messages/index.ts';
import { KeyFileError, publicKeyFrom, seedFrom } from '../tools/key-files.ts';
import { DEV_FIRMWARE_PUBLIC_KEY_HEX } from '../src/image/format.ts';

/** A key value's problem as the command's usage error. */
function usage<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw e instanceof KeyFileError ? new UsageError(e.say) : e;
  }
}

/** `--tech-key HEX|FILE` of flash / device / ledger: the technician's private seed; `dev` when absent. */
export function techSeedOf(value: string | undefined): { seed: Uint8Array; dev: boolean } {
  if (value === undefined) return { seed: fromHex(DEV_TECH_SEED_HEX), dev: true };
  return { seed: fromHex(seedArg('--tech-key', value)), dev: false };
}

/** A private seed option (hex, lower case): 64 hex digits or a file holding the seed. */
export function seedArg(option: string, value: string): string {
  return usage(() => seedFrom(option, value));
}

/** `saphir sim --device-key HEX|FILE`: the device's private registry seed. */
export function deviceSeedArg(value: string): string {
  return seedArg('--device-key', value);
}

/** A public key given as 64 hex digits or a file (a seed in the file gives its public key). */
export function publicKeyArg(option: string, value: string): Uint8Array {
  return usage(() => publicKeyFrom(option, value));
}

/** `--key HEX|FILE` of flash and image inspect: the firmware public key, the development one when absent. */
export function firmwareKeyOption(value: string | undefined): Uint8Array {
  return value === undefined ? fromHex(DEV_FIRMWARE_PUBLIC_KEY_HEX) : publicKeyArg('--key', value);
}

/** The warning of the commands when the published development technician key is used. */
export function devTechKeyWarning(command: string, lang: Lang): string {
  return messages(lang).service.devTechKey(command) + '\n';
}
