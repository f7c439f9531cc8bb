// The device configuration: stored on the `config` flash partition, with defaults built in.
// Record (one per 4 KiB sector, two sectors so a rewrite never leaves none):
//   "SPHC" · format 1 (u8) · sequence (u32) · payload length (u32) · payload (JSON, ASCII: other
//   characters escaped) · CRC-32 of all before.
// The valid record with the highest sequence wins; none valid → built-in defaults. Portable: the
// firmware, the simulator and the scenario checker share it (`production`: the firmware's build flag).
import { crc32 } from './crc32.ts';
import {
  CONFIG_INPUTS,
  CONFIG_INT_LIMITS,
  CONFIG_LANGS,
  EMISSION_LIMITS,
  KEY_ID_LIMITS,
  isConfigInput,
  isDate,
  isDeviceId,
  isIntIn,
  isShop,
  isDepartment,
  type ConfigInput,
} from './config-schema.ts';
import { fromHex } from './hex.ts';
import type { Flash } from './hal.ts';
import type { Lang } from './i18n.ts';
import { TEST_KEY_ID, TEST_PUBLIC_KEY_HEX, type KeyRing } from './sph1/keys.ts';
import { getU32BE, isErased, putU32BE } from './bytes.ts';

export interface EmissionConfig {
  emission: number;
  /**
   * Last day of sale, `YYYY-MM-DD` (French calendar), from its closing notice; absent while on sale:
   * no claim deadline yet (firmware/deadline.ts).
   */
  closingDate?: string;
}

export interface Config {
  /** Trusted ticket public keys: key id → 32-byte Ed25519 public key, hex. */
  keys: { id: number; publicKeyHex: string }[];
  /** Largest prize this retailer pays at the till, in euros; above it, a payment centre pays. */
  payoutLimitEur: number;
  lang: Lang;
  emissions: EmissionConfig[];
  /** The device id written in payments; empty = the HAL identity's device id. */
  deviceId: string;
  /** How long a verdict stays on screen before the ready screen, ms (a payable win waits for OK/C longer). */
  verdictMs: number;
  /** How long a payable win waits for OK or C, ms. */
  payWaitMs: number;
  /** At boot, payments past their claim deadline are compacted away when fewer ledger sectors than this are free. */
  compactFreeSectors: number;
  /** An RTC this many days or more ahead of the trusted-time mark waits for a confirmation (keypad or service port). */
  clockJumpDays: number;
  /** Which scanner inputs to open. */
  inputs: ConfigInput[];
  /** The fleet registry's base URL (`http://host:port`); empty: no registry, every payment is local. */
  registryUrl: string;
  /** With a registry that does not answer, wins up to this many euros are paid offline (and pushed later). */
  offlineLimitEur: number;
  /** How long a claim waits for the registry, ms. */
  registryTimeoutMs: number;
  /** How often offline payments are pushed while some wait, ms. */
  syncIntervalMs: number;
  /** From this prize (euros) an ID is required: never paid at the till, a claim slip is printed. */
  idThresholdEur: number;
  /** From this prize (euros) OK asks the clerk to confirm the cash is counted (a second OK); 0: never. */
  confirmFromEur: number;
  /** From this prize (euros) the customer line and the beeper play the big-win signal; 0: never. */
  bigWinFromEur: number;
  /** The shop's name on receipts (printable ASCII, at most 32 characters). */
  shop: string;
  /** The department the device stands in (972, 974, 57…; '' : none given): its notice holidays apply. */
  department: string;
}

export const DEMO_PAYOUT_LIMIT_EUR = 300;

/** Built-in defaults: the demo configuration (a production build trusts no key until configured). */
export function defaultConfig(production: boolean): Config {
  return {
    keys: production ? [] : [{ id: TEST_KEY_ID, publicKeyHex: TEST_PUBLIC_KEY_HEX }],
    payoutLimitEur: DEMO_PAYOUT_LIMIT_EUR,
    lang: 'fr',
    emissions: [
      { emission: 1, closingDate: '2027-06-30' },
      { emission: 2, closingDate: '2027-12-31' },
    ],
    deviceId: '',
    verdictMs: 8000,
    payWaitMs: 60000,
    compactFreeSectors: 32,
    clockJumpDays: 60,
    inputs: ['serial', 'keyboard', 'pos', 'camera'],
    registryUrl: '',
    offlineLimitEur: 150,
    registryTimeoutMs: 3000,
    syncIntervalMs: 30000,
    idThresholdEur: 5000,
    confirmFromEur: 0,
    bigWinFromEur: 0,
    shop: '',
    department: '',
  };
}

const MAGIC = [0x53, 0x50, 0x48, 0x43]; // "SPHC"
const FORMAT = 1;
const HEAD = 13;
export const CONFIG_RECORD_MAX = 4096;

// --- ASCII JSON (no TextEncoder on the device) -------------------------------------------------

