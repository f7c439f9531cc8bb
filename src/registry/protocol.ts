// The paid-ticket registry's wire format, shared by the device (portable core) and the server (Node).
// A request is JSON, its head first: device id, nonce, time, the SHA-512 of its payload text and the
// signature over those (authText), so the registry refuses a forged request before it reads the payload.
// Texts, not the JSON, are signed and hashed, so the device needs no JSON canonicalisation. See
// docs/registry.md.
import { utf8Encode } from '../utf8.ts';
import { toHex } from '../hex.ts';

/** The published development device key: anyone can sign with it, so a production fleet never trusts it. */
export const DEV_DEVICE_SEED_HEX = '2c2ce9b0c6639e482519acb9bbb85c86b27f657c44d579476bb29b41fe708df7';
export const DEV_DEVICE_PUBLIC_KEY_HEX = 'c7fe7635a1ddda35c4c060104d6910e606572f8e2924c40a7d0a4470fb19f974';

/** The published development registry key: anyone can sign answers with it (a development fleet only). */
export const DEV_REGISTRY_SEED_HEX = '4f221b9e74fb45c04bd4cabf8119ee1cdf51bd350e9771f4eed40dbf17bb96fe';
export const DEV_REGISTRY_PUBLIC_KEY_HEX = 'b671a2049ce0129843b62b2e896467bb75e4a782f20c886bda90701b2579fff9';

export const PROTOCOL = 'SAPHIR-REGISTRY-V2';
/** Payments a sync request may carry. */
export const MAX_BATCH = 500;
/** Largest request body the server reads, in bytes. */
export const MAX_BODY_BYTES = 1 << 20;

/** A payment as the device reports it: the ticket's SPH1 code and when it was paid (ms since 1970 UTC). */
export interface PaymentClaim {
  code: string;
  paid_at: number;
}

/**
 * What a device says of itself with each sync (docs/registry.md, "Health"): its running image (version,
 * slot, SHA-256), the operator notice version it holds, payments in its ledger, entries waiting in its
 * outbox, why it last started, seconds since, errors counted since, and the outcome of an update campaign
 * (`HASH:installed` or `HASH:failed:REASON`, `-` when none).
 */
export interface Health {
  fw: string;
  slot: string;
  image: string;
  notice: number;
  ledger: number;
  outbox: number;
  boot: string;
  up: number;
  errors: number;
  update: string;
}

/** The health fields in the order the signed line carries them. */
export const HEALTH_FIELDS = [
  'fw',
  'slot',
  'image',
  'notice',
  'ledger',
  'outbox',
  'boot',
  'up',
  'errors',
  'update',
] as const;

/**
 * What a device signs: `claim` asks before paying; `sync` reports payments made offline; `confirm`
 * says that granted claims were paid (two-phase claims; a `sync` of them confirms too).
 */
export type RequestKind = 'claim' | 'sync' | 'confirm';

export interface RegistryRequest {
  kind: RequestKind;
  device_id: string;
  /** Unique per device: the registry refuses a nonce it has seen (replay). */
  nonce: string;
  /** The device's trusted time when it sent the request (ms since 1970 UTC). */
  sent_at: number;
  payments: PaymentClaim[];
  /** Sync only: the device's health (a sync without payments is a heartbeat). */
  health?: Health;
}

export interface SignedRequest extends RegistryRequest {
  /** SHA-512, hex, of `signedText(request)` in UTF-8: the payments and health the signature covers. */
  digest: string;
  /** Ed25519 signature, hex, over `authText(request, digest)` in UTF-8. */
  signature: string;
}

export interface TicketRef {
  emission: number;
  block: number;
  number: number;
}

export type PaymentResult =
  /** The ticket is this device's to pay (claim), or its payment is recorded (sync) or confirmed (confirm). */
  | { result: 'granted'; ticket: TicketRef; prize_eur: number }
  /** Another device paid it first (claim: do not pay). A claim by the holder itself is `granted` again. */
  | { result: 'already_paid'; ticket: TicketRef; by: { device_id: string; paid_at: number } }
  /** Sync and confirm: this device paid a ticket another device had paid: recorded as a conflict. */
  | { result: 'conflict'; ticket: TicketRef; by: { device_id: string; paid_at: number } }
  /** The code is not a genuine winning SAPHIR ticket (reason: an SPH1 reason or `E_NOT_WINNER`). */
  | { result: 'invalid'; reason: string };

/**
 * An update campaign's order to a device, in a sync's answer (signed with it): the image's SHA-256, its
 * size and its manifest (header and TLV records, hex), fetched then in chunks from `POST /v1/chunk`.
 */
