// The registry's rules over its database: who may ask, and who holds each ticket. Every decision that
// must be unique (a ticket's holder, a nonce) is a primary key in the database, so several server
// processes can share one database. See docs/registry.md.
import { fromHex } from '../../src/hex.ts';
import { checkCode, type CheckResult } from '../../src/sph1/check.ts';
import type { KeyRing } from '../../src/sph1/keys.ts';
import { hostVerify, nodeSha512, nodeVerify } from '../../tools/node-crypto.ts';
import { deviceReport } from './campaigns.ts';
import {
  DEV_DEVICE_PUBLIC_KEY_HEX,
  HEALTH_FIELDS,
  devEnrolText,
  MAX_BATCH,
  authText,
  signedText,
  type Health,
  type UpdateOffer,
  type PaymentResult,
  type RegistryError,
  type RequestKind,
  type SignedRequest,
} from '../../src/registry/protocol.ts';
import type { Db, Query } from './db.ts';
import { parseNoticeText, signedNoticeText } from '../../src/notice.ts';

export class RequestError extends Error {
  /** Refused before the body was read (the server closes the connection after its answer). */
  unread?: boolean;
  constructor(
    readonly status: number,
    readonly body: RegistryError,
    /** Seconds, sent as `Retry-After` (429). */
    readonly retryAfterS?: number,
  ) {
    // A refusal is an answer, not a bug: no stack trace to capture (a flood makes thousands a second).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(body.detail);
    Error.stackTraceLimit = limit;
  }
}

/** addDevice on a production registry: the published development device key (anyone can sign with it). */
export class DevKeyRefused extends RequestError {
  constructor() {
    super(400, { error: 'bad_request', detail: 'the published development device key is never enrolled' });
  }
}

/** addDevice: the id is enrolled already (the CLI says so in the user's language). */
export class AlreadyEnrolled extends RequestError {
  constructor(deviceId: string) {
    super(400, { error: 'bad_request', detail: `device ${deviceId} is already enrolled` });
  }
}

export interface StoreOptions {
  /** Ticket public keys the registry trusts (the devices' key ring). */
  keys: KeyRing;
  /** Refuse the development device key even while no device is enrolled. */
  production?: boolean;
  /** How far a request's `sent_at` may be from the server's clock, ms (a replayed old request is refused). */
  freshnessMs?: number;
  /**
   * How long a claim's reservation holds without its holder's confirmation, ms (default RESERVATION_MS):
   * after it, another device's claim is granted the ticket (a holder that died before confirming does not
   * block it for good), recorded in `released`; the former holder's late confirmation is then a conflict.
   */
  reservationMs?: number;
  /** Per-device request budget (after the signature, so nobody spends another's): none when absent. */
  rateLimit?: { perSecond: number; burst: number };
  now?: () => number;
}

export interface DeviceRow {
  device_id: string;
  /** Null for a device of a development fleet that was heard but never enrolled. */
  public_key: string | null;
  enrolled_at: number | null;
  revoked_at: number | null;
  last_seen_at: number | null;
  group_name: string | null;
  /** Its last sync's health (null: none reported yet). */
  health: (Health & { reported_at: number }) | null;
  /** Not heard for `staleDays` days (never heard counts from its enrolment). */
  stale: boolean;
}

const HEALTH_TEXT = /^[\x21-\x7e]{1,64}$/;
const HEALTH_UPDATE = /^[\x21-\x7e]{1,200}$/;
const HEALTH_INT = ['notice', 'ledger', 'outbox', 'up', 'errors'] as const;

/** A sync's `health` object: every field present and plain (one token of printable ASCII, or an integer). */
function parseHealth(v: unknown): Health {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad('health: an object');
  const h = v as Record<string, unknown>;
  for (const k of HEALTH_FIELDS) {
    const x = h[k];
    if ((HEALTH_INT as readonly string[]).includes(k)) {
      if (!Number.isSafeInteger(x) || (x as number) < 0) throw bad(`health.${k}: an integer ≥ 0`);
    } else if (typeof x !== 'string' || !(k === 'update' ? HEALTH_UPDATE : HEALTH_TEXT).test(x))
      throw bad(`health.${k}: 1–${k === 'update' ? 200 : 64} printable ASCII characters, no space`);
  }
  return Object.fromEntries(HEALTH_FIELDS.map((k) => [k, h[k]])) as unknown as Health;
}

export const DEVICE_ID = /^[\x21-\x7e]{1,16}$/;
const NONCE = /^[\x21-\x7e]{8,64}$/;
const SIGNATURE = /^[0-9a-f]{128}$/;
const DIGEST = SIGNATURE;
/** Anything but printable ASCII (a code is 1–400 of those): the negated search is a third cheaper on a 500-code body. */
const NOT_PRINTABLE = /[^\x20-\x7e]/;
const MS_MAX = 2 ** 48;

const bad = (detail: string) => new RequestError(400, { error: 'bad_request', detail });
export const badSignature = () =>
  new RequestError(401, { error: 'bad_signature', detail: 'the signature does not match the device key' });