/** JSON text with every non-ASCII character escaped (`\\uXXXX`), one byte a character. */
export function asciiBytes(json: string): Uint8Array {
  const t = json.replace(/[\u0080-\uffff]/g, (c) => '\\u' + ('000' + c.charCodeAt(0).toString(16)).slice(-4));
  const b = new Uint8Array(t.length);
  for (let i = 0; i < t.length; i++) b[i] = t.charCodeAt(i);
  return b;
}

/** The text of ASCII bytes, or null when a byte is not ASCII. */
export function asciiText(b: Uint8Array): string | null {
  let s = '';
  for (let i = 0; i < b.length; i++) {
    if (b[i] > 0x7f) return null;
    s += String.fromCharCode(b[i]);
  }
  return s;
}

// --- validation (limits: src/config-schema.ts) ----------------------------------------------------

export { isDate };

/** The problems of a candidate configuration (empty when valid). */
export function configProblems(c: unknown, production: boolean): string[] {
  const p: string[] = [];
  if (!c || typeof c !== 'object' || Array.isArray(c)) return ['config: not an object'];
  const o = c as Record<string, unknown>;
  if (!Array.isArray(o.keys)) p.push('keys: not a list');
  else
    o.keys.forEach((k: unknown, i) => {
      const e = k as Record<string, unknown>;
      if (!e || typeof e !== 'object') return p.push(`keys[${i}]: not an object`);
      if (!isIntIn(e.id, KEY_ID_LIMITS)) p.push(`keys[${i}].id: not 0…255`);
      else if (production && e.id === TEST_KEY_ID) p.push(`keys[${i}]: a production build refuses the test key id 0`);
      if (typeof e.publicKeyHex !== 'string' || !/^[0-9a-fA-F]{64}$/.test(e.publicKeyHex)) {
        p.push(`keys[${i}].publicKeyHex: not 64 hex digits`);
      }
    });
  if (!isIntIn(o.payoutLimitEur, CONFIG_INT_LIMITS.payoutLimitEur))
    p.push('payoutLimitEur: not a whole number of euros');
  if ((CONFIG_LANGS as readonly unknown[]).indexOf(o.lang) < 0) p.push("lang: not 'fr' or 'en'");
  if (!Array.isArray(o.emissions)) p.push('emissions: not a list');
  else
    o.emissions.forEach((e: unknown, i) => {
      const x = e as Record<string, unknown>;
      if (!x || typeof x !== 'object') return p.push(`emissions[${i}]: not an object`);
      if (!isIntIn(x.emission, EMISSION_LIMITS)) p.push(`emissions[${i}].emission: not 0…65535`);
      if (x.closingDate !== undefined && !isDate(x.closingDate))
        p.push(`emissions[${i}].closingDate: not a YYYY-MM-DD date`);
    });
  if (!isDeviceId(o.deviceId)) p.push('deviceId: not printable ASCII of at most 16 characters');
  const ranged = [
    'verdictMs',
    'payWaitMs',
    'compactFreeSectors',
    'clockJumpDays',
    'registryTimeoutMs',
    'syncIntervalMs',
    'idThresholdEur',
    'confirmFromEur',
    'bigWinFromEur',
  ] as const;
  for (const k of ranged) {
    const [min, max] = CONFIG_INT_LIMITS[k];
    if (!isIntIn(o[k], CONFIG_INT_LIMITS[k])) p.push(`${k}: not ${min}…${max}`);
  }
  if (!Array.isArray(o.inputs) || !o.inputs.every(isConfigInput)) {
    p.push(`inputs: not a list of ${CONFIG_INPUTS.join(', ')}`);
  }
  if (typeof o.registryUrl !== 'string' || !/^(|https?:\/\/[\x21-\x7e]{1,200})$/.test(o.registryUrl)) {
    p.push('registryUrl: not empty or an http(s):// URL');
  }
  if (!isIntIn(o.offlineLimitEur, CONFIG_INT_LIMITS.offlineLimitEur)) {
    p.push('offlineLimitEur: not a whole number of euros');
  }
  // From the ID threshold a payment centre pays (with an ID): a till limit above it would be a lie.
  if (
    typeof o.payoutLimitEur === 'number' &&
    typeof o.idThresholdEur === 'number' &&
    o.payoutLimitEur > o.idThresholdEur
  )
    p.push(`payoutLimitEur: above the ID threshold of ${o.idThresholdEur} EUR`);
  if (!isShop(o.shop)) p.push('shop: not printable ASCII of at most 32 characters');
  if (o.department !== '' && !isDepartment(o.department))
    p.push("department: not '' or a department (01…95, 2A, 2B, 971…976)");
  return p;
}

/** Fills the fields a stored configuration omits from the defaults (older records stay readable). */
function withDefaults(o: Record<string, unknown>, production: boolean): Record<string, unknown> {
  const d = defaultConfig(production) as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(d)) out[k] = k in o ? o[k] : d[k];
  return out;
}

