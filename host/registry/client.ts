// A host-side registry client: signs with node:crypto and posts over HTTP (Node's fetch). Used by
// `saphir ledger export --to URL`, the simulator's network adapter, tests and the bench.
import { fromHex, toHex } from '../../src/hex.ts';
import { utf8Encode } from '../../src/utf8.ts';
import type { DeviceKey } from '../../src/hal.ts';
import { nodeSha512, nodeSign } from '../../tools/node-crypto.ts';
import {
  devEnrolText,
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
    nodeSha512,
  );
  return postSigned(url, signed, opts.timeoutMs);
}

/**
 * POSTs `body` as JSON to `path` on the registry at `url`. A server that is not the registry may answer
 * anything: no JSON reads as an empty body.
 */
async function postJson<B>(
  url: string,
  path: string,
  body: unknown,
  timeoutMs: number,
): Promise<{ ok: boolean; status: number; body: B }> {
  const res = await fetch(`${url.replace(/\/$/, '')}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { ok: res.ok, status: res.status, body: (await res.json().catch(() => ({}))) as B };
}

/** Posts a request already signed (by this host, or by a device through its service port). */
export async function postSigned(url: string, signed: SignedRequest, timeoutMs = 10_000): Promise<ClientAnswer> {
  // The head first, whatever order the object was built in (a spread, a file): the registry reads it first.
  const { device_id, nonce, sent_at, digest, signature, ...rest } = signed;
  const body = { device_id, nonce, sent_at, digest, signature, ...rest };
  return postJson<never>(url, `/v1/${signed.kind}`, body, timeoutMs);
}

/**
 * Enrols a device's own key on a development registry (`POST /v1/enrol`, signed by that key): a
 * simulator run's key, so that two simulators are two devices with their own keys.
 */
export async function enrolDevelopmentKey(
  url: string,
  deviceId: string,
  key: DeviceKey,
  timeoutMs = 3000,
): Promise<{
  ok: boolean;
  status: number;
  body: { enrolled?: boolean; replaced?: boolean; error?: string; detail?: string };
}> {
  const publicKey = toHex(key.publicKey);
  const sentAt = Date.now();
  const signature = toHex(key.sign(utf8Encode(devEnrolText(deviceId, publicKey, sentAt))));
  return postJson(
    url,
    '/v1/enrol',
    { device_id: deviceId, public_key: publicKey, sent_at: sentAt, signature },
    timeoutMs,
  );
}