/** The default freshness window (StoreOptions.freshnessMs): a day. */
const FRESHNESS_MS = 24 * 3600_000;
/** The default reservation (StoreOptions.reservationMs): 30 minutes. */
export const RESERVATION_MS = 30 * 60_000;
/** How long a devices-table answer may refuse requests without a read (enrolment elsewhere: this late). */
export const DEVICE_CACHE_MS = 2000;
const replay = () => new RequestError(409, { error: 'replay', detail: 'this nonce was used before' });

/** Checks a request's shape; throws `bad_request` with what is wrong. */
export function parseRequest(body: unknown, kind: RequestKind): SignedRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (typeof b.device_id !== 'string' || !DEVICE_ID.test(b.device_id))
    throw bad('device_id: 1–16 printable ASCII characters');
  if (typeof b.nonce !== 'string' || !NONCE.test(b.nonce)) throw bad('nonce: 8–64 printable ASCII characters');
  if (!Number.isSafeInteger(b.sent_at) || (b.sent_at as number) < 0 || (b.sent_at as number) >= MS_MAX)
    throw bad('sent_at: ms since 1970');
  if (typeof b.digest !== 'string' || !DIGEST.test(b.digest)) throw bad('digest: 128 hex digits');
  if (typeof b.signature !== 'string' || !SIGNATURE.test(b.signature)) throw bad('signature: 128 hex digits');
  if (!Array.isArray(b.payments)) throw bad('payments: an array');
  if (b.health !== undefined && kind !== 'sync') throw bad('health: a sync only');
  const health = b.health === undefined ? undefined : parseHealth(b.health);
  const max = kind === 'claim' ? 1 : MAX_BATCH;
  // A sync with health and no payment is a heartbeat (its answer carries a newer operator notice too).
  const min = health ? 0 : 1;
  if (b.payments.length < min || b.payments.length > max) throw bad(`payments: ${min} to ${max} entries`);
  const payments = b.payments.map((p: unknown, i: number) => {
    const q = p as Record<string, unknown>;
    if (typeof q !== 'object' || q === null) throw bad(`payments[${i}]: an object`);
    const code = q.code;
    if (typeof code !== 'string' || code.length === 0 || code.length > 400 || NOT_PRINTABLE.test(code))
      throw bad(`payments[${i}].code: a ticket code`);
    if (!Number.isSafeInteger(q.paid_at) || (q.paid_at as number) < 0 || (q.paid_at as number) >= MS_MAX)
      throw bad(`payments[${i}].paid_at: ms since 1970`);
    return { code, paid_at: q.paid_at as number };
  });
  return {
    kind,
    device_id: b.device_id,
    nonce: b.nonce,
    sent_at: b.sent_at as number,
    payments,
    ...(health ? { health } : {}),
    digest: b.digest,
    signature: b.signature,
  };
}

/** A request's head read from the start of its body (requestHead): the device id, the signature and the text it covers. */
export interface EarlyRequest {
  deviceId: string;
  nonce: string;
  sentAt: number;
  signature: string;
  text: Buffer;
}

/** A head checked before the body was read (RegistryStore.refuseEarly): signed by `key`, the key `deviceId` had then. */
export interface Verified extends EarlyRequest {
  key: string;
  /** The key was read from the devices table for this request (not the cache): authoritative. */
  read: boolean;
}

/** Bytes of a body within which its head must end (a device id and a nonce escaped at worst: ~700). */
export const HEAD_BYTES = 1024;
// A JSON string of printable ASCII: device id and nonce are checked after JSON.parse of the string alone.
const HEAD =
  /^\{"device_id":("(?:[^"\\]|\\.){1,96}"),"nonce":("(?:[^"\\]|\\.){1,384}"),"sent_at":(\d{1,16}),"digest":"([0-9a-f]{128})","signature":"([0-9a-f]{128})"[,}]/;

/**
 * The head a request's body starts with (signRequestWith writes it: device id, nonce, time, the payload's
 * digest, the signature over those), read from the first HEAD_BYTES of the body as Latin-1, so a request is
 * refused before the rest of its body is read; null when the body does not start so (a `400`).
 */
export function requestHead(start: string, kind: RequestKind): EarlyRequest | null {
  const m = HEAD.exec(start);
  if (!m) return null;
  let id: unknown, nonce: unknown;
  try {
    id = JSON.parse(m[1]);
    nonce = JSON.parse(m[2]);
  } catch {
    return null;
  }
  const sentAt = Number(m[3]);
  if (typeof id !== 'string' || !DEVICE_ID.test(id) || typeof nonce !== 'string' || !NONCE.test(nonce)) return null;
  if (!Number.isSafeInteger(sentAt) || sentAt >= MS_MAX) return null;
  const text = authText({ kind, device_id: id, nonce, sent_at: sentAt }, m[4]);
  return { deviceId: id, nonce, sentAt, signature: m[5], text: Buffer.from(text, 'latin1') };
}