// --- encoding -------------------------------------------------------------------------------------

/** One config record (fits a 4 KiB sector), sequence `seq`. Throws RangeError on an invalid config. */
export function encodeConfig(cfg: Config, seq = 1): Uint8Array {
  const problems = configProblems(cfg, false);
  if (problems.length) throw new RangeError(problems.join('; '));
  const payload = asciiBytes(JSON.stringify(cfg));
  const total = HEAD + payload.length + 4;
  if (total > CONFIG_RECORD_MAX) throw new RangeError(`config record of ${total} bytes exceeds ${CONFIG_RECORD_MAX}`);
  const b = new Uint8Array(total);
  b.set(MAGIC, 0);
  b[4] = FORMAT;
  putU32BE(b, 5, seq >>> 0);
  putU32BE(b, 9, payload.length);
  b.set(payload, HEAD);
  putU32BE(b, HEAD + payload.length, crc32(b.subarray(0, HEAD + payload.length)));
  return b;
}

export type Decoded = { config: Config; seq: number } | { error: string };

/** Decodes a record at the start of `bytes` (trailing bytes, e.g. erased flash, are ignored). Never throws. */
export function decodeConfig(bytes: Uint8Array, production: boolean): Decoded {
  if (!(bytes instanceof Uint8Array) || bytes.length < HEAD + 4) return { error: 'config: too short' };
  for (let i = 0; i < 4; i++) if (bytes[i] !== MAGIC[i]) return { error: 'config: no record' };
  if (bytes[4] !== FORMAT) return { error: `config: unknown format ${bytes[4]}` };
  const get32 = (o: number) => getU32BE(bytes, o);
  const seq = get32(5);
  const n = get32(9);
  if (HEAD + n + 4 > bytes.length || HEAD + n + 4 > CONFIG_RECORD_MAX) return { error: 'config: bad length' };
  if (get32(HEAD + n) !== crc32(bytes.subarray(0, HEAD + n))) return { error: 'config: bad CRC' };
  const text = asciiText(bytes.subarray(HEAD, HEAD + n));
  if (text === null) return { error: 'config: not ASCII' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: 'config: bad JSON' };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { error: 'config: not an object' };
  const filled = withDefaults(raw as Record<string, unknown>, production);
  const problems = configProblems(filled, production);
  if (problems.length) return { error: problems.join('; ') };
  return { config: filled as unknown as Config, seq };
}

/** The trusted keys of a configuration; a production build never trusts key id 0. */
export function keyRingOf(cfg: Config, production: boolean): KeyRing {
  const m = new Map<number, Uint8Array>();
  for (const k of cfg.keys) if (!(production && k.id === TEST_KEY_ID)) m.set(k.id, fromHex(k.publicKeyHex));
  return m;
}

// --- flash ----------------------------------------------------------------------------------------

export interface LoadedConfig {
  config: Config;
  /** `flash` (sector index), or `defaults` with why. */
  source: string;
  seq: number;
  /** No valid record, and a sector that is not blank (a torn write, damage, a record refused): never run on defaults. */
  invalid?: boolean;
}

/** Reads the newest valid record of the config partition; defaults when none. Never throws on content. */
export function loadConfig(flash: Flash, production: boolean): LoadedConfig {
  const sectors = Math.min(2, Math.floor(flash.size / flash.blockLength));
  let best: LoadedConfig | undefined;
  let invalid = false;
  const errors: string[] = [];
  for (let s = 0; s < sectors; s++) {
    const b = flash.read(s * flash.blockLength, Math.min(flash.blockLength, CONFIG_RECORD_MAX));
    const d = decodeConfig(b, production);
    if ('error' in d) {
      invalid = invalid || !isErased(b);
      errors.push(`sector ${s}: ${d.error}`);
      continue;
    }
    if (!best || d.seq > best.seq) best = { config: d.config, source: `flash sector ${s}`, seq: d.seq };
  }
  return best ?? { config: defaultConfig(production), source: `defaults (${errors.join('; ')})`, seq: 0, invalid };
}

/**
 * Writes `cfg` into both sectors, the one not holding the current record first, so a power cut keeps
 * the old or the new record whole, and once done one damaged sector leaves the same record in the other.
 */
export function storeConfig(flash: Flash, cfg: Config, production: boolean): void {
  const cur = loadConfig(flash, production);
  const sectors = Math.min(2, Math.floor(flash.size / flash.blockLength));
  const first = sectors > 1 && cur.source === 'flash sector 0' ? 1 : 0;
  const rec = encodeConfig(cfg, cur.seq + 1);
  for (let i = 0; i < sectors; i++) {
    const s = i === 0 ? first : 1 - first;
    flash.eraseBlock(s);
    flash.write(rec, s * flash.blockLength);
  }
}
