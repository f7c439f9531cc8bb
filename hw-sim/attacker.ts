// Attacks on the fleet link (issue #30), as men in the middle of a simulated device's network
// (SimNetwork.mitm): the tests and the fleet explorer use them. A device must pay nothing on any
// answer they make (docs/registry.md, "Signed answers").
import type { HttpAnswer, Mitm } from './network.ts';
import { answerText, type PaymentResult, type SignedRequest } from '../src/registry/protocol.ts';
import { checkCode } from '../src/sph1/check.ts';
import { testKeyRing } from '../src/sph1/keys.ts';
import { nobleVerify } from '../src/crypto/ed25519.ts';
import { simHost } from './host.ts';
import { utf8Encode } from '../src/utf8.ts';
import { toHex } from '../src/hex.ts';

type Results = { results: PaymentResult[]; signature?: string };

function parse(a: HttpAnswer): Results | null {
  try {
    const j = JSON.parse(a.body) as Results;
    return a.status === 200 && j && Array.isArray(j.results) ? j : null;
  } catch {
    return null;
  }
}

const answer = (j: Results): HttpAnswer => ({ status: 200, body: JSON.stringify(j) });

/** Signs `results` for `request` with `seed` (an attacker's key, or a registry's), as a registry would. */
export function signAnswer(request: string, results: PaymentResult[], seed: Uint8Array): Results {
  const r = JSON.parse(request) as SignedRequest;
  return { results, signature: toHex(simHost().sign(utf8Encode(answerText(r, results)), seed)) };
}

/** Every payment of the request `granted`, with the ticket its code carries (the simulator's test key). */
function allGranted(request: string): PaymentResult[] {
  return (JSON.parse(request) as SignedRequest).payments.map((p) => {
    const c = checkCode(p.code, { keys: testKeyRing(), verify: nobleVerify });
    const t = c.ticket ?? { emission: 0, block: 0, number: 0 };
    return { result: 'granted', ticket: { emission: t.emission, block: t.block, number: t.number }, prize_eur: 0 };
  });
}

export type Attack =
  /** A proxy turning `already_paid` (claim) and `conflict` (sync) into `granted`, the signature kept. */
  | 'rewrite'
  /** The same, the signature dropped. */
  | 'unsigned'
  /** The same, signed again with `seed` (the attacker's key, or the published development registry key). */
  | 'resign'
  /** A fake registry: the request never arrives; every payment `granted`, signed with `seed`. */
  | 'fake'
  /** The last genuine answer seen, given again for the next request (another nonce). */
  | 'replay'
  /** The genuine answer, its first ticket's number changed, signed again with `seed` (the registry's own). */
  | 'other-ticket';

/** A man in the middle making `attack` (`seed`: the key it signs with, where it signs). */
export function attacker(attack: Attack, seed: Uint8Array = new Uint8Array(32).fill(7)): Mitm {
  let last: HttpAnswer | null = null;
  return {
    forward: attack !== 'fake',
    rewrite(_path, request, a) {
      if (attack === 'fake') return answer(signAnswer(request, allGranted(request), seed));
      const j = parse(a);
      if (!j) return a;
      if (attack === 'replay') {
        const old = last;
        last = a;
        return old ?? a;
      }
      const granted = allGranted(request);
      const results = j.results.map((r, i) =>
        attack === 'other-ticket'
          ? i === 0 && 'ticket' in r
            ? { ...r, ticket: { ...r.ticket, number: r.ticket.number + 1 } }
            : r
          : r.result === 'already_paid' || r.result === 'conflict'
            ? granted[i]
            : r,
      );
      if (attack === 'rewrite') return answer({ ...j, results });
      if (attack === 'unsigned') return answer({ results });
      return answer(signAnswer(request, results, seed));
    },
  };
}
