// Service-port authentication (docs/service-protocol.md, "Authentication"): the device sends a fresh
// nonce, the host signs AUTH_CONTEXT · board id · device id · nonce with a technician key the device was
// provisioned with. Portable: the message is built here, the device and the host sign/verify it.
import { utf8Encode } from '../utf8.ts';

/** The published development technician key: anyone can use it, only development devices trust it. */
export const DEV_TECH_SEED_HEX = '380fee95e22837a9d4f25945141996e68e386a531d274a52e1313956a0056c71';
export const DEV_TECH_PUBLIC_KEY_HEX = 'fddce257c50f7e766be5e9070ecc9f4f21d8e9a1610343df0d82c95fb88484ed';

export const NONCE_SIZE = 32;
const AUTH_CONTEXT = 'SAPHIR service auth v1';

/** What the technician key signs to answer `nonce`. */
export function authMessage(boardId: number, deviceId: string, nonce: Uint8Array): Uint8Array {
  const ctx = utf8Encode(AUTH_CONTEXT);
  const id = utf8Encode(deviceId);
  const out = new Uint8Array(ctx.length + 1 + 4 + 1 + id.length + nonce.length);
  let at = 0;
  out.set(ctx, at);
  at += ctx.length + 1; // 0 separator
  out[at++] = boardId & 0xff;
  out[at++] = (boardId >>> 8) & 0xff;
  out[at++] = (boardId >>> 16) & 0xff;
  out[at++] = (boardId >>> 24) & 0xff;
  out[at++] = id.length;
  out.set(id, at);
  out.set(nonce, at + id.length);
  return out;
}