export class RegistryStore {
  private readonly now: () => number;
  /** What the devices table said of an id lately (its key, or its refusal), for refusals only. */
  private readonly deviceCache = new Map<string, { key: string; refusal?: RequestError; at: number }>();
  /** Token buckets of the rate limit, per device id (this process only). */
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(
    readonly db: Db,
    readonly opts: StoreOptions,
  ) {
    this.now = opts.now ?? Date.now;
  }

  /** Drops what this process remembers of devices (keys, refusals, rate buckets): their tables were emptied. */
  forgetDevices(): void {
    this.deviceCache.clear();
    this.buckets.clear();
  }

  /** True while no device is enrolled and the server was not started as production. */
  async isDevelopmentFleet(q: Query = this.db): Promise<boolean> {
    if (this.opts.production) return false;
    const r = await q.query<{ n: number }>(`SELECT COUNT(*)::INTEGER AS n FROM devices`);
    return Number(r.rows[0].n) === 0;
  }

  // --- devices ------------------------------------------------------------------------------------

  async addDevice(deviceId: string, publicKeyHex: string): Promise<void> {
    if (!DEVICE_ID.test(deviceId)) throw bad('device id: 1–16 printable ASCII characters');
    if (!/^[0-9a-fA-F]{64}$/.test(publicKeyHex)) throw bad('public key: 64 hex digits (Ed25519)');
    if (this.opts.production && publicKeyHex.toLowerCase() === DEV_DEVICE_PUBLIC_KEY_HEX) throw new DevKeyRefused();
    const r = await this.db.query(
      `INSERT INTO devices (device_id, public_key, enrolled_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING device_id`,
      [deviceId, publicKeyHex.toLowerCase(), this.now()],
    );
    if (r.rows.length === 0) throw new AlreadyEnrolled(deviceId);
    this.deviceCache.clear();
  }

