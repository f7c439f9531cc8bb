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
