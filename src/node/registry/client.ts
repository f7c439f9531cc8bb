// A host-side registry client: signs with node:crypto and posts over HTTP (Node's fetch). Used by
// `saphir ledger export --to URL`, the simulator's network adapter, tests and the bench.
import { fromHex } from '../../hex.ts';
import { nodeSign } from '../../../tools/node-crypto.ts';
import { signRequest, type PaymentClaim, type RegistryError, type RegistryResponse } from '../../registry/protocol.ts';

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
  kind: 'claim' | 'sync',
  who: DeviceCredentials,
  payments: PaymentClaim[],
  opts: { nonce?: string; sentAt?: number; timeoutMs?: number } = {},
): Promise<ClientAnswer> {
  const signed = signRequest(
    { kind, device_id: who.deviceId, nonce: opts.nonce ?? newNonce(), sent_at: opts.sentAt ?? Date.now(), payments },
    fromHex(who.seedHex),
    nodeSign,
  );
  const res = await fetch(`${url.replace(/\/$/, '')}/v1/${kind}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(signed),
    signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
  });
  const body = (await res.json()) as never;
  return res.ok ? { ok: true, status: res.status, body } : { ok: false, status: res.status, body };
}
