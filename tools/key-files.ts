// Every key option of the CLI and the simulator (`--key`, `--tech-key`, `--firmware-key`, `--registry-key`,
// `--registry-pub`, `--device-key`) and the scenarios' key fields are read here, by readKey: the value is
// 64 hex digits, or a file holding 64 hex digits alone or JSON {"seed_hex": "…"} (as `saphir gen --key`),
// {"public_key_hex": "…"} or {"public_hex": "…"}, with an optional "key_id". A value that cannot serve is
// a KeyFileError, said in the user's language (the CLI makes it a usage error).
import { readFileSync } from 'node:fs';
import { fromHex } from '../src/hex.ts';
import { nodePublicKeyOf as publicKeyOf } from './node-crypto.ts';
import { errnoOf } from '../src/system-error.ts';
import { messages, type Messages } from '../src/messages/index.ts';

export const HEX64 = /^[0-9a-fA-F]{64}$/;

export class KeyFileError extends Error {
  readonly say: (m: Messages) => string;
  constructor(say: (m: Messages) => string) {
    super(say(messages('en')));
    this.say = say;
  }
}

/** What a key value holds: 64 hex digits alone (`bare`: what they are is the option's to say), or JSON fields. */
export interface KeyValue {
  bare?: string;
  seed?: string;
  pub?: string;
  /** A JSON file's key_id: undefined when absent, NaN when not an integer from 0 to 255. */
  keyId?: number;
}

/** Files larger than this are no key file (a key file is well under 1 KiB). */
const MAX_KEY_FILE = 64 * 1024;

/** A key option's value: 64 hex digits, or a file (see the header). */
export function readKey(option: string, value: string): KeyValue {
  if (HEX64.test(value.trim())) return { bare: value.trim() };
  let text: string;
  try {
    const bytes = readFileSync(value);
    if (bytes.length > MAX_KEY_FILE) throw new KeyFileError((m) => m.keyFile.notKey(option, value));
    text = bytes.toString('utf8').trim();
  } catch (e) {
    if (e instanceof KeyFileError) throw e;
    const n = errnoOf(e);
    throw new KeyFileError((m) =>
      m.keyFile.cannotRead(option, value, n ? m.os.errno(n.code) : String((e as Error).message)),
    );
  }
  if (HEX64.test(text)) return { bare: text };
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    throw new KeyFileError((m) => m.keyFile.notKey(option, value));
  }
  const k = (o && typeof o === 'object' ? o : {}) as {
    seed_hex?: unknown;
    public_key_hex?: unknown;
    public_hex?: unknown;
    key_id?: unknown;
  };
  const hex = (v: unknown) => (typeof v === 'string' && HEX64.test(v) ? v : undefined);
  const seed = hex(k.seed_hex);
  const pub = hex(k.public_key_hex) ?? hex(k.public_hex);
  if (!seed && !pub) throw new KeyFileError((m) => m.keyFile.noField(option, value));
  const id = k.key_id;
  const keyId =
    id === undefined
      ? undefined
      : Number.isInteger(id) && (id as number) >= 0 && (id as number) <= 255
        ? (id as number)
        : NaN;
  return { seed, pub, keyId };
}

/** A public key option: 64 hex digits are the public key; a file's seed gives its public key. */
export function publicKeyFrom(option: string, value: string): Uint8Array {
  const k = readKey(option, value);
  if (k.bare) return fromHex(k.bare);
  if (k.pub) return fromHex(k.pub);
  return publicKeyOf(fromHex(k.seed!));
}

/** A private seed option (hex): 64 hex digits are the seed; a file with a public key only is refused. */
export function seedFrom(option: string, value: string): string {
  const k = readKey(option, value);
  const seed = k.bare ?? k.seed;
  if (!seed) throw new KeyFileError((m) => m.keyFile.needSeed(option, value));
  return seed.toLowerCase();
}
