// The ticket printer's side: body + signature → SPH1 text.
import type { Zones } from '../game/rules.ts';
import type { Signer } from '../crypto/ed25519.ts';
import { base45Encode } from './base45.ts';
import { CODE_BYTES, BODY_LENGTH, PREFIX, packBody, signedMessage, type TicketId } from './body.ts';

export type TicketFields = Omit<TicketId, 'game'> & { game?: number };

/** Joins a body and its signature into the code text. */
export function codeText(body: Uint8Array, signature: Uint8Array): string {
  const bytes = new Uint8Array(CODE_BYTES);
  bytes.set(body.subarray(0, BODY_LENGTH), 0);
  bytes.set(signature, BODY_LENGTH);
  return PREFIX + base45Encode(bytes);
}

/** Packs, signs with the private seed, and encodes one ticket. */
export function encodeTicket(id: TicketFields, zones: Zones, seed: Uint8Array, sign: Signer): string {
  const body = packBody(id, zones);
  return codeText(body, sign(signedMessage(body), seed));
}
