// One client process of the registry bench (bench/registry.bench.ts): its devices, each with its own
// key, send their claims one after the other, all devices at once; or flooders send unsigned 500-code
// syncs as fast as they can. The job is JSON in argv[2]; the answer, JSON on stdout.
import { newNonce, postRegistry, postSigned } from '../host/registry/client.ts';
import type { SignedRequest } from '../src/registry/protocol.ts';
import { ticketCode } from '../hw-sim/tickets.ts';

export interface ClientJob {
  url: string;
  /** Claims: each device's ticket numbers, claimed in order. */
  devices?: { deviceId: string; seedHex: string; tickets: number[] }[];
  /** Flood: this many loops sending bad syncs under `floodAs` until `untilMs` (Date.now()). */
  flood?: { loops: number; floodAs: string; untilMs: number };
  /** Wait for this Date.now() before the first request (all processes start together). */
  startAtMs: number;
}

export interface ClientResult {
  /** ms a claim, by result (`granted`, `already_paid`, or the refusal's error). */
  latencies: Record<string, number[]>;
  flooded: number;
  /** Date.now() at the first request and after the last answer. */
  startedAt: number;
  endedAt: number;
}

const job = JSON.parse(process.argv[2]) as ClientJob;
const code = (n: number) => ticketCode({ emission: 9, block: 1, number: n, prize: 30 });
const out: ClientResult = { latencies: {}, flooded: 0, startedAt: 0, endedAt: 0 };
await new Promise((r) => setTimeout(r, Math.max(0, job.startAtMs - Date.now())));
out.startedAt = Date.now();
const work: Promise<void>[] = [];
for (const d of job.devices ?? [])
  work.push(
    (async () => {
      for (const n of d.tickets) {
        const t0 = performance.now();
        const r = await postRegistry(job.url, 'claim', d, [{ code: code(n), paid_at: Date.now() }], {
          timeoutMs: 120_000,
        });
        const kind = r.ok ? r.body.results[0].result : r.body.error;
        (out.latencies[kind] ??= []).push(performance.now() - t0);
      }
    })(),
  );
if (job.flood) {
  const f = job.flood;
  // A well-formed sync of 500 genuine codes whose signature is not the device's: refused 401.
  const bad: SignedRequest = {
    kind: 'sync',
    device_id: f.floodAs,
    nonce: newNonce(),
    sent_at: Date.now(),
    payments: Array.from({ length: 500 }, (_, i) => ({ code: code(900_000 + i), paid_at: Date.now() })),
    digest: 'cd'.repeat(64),
    signature: 'ab'.repeat(64),
  };
  for (let l = 0; l < f.loops; l++)
    work.push(
      (async () => {
        while (Date.now() < f.untilMs) {
          await postSigned(job.url, { ...bad, nonce: newNonce() }, 120_000).catch(() => {});
          out.flooded++;
        }
      })(),
    );
}
await Promise.all(work);
out.endedAt = Date.now();
process.stdout.write(JSON.stringify(out));
