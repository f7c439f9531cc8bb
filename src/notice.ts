// Operator notices (docs/operations.md): the emissions on sale or closed, the limits and the extra
// holidays, as a versioned record the operator signs. Portable: the firmware, the ROM's service port,
// the registry and the CLI parse them with this one module.
//
// A signed notice is JSON: {"notice": {...}, "signature": "128 hex digits"}. The signature (Ed25519,
// the operator key in the device's OTP) covers "SAPHIR-NOTICE-V1\n" then the notice's canonical text:
// JSON.stringify of its fields in the order below, every non-ASCII character escaped (\uXXXX). So any
// JSON spelling of the same notice verifies, and a field changed, added or reordered does not.
//   {"version":3,"payout_limit_eur":300,"offline_limit_eur":150,"id_threshold_eur":5000,
//    "emissions":[{"number":1,"name":"SAPHIR 1","on_sale":"2026-01-05","closes":"2026-06-30"}, …],
//    "holidays":["2027-05-22"],"departments":[{"code":"974","holidays":["2027-12-20"]}]}
// `closes` is absent while an emission is on sale: no claim deadline until its closing notice; before
// `on_sale` (00:00 Paris) the device pays none of its tickets.
// `holidays`: extra non-working days for every device, sorted; `departments` (optional): each
// department's own (972: 22 May, 974: 20 Dec, 57: Good Friday…), for the devices configured with it.
import { asciiBytes, asciiText, type Config } from './config.ts';
import { crc32 } from './crc32.ts';
import { getU32BE, putU32BE } from './bytes.ts';
import type { Flash } from './hal.ts';
import { isDate } from './claim.ts';
import { isDepartment } from './config-schema.ts';
import { fromHex, toHex } from './hex.ts';
import { NOTICE_MAGIC as N_MAGIC } from './notice-head.ts';

export const NOTICE_PROTOCOL = 'SAPHIR-NOTICE-V1';
export const NOTICE_MAX_EMISSIONS = 32;
export const NOTICE_MAX_HOLIDAYS = 32;
export const NOTICE_NAME_MAX = 32;
export const NOTICE_MAX_DEPARTMENTS = 16;
/** Largest canonical notice text; a signed notice's JSON text is refused above NOTICE_TEXT_MAX. */
export const NOTICE_MAX_BYTES = 3072;
export const NOTICE_TEXT_MAX = 8192;

/** The published development operator key: anyone can sign with it (development devices only). */
export const DEV_OPERATOR_SEED_HEX = '7aefe80b3975fbc3529db980936ee034546c5c3637fd656586b90759824af688';
export const DEV_OPERATOR_PUBLIC_KEY_HEX = 'b85e9d031dfb74fdb6a2956e41d13360f39a486c87c5e312345d29118ca4d8d2';

export interface NoticeEmission {
  number: number;
  name: string;
  on_sale: string;
  /** The closing notice's date; absent while on sale. */
  closes?: string;
}

export interface Notice {
  version: number;
  payout_limit_eur: number;
  offline_limit_eur: number;
  id_threshold_eur: number;
  emissions: NoticeEmission[];
  holidays: string[];
  /** Each department's own holidays (src/config-schema.ts isDepartment), on top of `holidays`. */
  departments?: NoticeDepartment[];
}

export interface NoticeDepartment {
  code: string;
  holidays: string[];
}

export interface SignedNotice {
  notice: Notice;
  /** 128 hex digits; absent on a notice not signed yet (`saphir notice create`). */
  signature?: string;
}

const KEYS = [
  'version',
  'payout_limit_eur',
  'offline_limit_eur',
  'id_threshold_eur',
  'emissions',
  'holidays',
  'departments',
];
const E_KEYS = ['number', 'name', 'on_sale', 'closes'];
const D_KEYS = ['code', 'holidays'];

const int = (v: unknown, min: number, max: number) => typeof v === 'number' && v % 1 === 0 && v >= min && v <= max;
const obj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
/** `at`'s problem when `o` is no object or holds a field not in `keys`. */
const fieldsProblem = (o: unknown, keys: string[], at: string) => {
  if (!obj(o)) return `${at}: not an object`;
  for (const k in o) if (keys.indexOf(k) < 0) return `${at}: unknown field ${JSON.stringify(k).slice(0, 40)}`;
  return null;
};