export interface UpdateOffer {
  campaign: string;
  hash: string;
  size: number;
  manifest: string;
}

/** Bytes of one image chunk served by `/v1/chunk` (one flash sector of the slot). */
export const IMAGE_CHUNK = 4096;

export interface RegistryResponse {
  results: PaymentResult[];
  update?: UpdateOffer;
  /** Ed25519 signature, hex, by the registry's key over `answerText(request, results)` in UTF-8. */
  signature: string;
}

export interface RegistryError {
  error:
    'bad_request' | 'unknown_device' | 'revoked' | 'bad_signature' | 'replay' | 'stale' | 'rate_limited' | 'internal';
  detail: string;
}

function field(s: string): string {
  // Newlines would let one field pose as two; the server refuses them anyway (looked for first: a
  // 500-code sync checked by a server under a flood).
  return s.indexOf('\n') < 0 && s.indexOf('\r') < 0 ? s : s.replace(/[\r\n]/g, ' ');
}

/** The payload text a request's digest is taken over: one field a line, then one line a payment. */
export function signedText(r: RegistryRequest): string {
  const lines = [PROTOCOL, r.kind, field(r.device_id), field(r.nonce), String(r.sent_at)];
  // A code never starts with `health ` (the registry checks it as SPH1), so this line is no payment's.
  if (r.health)
    lines.push('health ' + HEALTH_FIELDS.map((k) => field(String(r.health![k])).replace(/ /g, '_')).join(' '));
  for (const p of r.payments) lines.push(`${field(p.code)} ${p.paid_at}`);
  return lines.join('\n');
}

/**
 * The text the registry signs for an answer: the request's device id and nonce (an answer fits one
 * request only), then the results, each with its ticket, as `JSON.stringify` writes them. The device
 * re-serialises the results it parsed: one rewritten, added or reordered no longer matches.
 */
export function answerText(
  r: { device_id: string; nonce: string },
  results: PaymentResult[],
  update?: UpdateOffer,
): string {
  const t = [PROTOCOL, 'answer', field(r.device_id), field(r.nonce), JSON.stringify(results)];
  if (update) t.push(JSON.stringify(update));
  return t.join('\n');
}

/** What `POST /v1/enrol` is signed over, by the key it enrols (proof the sender holds it). */
export const devEnrolText = (deviceId: string, publicKeyHex: string, sentAt: number): string =>
  `saphir-dev-enrol-v1\n${deviceId}\n${publicKeyHex}\n${sentAt}`;

/** What a device signs: the request's head and its payload's digest (hex), one a line. */
export function authText(r: Pick<RegistryRequest, 'kind' | 'device_id' | 'nonce' | 'sent_at'>, digest: string): string {
  return [PROTOCOL, r.kind, field(r.device_id), field(r.nonce), String(r.sent_at), digest].join('\n');
}

/**
 * Signs a request (`sign`: the device's key, e.g. DeviceKey.sign; `sha512`: the platform's). The object's
 * keys are in the body's order: the head (device, nonce, time, digest, signature) first, so JSON.stringify
 * writes what the registry checks before it reads the payments.
 */
export function signRequestWith(
  r: RegistryRequest,
  sign: (message: Uint8Array) => Uint8Array,
  sha512: (message: Uint8Array) => Uint8Array,
): SignedRequest {
  const digest = toHex(sha512(utf8Encode(signedText(r))));
  const signature = toHex(sign(utf8Encode(authText(r, digest))));
  const { kind, device_id, nonce, sent_at, payments, health } = r;
  return { device_id, nonce, sent_at, digest, signature, kind, payments, ...(health ? { health } : {}) };
}

/** signRequestWith with a seed (`sign` is the platform's Ed25519, e.g. nodeSign). */
export function signRequest(
  r: RegistryRequest,
  seed: Uint8Array,
  sign: (message: Uint8Array, seed: Uint8Array) => Uint8Array,
  sha512: (message: Uint8Array) => Uint8Array,
): SignedRequest {
  return signRequestWith(r, (m) => sign(m, seed), sha512);
}

/** What a new update campaign is (`saphir registry campaign create`). */
export interface CampaignSpec {
  name: string;
  image: Uint8Array;
  group?: string;
  /** These devices instead of the fleet's (a scenario's own). */
  devices?: string[];
  phases: number[];
  maxFailures: number;
}

/** An update campaign's operation, as the embedded registry and the scenarios ask it (`saphir registry campaign`). */
export type CampaignOp =
  ({ verb: 'create' } & CampaignSpec) | { verb: 'status' | 'pause' | 'resume' | 'abort'; name: string };