  async revokeDevice(deviceId: string): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE devices SET revoked_at = $2 WHERE device_id = $1 AND revoked_at IS NULL RETURNING device_id`,
      [deviceId, this.now()],
    );
    this.deviceCache.clear();
    return r.rows.length > 0;
  }

  /** Sets the group a device belongs to (campaigns `--group`); false when it is not enrolled. */
  async setGroup(deviceId: string, group: string | null): Promise<boolean> {
    const r = await this.db.query(`UPDATE devices SET group_name = $2 WHERE device_id = $1 RETURNING device_id`, [
      deviceId,
      group,
    ]);
    return r.rows.length > 0;
  }

  /**
   * The enrolled devices, and the devices heard without enrolment (a development fleet), with their last
   * health; `stale` when not heard for `staleDays` days.
   */
  async listDevices(opts: { staleDays?: number } = {}): Promise<DeviceRow[]> {
    const cutoff = this.now() - (opts.staleDays ?? 7) * 86400_000;
    const r = await this.db.query<Record<string, unknown>>(
      // h.* holds a device_id too (null without health): the id is read as `id`.
      `SELECT h.*, x.device_id AS id, d.public_key, d.enrolled_at, d.revoked_at, d.group_name, s.last_seen_at
         FROM (SELECT device_id FROM devices UNION SELECT device_id FROM device_seen) x
         LEFT JOIN devices d ON d.device_id = x.device_id
         LEFT JOIN device_seen s ON s.device_id = x.device_id
         LEFT JOIN device_health h ON h.device_id = x.device_id
        WHERE d.device_id IS NOT NULL OR h.device_id IS NOT NULL
        ORDER BY x.device_id`,
    );
    const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    return r.rows.map((row) => {
      const last = n(row.last_seen_at);
      const since = last ?? n(row.enrolled_at) ?? 0;
      return {
        device_id: String(row.id),
        public_key: (row.public_key as string) ?? null,
        enrolled_at: n(row.enrolled_at),
        revoked_at: n(row.revoked_at),
        last_seen_at: last,
        group_name: (row.group_name as string) ?? null,
        health:
          row.reported_at === null || row.reported_at === undefined
            ? null
            : {
                fw: String(row.fw_version),
                slot: String(row.slot),
                image: String(row.image_hash),
                notice: Number(row.notice),
                ledger: Number(row.ledger),
                outbox: Number(row.outbox),
                boot: String(row.boot_reason),
                up: Number(row.uptime_s),
                errors: Number(row.errors),
                update: '-',
                reported_at: Number(row.reported_at),
              },
        stale: n(row.revoked_at) === null && since < cutoff,
      };
    });
  }

  /** Fleet gauges for `/metrics`: devices heard, stale, by firmware version and boot reason; sums of outbox, ledger, errors. */
  async fleetGauges(staleDays: number) {
    const cutoff = this.now() - staleDays * 86400_000;
    const one = async (sql: string, p: unknown[] = []) =>
      (await this.db.query<Record<string, unknown>>(sql, p)).rows.map((r) =>
        Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'k' ? String(v) : Number(v)])),
      );
    const [sums] = await one(
      `SELECT COUNT(*)::INTEGER AS devices, COALESCE(SUM(outbox), 0)::BIGINT AS outbox, COALESCE(MAX(outbox), 0)::INTEGER AS outbox_max,
              COALESCE(SUM(ledger), 0)::BIGINT AS ledger, COALESCE(SUM(errors), 0)::BIGINT AS errors FROM device_health`,
    );
    const [stale] = await one(
      `SELECT COUNT(*)::INTEGER AS n FROM (SELECT device_id FROM devices WHERE revoked_at IS NULL UNION SELECT device_id FROM device_health) x
         LEFT JOIN device_seen s ON s.device_id = x.device_id LEFT JOIN devices d ON d.device_id = x.device_id
        WHERE COALESCE(s.last_seen_at, d.enrolled_at, 0) < $1`,
      [cutoff],
    );
    const versions = await one(
      `SELECT fw_version AS k, COUNT(*)::INTEGER AS n FROM device_health GROUP BY 1 ORDER BY 1`,
    );
    const boots = await one(`SELECT boot_reason AS k, COUNT(*)::INTEGER AS n FROM device_health GROUP BY 1 ORDER BY 1`);
    const campaigns = await one(
      `SELECT c.name || '/' || d.state AS k, COUNT(*)::INTEGER AS n FROM campaigns c JOIN campaign_devices d ON d.campaign = c.name
        WHERE c.state IN ('running', 'paused') GROUP BY 1 ORDER BY 1`,
    );
    return { ...sums, stale: stale.n, versions, boots, campaigns } as {
      devices: number;
      outbox: number;
      outbox_max: number;
      ledger: number;
      errors: number;
      stale: number;
      versions: { k: string; n: number }[];
      boots: { k: string; n: number }[];
      campaigns: { k: string; n: number }[];
    };
  }

  // --- requests -----------------------------------------------------------------------------------

  /**
   * The cheap refusals, before any ticket is looked at: device known, signature, rate, freshness, nonce
   * (read only: the insert in the transaction decides). One indexed read, one Ed25519 verify.
   */
  private async authenticate(req: SignedRequest, early?: Verified): Promise<void> {
    const now = this.now();
    // The payload is the one signed: its digest, by Node's encoder and OpenSSL (the portable encoder costs
    // ~10 ms on a 500-code sync). Latin-1 is UTF-8 here (parseRequest let through printable ASCII only).
    const digest = Buffer.from(nodeSha512(Buffer.from(signedText(req), 'latin1'))).toString('hex');
    if (digest !== req.digest)
      throw new RequestError(401, { error: 'bad_signature', detail: 'the body does not match its signed digest' });
    const text = Buffer.from(authText(req, req.digest), 'latin1');
    const signature = fromHex(req.signature);
    // What refuseEarly verified, when it is this very request's head (same device, same text).
    const head = early !== undefined && early.deviceId === req.device_id && early.text.equals(text) ? early : undefined;
    // The host library's plain verify (libsodium): a device's genuine signature always passes it, and a
    // forged one never falls back to the device's cofactored rules (noble, ~0.5–3 ms an attacker could
    // ask for with a signature whose R is no prime-order point). Tickets keep the device's rules (below).
    const signedBy = (key: string) => head?.key === key || nodeVerify(signature, text, fromHex(key));
    // What the devices table said of this id lately refuses without a database read (a flood of forged
    // requests under one id costs no query); a request it would accept is checked against the table.
    const seen = this.cachedDevice(req.device_id);
    let verified = '';
    if (seen) {
      if (seen.refusal) throw seen.refusal;
      if (!signedBy(seen.key)) throw badSignature();
      verified = seen.key;
    }
    // The table's answer: read now, or read for this very request by refuseEarly.
    const publicKey = head?.read ? head.key : await this.deviceKey(req.device_id);
    if (verified !== publicKey && !signedBy(publicKey)) throw badSignature();
    this.spend(req.device_id, now);
    // Checked on the head already (its text holds the nonce and time).
    if (!head) await this.checkFreshNonce(req.device_id, req.nonce, req.sent_at, now);
  }

  /**
   * A request's signature checked from its head (requestHead), before the rest of its body is read, against the
   * key this process knew for the device (DEVICE_CACHE_MS; else one read of the devices table, as the full
   * path makes): refused here when it does not verify (401), or with the device's refusal (403). What
   * verified is handed to handle(), which uses it only for the same device, key and text.
   */
  async refuseEarly(e: EarlyRequest): Promise<Verified> {
    const seen = this.cachedDevice(e.deviceId);
    if (seen?.refusal) throw seen.refusal;
    const key = seen ? seen.key : await this.deviceKey(e.deviceId);
    if (!nodeVerify(fromHex(e.signature), e.text, fromHex(key))) throw badSignature();
    // A captured request replayed, or one too old, is refused here too: its head is genuine, but its body
    // must not be read (an attacker on the network could replay one 500-code sync endlessly).
    await this.checkFreshNonce(e.deviceId, e.nonce, e.sentAt);
    return { ...e, key, read: !seen };
  }

  /** Freshness (`401 stale`), then the nonce unused (a read: `409 replay`; the transaction's insert decides). */
  private async checkFreshNonce(deviceId: string, nonce: string, sentAt: number, now = this.now()): Promise<void> {
    this.checkFresh(sentAt, now);
    const used = await this.db.query(`SELECT 1 FROM nonces WHERE device_id = $1 AND nonce = $2`, [deviceId, nonce]);
    if (used.rows.length > 0) throw replay();
  }

  /** What the devices table said of an id within DEVICE_CACHE_MS, if anything. */
  private cachedDevice(deviceId: string) {
    const seen = this.deviceCache.get(deviceId);
    return seen && Date.now() - seen.at < DEVICE_CACHE_MS ? seen : undefined;
  }

  /**
   * The key a device's requests must be signed with, from the devices table (authoritative), or its
   * refusal (revoked, unknown, the development key in production); remembered for refusals.
   */
  private async deviceKey(deviceId: string): Promise<string> {
    const remember = (key: string, refusal?: RequestError) => {
      if (this.deviceCache.size >= 10_000) this.deviceCache.clear();
      this.deviceCache.set(deviceId, { key, refusal, at: Date.now() });
      if (refusal) throw refusal;
      return key;
    };
    const rows = (
      await this.db.query<{ public_key: string; revoked_at: number | null }>(
        `SELECT public_key, revoked_at FROM devices WHERE device_id = $1`,
        [deviceId],
      )
    ).rows;
    if (rows.length > 0) {
      if (rows[0].revoked_at !== null)
        return remember('', new RequestError(403, { error: 'revoked', detail: `device ${deviceId} is revoked` }));
      // A row enrolled before the registry was production (or by an older version): still refused.
      if (this.opts.production && rows[0].public_key === DEV_DEVICE_PUBLIC_KEY_HEX)
        return remember(
          '',
          new RequestError(403, {
            error: 'unknown_device',
            detail: `device ${deviceId} holds the published development key, refused in production`,
          }),
        );
      return remember(rows[0].public_key);
    }
    if (await this.isDevelopmentFleet()) {
      // A development fleet: the key the id enrolled itself with (a simulator run's), else the published one.
      const own = await this.db.query<{ public_key: string }>(`SELECT public_key FROM dev_keys WHERE device_id = $1`, [
        deviceId,
      ]);
      return remember(own.rows[0]?.public_key ?? DEV_DEVICE_PUBLIC_KEY_HEX);
    }
    return remember(
      '',
      new RequestError(403, { error: 'unknown_device', detail: `device ${deviceId} is not enrolled` }),
    );
  }

  /**
   * `POST /v1/enrol`, a development fleet only: binds `device_id` to its own key (a simulator run's),
   * signed by that key over devEnrolText. The id's latest enrolment wins (a simulator started again under
   * the same id); from then on the published development key is refused under that id.
   */
  async enrolDevelopmentKey(body: unknown): Promise<{ device_id: string; replaced: boolean }> {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (typeof b.device_id !== 'string' || !DEVICE_ID.test(b.device_id))
      throw bad('device_id: 1–16 printable ASCII characters');
    if (typeof b.public_key !== 'string' || !/^[0-9a-f]{64}$/.test(b.public_key))
      throw bad('public_key: 64 lowercase hex digits (Ed25519)');
    if (!Number.isSafeInteger(b.sent_at)) throw bad('sent_at: ms since 1970');
    if (typeof b.signature !== 'string' || !/^[0-9a-f]{128}$/.test(b.signature)) throw bad('signature: 128 hex digits');
    if (b.public_key === DEV_DEVICE_PUBLIC_KEY_HEX)
      throw bad('the published development device key needs no enrolment');
    const id = b.device_id;
    const key = b.public_key;
    const sentAt = b.sent_at as number;
    if (!nodeVerify(fromHex(b.signature), Buffer.from(devEnrolText(id, key, sentAt), 'utf8'), fromHex(key)))
      throw badSignature();
    this.checkFresh(sentAt);
    if (!(await this.isDevelopmentFleet()))
      throw new RequestError(403, {
        error: 'unknown_device',
        detail: 'a device enrols itself on a development fleet only; here: saphir registry devices add ID KEY',
      });
    const replaced = await this.db.tx(async (q) => {
      // Single-use like any request: the signed text (id, key, time) is the nonce, recorded with the
      // others (pruned with them), so a captured enrolment replayed within the window changes no key.
      const seen = await q.query(
        `INSERT INTO nonces (device_id, nonce, seen_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING nonce`,
        [id, `enrol-${sentAt}-${key.slice(0, 16)}`, this.now()],
      );
      if (seen.rows.length === 0) throw replay();
      const before = await q.query<{ public_key: string }>(`SELECT public_key FROM dev_keys WHERE device_id = $1`, [
        id,
      ]);
      await q.query(
        `INSERT INTO dev_keys (device_id, public_key, enrolled_at) VALUES ($1, $2, $3)
           ON CONFLICT (device_id) DO UPDATE SET public_key = EXCLUDED.public_key, enrolled_at = EXCLUDED.enrolled_at`,
        [id, key, this.now()],
      );
      return before.rows.length > 0 && before.rows[0].public_key !== key;
    });
    this.deviceCache.delete(id);
    return { device_id: id, replaced };
  }

  /** The freshness window: a request whose `sent_at` is further than freshnessMs from `now` is refused `stale`. */
  private checkFresh(sentAt: number, now = this.now()): void {
    const fresh = this.opts.freshnessMs ?? FRESHNESS_MS;
    if (Math.abs(sentAt - now) > fresh)
      throw new RequestError(401, {
        error: 'stale',
        detail: `sent_at is more than ${Math.round(fresh / 60000)} min from the registry's clock`,
      });
  }

  /** Takes one token from the device's bucket, or refuses `429` with when the next one comes. */
  private spend(deviceId: string, now: number): void {
    const limit = this.opts.rateLimit;
    if (!limit) return;
    let b = this.buckets.get(deviceId);
    if (!b) {
      // Only signed requests get here, so the map holds fleet devices; still, drop the full buckets now and then.
      if (this.buckets.size >= 100_000)
        for (const [id, x] of this.buckets)
          if (x.tokens + ((now - x.at) / 1000) * limit.perSecond >= limit.burst) this.buckets.delete(id);
      b = { tokens: limit.burst, at: now };
      this.buckets.set(deviceId, b);
    }
    b.tokens = Math.min(limit.burst, b.tokens + ((now - b.at) / 1000) * limit.perSecond);
    b.at = now;
    if (b.tokens < 1)
      throw new RequestError(
        429,
        { error: 'rate_limited', detail: `over ${limit.perSecond} requests/s for device ${deviceId}` },
        Math.max(1, Math.ceil((1 - b.tokens) / limit.perSecond)),
      );
    b.tokens -= 1;
  }

  /**
   * Handles a signed claim, sync or confirm: refusals first, then the tickets; the writes are one transaction.
   * A sync's health is recorded, and the answer may carry an update campaign's order (campaigns.ts).
   */
  async handle(req: SignedRequest, early?: Verified): Promise<{ results: PaymentResult[]; update?: UpdateOffer }> {
    await this.authenticate(req, early);
    // Ticket checks need no database: done before the transaction, so it is held only for the SQL.
    const checked = req.payments.map((p) => ({
      paidAt: p.paid_at,
      c: checkCode(p.code.trim(), { keys: this.opts.keys, verify: hostVerify }),
    }));
    return this.db.tx(async (q) => {
      const now = this.now();
      const seen = await q.query(
        `INSERT INTO nonces (device_id, nonce, seen_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING nonce`,
        [req.device_id, req.nonce, now],
      );
      if (seen.rows.length === 0) throw replay();
      await q.query(
        `INSERT INTO device_seen (device_id, last_seen_at) VALUES ($1, $2)
           ON CONFLICT (device_id) DO UPDATE SET last_seen_at = EXCLUDED.last_seen_at`,
        [req.device_id, now],
      );
      const out: PaymentResult[] = [];
      for (const { c, paidAt } of checked) out.push(await this.one(q, req, c, paidAt));
      const h = req.health;
      if (!h) return { results: out };
      await q.query(
        `INSERT INTO device_health (device_id, reported_at, fw_version, slot, image_hash, notice, ledger, outbox, boot_reason, uptime_s, errors)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           ON CONFLICT (device_id) DO UPDATE SET reported_at = EXCLUDED.reported_at, fw_version = EXCLUDED.fw_version,
             slot = EXCLUDED.slot, image_hash = EXCLUDED.image_hash, notice = EXCLUDED.notice, ledger = EXCLUDED.ledger,
             outbox = EXCLUDED.outbox, boot_reason = EXCLUDED.boot_reason, uptime_s = EXCLUDED.uptime_s, errors = EXCLUDED.errors`,
        [req.device_id, now, h.fw, h.slot, h.image, h.notice, h.ledger, h.outbox, h.boot, h.up, h.errors],
      );
      const update = await deviceReport(q, req.device_id, h, now);
      return update ? { results: out, update } : { results: out };
    });
  }

  private async one(q: Query, req: SignedRequest, c: CheckResult, paidAt: number): Promise<PaymentResult> {
    if (c.status === 'invalid') return { result: 'invalid', reason: c.reason! };
    if (c.status !== 'win' || !c.ticket) return { result: 'invalid', reason: 'E_NOT_WINNER' };
    const ticket = { emission: c.ticket.emission, block: c.ticket.block, number: c.ticket.number };
    const key = [ticket.emission, ticket.block, ticket.number];
    const now = this.now();
    const online = req.kind === 'claim';
    const granted = { result: 'granted', ticket, prize_eur: c.prizeEur } as const;
    // A claim reserves (confirmed_at NULL); a sync (an offline payment) or a confirm of a ticket nobody
    // holds is a payment (confirmed, with the device's time of payment).
    const inserted = await q.query(
      `INSERT INTO payments (emission, block, number, device_id, prize_eur, paid_at, recorded_at, online, confirmed_at, device_paid_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING device_id`,
      [
        ...key,
        req.device_id,
        c.prizeEur,
        online ? now : paidAt,
        now,
        req.kind !== 'sync',
        online ? null : now,
        online ? null : paidAt,
      ],
    );
    if (inserted.rows.length > 0) return granted;
    type Holder = { device_id: string; paid_at: number; confirmed_at: number | null; device_paid_at: number | null };
    const read = async () =>
      (
        await q.query<Holder>(
          `SELECT device_id, paid_at, confirmed_at, device_paid_at FROM payments WHERE emission = $1 AND block = $2 AND number = $3`,
          key,
        )
      ).rows[0];
    let holder = await read();
    const by = { device_id: holder.device_id, paid_at: Number(holder.paid_at) };
    // A paid-twice regrant carries the second payment's time: sent again (retried), it is not recorded again.
    const regrant = (kind: 'refused' | 'reserved' | 'paid-twice') =>
      q.query(
        `INSERT INTO regrants (emission, block, number, device_id, asked_at, kind, device_paid_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
        [...key, req.device_id, now, kind, kind === 'paid-twice' ? paidAt : null],
      );
    if (holder.device_id === req.device_id) {
      if (!online) {
        // The holder's sync or confirm: it paid. The first confirms the reservation; the same payment sent
        // again (a retried batch) is granted again; another payment time means it paid the ticket twice
        // (a rolled-back or cloned device): granted (recorded once), reported.
        if (holder.confirmed_at === null) {
          const u = await q.query(
            `UPDATE payments SET confirmed_at = $4, device_paid_at = $5
              WHERE emission = $1 AND block = $2 AND number = $3 AND confirmed_at IS NULL RETURNING device_id`,
            [...key, now, paidAt],
          );
          if (u.rows.length > 0) return granted;
          holder = await read();
        }
        if (holder.device_paid_at === null)
          await q.query(`UPDATE payments SET device_paid_at = $4 WHERE emission = $1 AND block = $2 AND number = $3`, [
            ...key,
            paidAt,
          ]);
        else if (Number(holder.device_paid_at) !== paidAt) await regrant('paid-twice');
        return granted;
      }
      // Reserved, not confirmed: the answer was lost and the holder did not pay, or a rolled-back or cloned
      // device asks: granted again (the registry cannot tell), reported.
      if (holder.confirmed_at === null) {
        await regrant('reserved');
        return granted;
      }
      // Confirmed: the holder paid it. Asking again means a device rolled back or cloned: refused, reported.
      await regrant('refused');
      return { result: 'already_paid', ticket, by };
    }
    if (online) {
      // Reserved by another device that never confirmed within the reservation: released to this claim
      // (one conditional update: of two servers racing, one wins), recorded for the payment centre.
      const held = Number(holder.paid_at);
      if (holder.confirmed_at === null && now - held >= (this.opts.reservationMs ?? RESERVATION_MS)) {
        const moved = await q.query(
          `UPDATE payments SET device_id = $4, prize_eur = $5, paid_at = $6, recorded_at = $6
            WHERE emission = $1 AND block = $2 AND number = $3 AND device_id = $7 AND paid_at = $8
              AND confirmed_at IS NULL RETURNING device_id`,
          [...key, req.device_id, c.prizeEur, now, holder.device_id, held],
        );
        if (moved.rows.length > 0) {
          await q.query(
            `INSERT INTO released (emission, block, number, device_id, reserved_at, released_at, to_device_id)
               VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
            [...key, holder.device_id, held, now, req.device_id],
          );
          return granted;
        }
        holder = await read();
        return { result: 'already_paid', ticket, by: { device_id: holder.device_id, paid_at: Number(holder.paid_at) } };
      }
      return { result: 'already_paid', ticket, by };
    }
    // One row a payment, by its time: the same batch retried adds nothing, a clone's payment under the
    // same id (another time) is another conflict.
    await q.query(
      `INSERT INTO conflicts (emission, block, number, device_id, prize_eur, paid_at, recorded_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      [...key, req.device_id, c.prizeEur, paidAt, now],
    );
    return { result: 'conflict', ticket, by };
  }

  // --- operator notices ---------------------------------------------------------------------------

  /**
   * Publishes a signed notice (its text, src/notice.ts): well formed, signed (the devices check by whom),
   * above the latest published. Throws `bad_request` saying why otherwise.
   */
  async publishNotice(text: string): Promise<{ version: number }> {
    const p = parseNoticeText(text);
    if ('error' in p) throw bad(`notice: ${p.error}`);
    if (p.signature === undefined) throw bad('notice: not signed (saphir notice sign)');
    const v = p.notice.version;
    const r = await this.db.query(
      `INSERT INTO notices (version, body, published_at) SELECT $1, $2, $3
        WHERE NOT EXISTS (SELECT 1 FROM notices WHERE version >= $1) ON CONFLICT DO NOTHING RETURNING version`,
      [v, signedNoticeText(p), this.now()],
    );
    if (r.rows.length === 0) {
      const latest = await this.latestNotice();
      throw bad(`notice: version ${v} is not above the latest published, ${latest ? latest.version : v}`);
    }
    return { version: v };
  }

  /** The latest published notice: its version and signed text; null when none. */
  async latestNotice(): Promise<{ version: number; text: string; published_at: number } | null> {
    const r = await this.db.query<{ version: number; body: string; published_at: number }>(
      `SELECT version, body, published_at FROM notices ORDER BY version DESC LIMIT 1`,
    );
    const x = r.rows[0];
    return x ? { version: Number(x.version), text: x.body, published_at: Number(x.published_at) } : null;
  }

  /** Drops nonces older than twice the freshness window: a request that old is refused as stale anyway. */
  async pruneNonces(): Promise<number> {
    const fresh = this.opts.freshnessMs ?? FRESHNESS_MS;
    const r = await this.db.query(`DELETE FROM nonces WHERE seen_at < $1 RETURNING nonce`, [this.now() - 2 * fresh]);
    return r.rows.length;
  }

  // --- report -------------------------------------------------------------------------------------

  async report(opts: { since?: number; staleDays?: number } = {}) {
    const since = opts.since ?? 0;
    const staleDays = opts.staleDays ?? 7;
    const num = <T extends Record<string, unknown>>(rows: T[]) =>
      rows.map((r) =>
        Object.fromEntries(
          Object.entries(r).map(([k, v]) => [
            k,
            typeof v === 'bigint' ||
            (typeof v === 'string' && /^\d+$/.test(v) && !k.endsWith('device_id') && k !== 'day')
              ? Number(v)
              : v,
          ]),
        ),
      );
    const conflicts = await this.db.query(
      `SELECT c.emission, c.block, c.number, c.device_id, c.prize_eur, c.paid_at,
              p.device_id AS first_device_id, p.paid_at AS first_paid_at
         FROM conflicts c JOIN payments p ON p.emission = c.emission AND p.block = c.block AND p.number = c.number
        WHERE c.paid_at >= $1 ORDER BY c.paid_at, c.device_id`,
      [since],
    );
    const perDevice = await this.db.query(
      `SELECT device_id, COUNT(*)::INTEGER AS payments, SUM(prize_eur)::BIGINT AS total_eur,
              SUM(CASE WHEN online THEN 0 ELSE 1 END)::INTEGER AS offline
         FROM payments WHERE paid_at >= $1 GROUP BY device_id ORDER BY device_id`,
      [since],
    );
    // Days in Paris are close enough to UTC days for a report; the ms → day cast is plain SQL.
    const perDay = await this.db.query(
      `SELECT TO_CHAR(TO_TIMESTAMP(paid_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
              COUNT(*)::INTEGER AS payments, SUM(prize_eur)::BIGINT AS total_eur
         FROM payments WHERE paid_at >= $1 GROUP BY 1 ORDER BY 1`,
      [since],
    );
    const cutoff = this.now() - staleDays * 86400_000;
    const notSeen = await this.db.query(
      `SELECT d.device_id, s.last_seen_at FROM devices d LEFT JOIN device_seen s ON s.device_id = d.device_id
        WHERE d.revoked_at IS NULL AND (s.last_seen_at IS NULL OR s.last_seen_at < $1) ORDER BY d.device_id`,
      [cutoff],
    );
    const regrants = await this.db.query(
      `SELECT r.emission, r.block, r.number, r.device_id, r.asked_at, r.kind, p.paid_at, p.confirmed_at
         FROM regrants r JOIN payments p ON p.emission = r.emission AND p.block = r.block AND p.number = r.number
        WHERE r.asked_at >= $1 ORDER BY r.asked_at, r.device_id`,
      [since],
    );
    const released = await this.db.query(
      `SELECT emission, block, number, device_id, reserved_at, released_at, to_device_id FROM released
        WHERE released_at >= $1 ORDER BY released_at, emission, block, number`,
      [since],
    );
    const totals = await this.db.query(
      `SELECT COUNT(*)::INTEGER AS payments, COALESCE(SUM(prize_eur), 0)::BIGINT AS total_eur FROM payments WHERE paid_at >= $1`,
      [since],
    );
    return {
      since,
      totals: num(totals.rows)[0],
      conflicts: num(conflicts.rows),
      regrants: num(regrants.rows),
      released: num(released.rows),
      per_device: num(perDevice.rows),
      per_day: num(perDay.rows),
      not_seen: { days: staleDays, devices: num(notSeen.rows) },
    };
  }

  /** Every ticket's holder, at most `limit` (small fleets, tests and scenarios). */
  async holders(limit = 10_000): Promise<{ emission: number; block: number; number: number; device_id: string }[]> {
    const r = await this.db.query<{ emission: number; block: number; number: number; device_id: string }>(
      `SELECT emission, block, number, device_id FROM payments ORDER BY emission, block, number LIMIT $1`,
      [limit],
    );
    return r.rows.map((x) => ({ ...x, number: Number(x.number) }));
  }

  async counts(): Promise<{ payments: number; conflicts: number; devices: number }> {
    const r = await this.db.query<{ p: number; c: number; d: number }>(
      `SELECT (SELECT COUNT(*) FROM payments)::INTEGER AS p, (SELECT COUNT(*) FROM conflicts)::INTEGER AS c,
              (SELECT COUNT(*) FROM devices)::INTEGER AS d`,
    );
    return { payments: Number(r.rows[0].p), conflicts: Number(r.rows[0].c), devices: Number(r.rows[0].d) };
  }
}
