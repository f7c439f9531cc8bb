// A host-side registry client: signs with node:crypto and posts over HTTP (Node's fetch). Used by
// `saphir ledger export --to URL`, the simulator's network adapter, tests and the bench.
import { fromHex } from '../../src/hex.ts';
import { nodeSign } from '../../tools/node-crypto.ts';
import {
  signRequest,
  type Health,
  type RequestKind,
  type PaymentClaim,
  type RegistryError,
  type RegistryResponse,
  type SignedRequest,
} from '../../src/registry/protocol.ts';

export type ClientAnswer =
  { ok: true; status: number; body: RegistryResponse } | { ok: false; status: number; body: RegistryError };

export interface DeviceCredentials {
  deviceId: string;
  seedHex: string;
}

/** What `POST /v1/enrol` is signed over, by the key it enrols (proof the sender holds it). */
export const devEnrolText = (deviceId: string, publicKeyHex: string, sentAt: number): string =>
  `saphir-dev-enrol-v1\n${deviceId}\n${publicKeyHex}\n${sentAt}`;

let nonceCounter = 0;
/** Unique for this process: the time, a counter and a random part. */
export function newNonce(): string {
  nonceCounter = (nonceCounter + 1) % 1e9;
  return `${Date.now().toString(36)}-${nonceCounter.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

export async function postRegistry(
  url: string,
  kind: RequestKind,
  who: DeviceCredentials,
  payments: PaymentClaim[],
  opts: { nonce?: string; sentAt?: number; timeoutMs?: number; health?: Health } = {},
): Promise<ClientAnswer> {
  const signed = signRequest(
    {
      kind,
      device_id: who.deviceId,
      nonce: opts.nonce ?? newNonce(),
      sent_at: opts.sentAt ?? Date.now(),
      payments,
      ...(opts.health ? { health: opts.health } : {}),
    },
    fromHex(who.seedHex),
    nodeSign,
  );
  return postSigned(url, signed, opts.timeoutMs);
}

/** Posts a request already signed (by this host, or by a device through its service port). */
export async function postSigned(url: string, signed: SignedRequest, timeoutMs = 10_000): Promise<ClientAnswer> {
  const res = await fetch(`${url.replace(/\/$/, '')}/v1/${signed.kind}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(signed),
    signal: AbortSignal.timeout(timeoutMs),
  });
  // A server that is not the registry may answer anything: no JSON reads as an empty refusal.
  const body = (await res.json().catch(() => ({}))) as never;
  return res.ok ? { ok: true, status: res.status, body } : { ok: false, status: res.status, body };
}

/**
 * Enrols a device's own key on a development registry (`POST /v1/enrol`, signed by that key): a
 * simulator run's key, so that two simulators are two devices with their own keys.
 */
export async function enrolDevelopmentKey(
  url: string,
  deviceId: string,
  key: { publicKey: Uint8Array; sign(m: Uint8Array): Uint8Array },
  timeoutMs = 3000,
): Promise<{
  ok: boolean;
  status: number;
  body: { enrolled?: boolean; replaced?: boolean; error?: string; detail?: string };
}> {
  const publicKey = Buffer.from(key.publicKey).toString('hex');
  const sentAt = Date.now();
  const signature = Buffer.from(key.sign(Buffer.from(devEnrolText(deviceId, publicKey, sentAt), 'utf8'))).toString(
    'hex',
  );
  const res = await fetch(`${url.replace(/\/$/, '')}/v1/enrol`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ device_id: deviceId, public_key: publicKey, sent_at: sentAt, signature }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json().catch(() => ({}))) as never;
  return { ok: res.ok, status: res.status, body };
}