/** The notice's problem (the field, and what is wrong), or null when it is a valid notice. */
export function noticeProblem(v: unknown): string | null {
  let p = fieldsProblem(v, KEYS, 'notice');
  if (p) return p;
  const n = v as Record<string, unknown>;
  const limits: [string, number, number][] = [
    ['version', 1, 0x7fffffff],
    ['payout_limit_eur', 0, 0xffffffff],
    ['offline_limit_eur', 0, 0xffffffff],
    ['id_threshold_eur', 1, 0xffffffff],
  ];
  for (const [f, min, max] of limits) if (!int(n[f], min, max)) return `${f}: not a whole number ${min}…${max}`;
  if ((n.payout_limit_eur as number) > (n.id_threshold_eur as number))
    return 'payout_limit_eur: above the ID threshold';
  const es = n.emissions as Record<string, unknown>[];
  if (!Array.isArray(es) || !es.length || es.length > NOTICE_MAX_EMISSIONS)
    return `emissions: not a list of 1…${NOTICE_MAX_EMISSIONS}`;
  if ((p = holidaysProblem(n.holidays, 'holidays'))) return p;
  const ds = n.departments as Record<string, unknown>[] | undefined;
  if (ds !== undefined && (!Array.isArray(ds) || ds.length > NOTICE_MAX_DEPARTMENTS))
    return `departments: not a list of 0…${NOTICE_MAX_DEPARTMENTS}`;
  const seen: unknown[] = [];
  for (let i = 0; i < es.length; i++) {
    const e = es[i];
    const at = `emissions[${i}]`;
    if ((p = fieldsProblem(e, E_KEYS, at))) return p;
    if (!int(e.number, 0, 0xffff) || seen.indexOf(e.number) >= 0) return `${at}.number: not 0…65535, once`;
    seen.push(e.number);
    const name = e.name;
    if (
      typeof name !== 'string' ||
      !name ||
      name.length > NOTICE_NAME_MAX ||
      /[\x00-\x1f\x7f-\x9f\ud800-\udfff]/.test(name)
    )
      return `${at}.name: not 1…${NOTICE_NAME_MAX} printable characters`;
    if (!isDate(e.on_sale)) return `${at}.on_sale: not a date YYYY-MM-DD`;
    if (e.closes !== undefined && !(isDate(e.closes) && e.closes >= e.on_sale))
      return `${at}.closes: not a date YYYY-MM-DD from on_sale on`;
  }
  const codes: unknown[] = [];
  for (let i = 0; ds && i < ds.length; i++) {
    const at = `departments[${i}]`;
    if ((p = fieldsProblem(ds[i], D_KEYS, at))) return p;
    const c = ds[i].code;
    if (!isDepartment(c) || codes.indexOf(c) >= 0) return `${at}.code: not a department (01…95, 2A, 2B, 971…976), once`;
    codes.push(c);
    if ((p = holidaysProblem(ds[i].holidays, `${at}.holidays`))) return p;
  }
  if (canonicalText(n as unknown as Notice).length > NOTICE_MAX_BYTES) return `notice: over ${NOTICE_MAX_BYTES} bytes`;
  return null;
}

/** A sorted list of 0…32 dates, or its problem. */
function holidaysProblem(hs: unknown, at: string): string | null {
  if (!Array.isArray(hs) || hs.length > NOTICE_MAX_HOLIDAYS) return `${at}: not a list of 0…${NOTICE_MAX_HOLIDAYS}`;
  for (let i = 0; i < hs.length; i++)
    if (!isDate(hs[i]) || (i && (hs[i] as string) <= (hs[i - 1] as string)))
      return `${at}[${i}]: not a date YYYY-MM-DD after the one before`;
  return null;
}

/** The non-working days a device of `department` ('' : none given) adds to Sundays and national holidays. */
export function noticeHolidays(n: Notice, department: string): string[] {
  let out = n.holidays;
  const ds = n.departments || [];
  for (let i = 0; i < ds.length; i++) if (ds[i].code === department) out = out.concat(ds[i].holidays);
  return out;
}

/**
 * The canonical text of a valid notice: JSON.stringify's key list puts every object's fields in the
 * order of KEYS, E_KEYS and D_KEYS (an absent `closes` or `departments` is left out), with no spaces.
 */
export function canonicalText(n: Notice): string {
  return JSON.stringify(n, KEYS.concat(E_KEYS, D_KEYS));
}

/** The bytes the operator signs. */
export function noticeMessage(n: Notice): Uint8Array {
  return asciiBytes(`${NOTICE_PROTOCOL}\n${canonicalText(n)}`);
}

/** A signed notice's text (the file, the registry's answer, the flash record): ASCII JSON on one line. */
export function signedNoticeText(s: SignedNotice): string {
  const c = canonicalText(s.notice);
  return `{"notice":${c}${s.signature === undefined ? '' : `,"signature":"${s.signature}"`}}`;
}

/** The text as ASCII bytes (non-ASCII escaped): the service port's NOTICE payload and the flash record's. */
export function noticeBytes(s: SignedNotice): Uint8Array {
  return asciiBytes(signedNoticeText(s));
}

/** Parses a signed (or not yet signed) notice from its JSON value; never throws. */
export function parseSignedNotice(v: unknown): SignedNotice | { error: string } {
  const p = fieldsProblem(v, ['notice', 'signature'], 'signed notice') || noticeProblem((v as SignedNotice).notice);
  if (p) return { error: p };
  const sig = (v as SignedNotice).signature;
  if (sig !== undefined && !/^[0-9a-f]{128}$/.test(sig as string))
    return { error: 'signature: not 128 lowercase hex digits' };
  return v as SignedNotice;
}

/** Parses a signed notice's text (bounded before JSON.parse); never throws. */
export function parseNoticeText(text: string): SignedNotice | { error: string } {
  if (typeof text !== 'string' || text.length > NOTICE_TEXT_MAX) return { error: `over ${NOTICE_TEXT_MAX} characters` };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { error: 'not JSON' };
  }
  return parseSignedNotice(v);
}

export type Verify = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;

/**
 * Why a device refuses a notice (null: accepted): not signed, signed by another key than the operator's,
 * or not above the version it holds (`current`, 0 for none).
 */
export function noticeRefusal(
  s: SignedNotice,
  operatorKey: Uint8Array | null,
  current: number,
  verify: Verify,
): 'unsigned' | 'no-key' | 'signature' | 'older' | null {
  if (s.signature === undefined) return 'unsigned';
  if (!operatorKey) return 'no-key';
  if (!verify(fromHex(s.signature), noticeMessage(s.notice), operatorKey)) return 'signature';
  return s.notice.version <= current ? 'older' : null;
}

/** The configuration a notice gives: its emissions (closing dates) and limits over `c`'s (holidays: firmware/deadline.ts). */
export function applyNotice(c: Config, n: Notice): Config {
  const emissions = n.emissions.map((e) =>
    e.closes === undefined ? { emission: e.number } : { emission: e.number, closingDate: e.closes },
  );
  return {
    ...c,
    emissions,
    payoutLimitEur: n.payout_limit_eur,
    offlineLimitEur: n.offline_limit_eur,
    idThresholdEur: n.id_threshold_eur,
  };
}

/** Signs a notice (`sign`: the platform's Ed25519 over a seed). */
export function signNotice(n: Notice, sign: (m: Uint8Array) => Uint8Array): SignedNotice {
  return { notice: n, signature: toHex(sign(noticeMessage(n))) };
}

// --- on flash (the `notice` partition: two 4 KiB sectors, like the configuration's) ---------------
// Record: "SPHN" · format 1 · version u32 · text length u32 · the signed notice's text (ASCII) · CRC-32
// of all before. Both sectors get the new record, the one not holding the newest first: a power cut
// keeps the old or the new notice whole, and once done one damaged sector leaves the other.

const N_HEAD = 13;

export interface StoredNotice {
  signed: SignedNotice;
  /** The sector it was read from. */
  sector: number;
}

function record(s: SignedNotice): Uint8Array {
  const text = noticeBytes(s);
  const b = new Uint8Array(N_HEAD + text.length + 4);
  for (let i = 0; i < 4; i++) b[i] = N_MAGIC.charCodeAt(i);
  b[4] = 1;
  putU32BE(b, 5, s.notice.version);
  putU32BE(b, 9, text.length);
  b.set(text, N_HEAD);
  putU32BE(b, N_HEAD + text.length, crc32(b.subarray(0, N_HEAD + text.length)));
  return b;
}

/**
 * The newest notice on the partition whose signature verifies with `operatorKey` (a record damaged,
 * forged or unsigned is skipped), or null.
 */
export function loadNotice(flash: Flash, operatorKey: Uint8Array | null, verify: Verify): StoredNotice | null {
  let best: StoredNotice | null = null;
  for (let s = 0; s < 2 && (s + 1) * flash.blockLength <= flash.size; s++) {
    const h = flash.read(s * flash.blockLength, N_HEAD);
    if (asciiText(h.subarray(0, 4)) !== N_MAGIC || h[4] !== 1) continue;
    const n = getU32BE(h, 9);
    if (N_HEAD + n + 4 > flash.blockLength) continue;
    const b = flash.read(s * flash.blockLength, N_HEAD + n + 4);
    if (getU32BE(b, N_HEAD + n) !== crc32(b.subarray(0, N_HEAD + n))) continue;
    const text = asciiText(b.subarray(N_HEAD, N_HEAD + n));
    const p = text === null ? null : parseNoticeText(text);
    if (p && !('error' in p) && !noticeRefusal(p, operatorKey, best ? best.signed.notice.version : 0, verify))
      best = { signed: p, sector: s };
  }
  return best;
}

/** Writes a notice into both sectors, the one not holding the newest first (see above). */
export function storeNotice(flash: Flash, s: SignedNotice, current: StoredNotice | null): StoredNotice {
  const rec = record(s);
  const first = current && current.sector === 0 ? 1 : 0;
  for (const k of [first, 1 - first]) {
    flash.eraseBlock(k);
    flash.write(rec, k * flash.blockLength);
  }
  return { signed: s, sector: first };
}
