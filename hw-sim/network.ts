// The simulated device's network: up or down, latency and loss, on virtual time. Requests reach a real
// HTTP server (the fleet registry) through the host's blocking HTTP (hw-sim/host.ts), so the answer is
// known when the scheduler reaches it. Each request gets exactly one answer: the server's, or status 0
// after the timeout (down, lost on the way out or on the way back, or too slow).
import type { Rng } from './rng.ts';
import { simHost } from './host.ts';

export interface NetworkState {
  up: boolean;
  /** One way, virtual ms. */
  latencyMs: number;
  /** Probability that a message (request or answer) is lost, 0…1. */
  loss: number;
}

export interface SentRecord {
  t: number;
  path: string;
  status: number;
}

/** `answer(afterMs, status, body)` schedules the answer the firmware will read. */
export type Answer = (afterMs: number, status: number, body: string) => void;

/** An HTTP status and body. */
export interface HttpAnswer {
  status: number;
  body: string;
}

/**
 * A man in the middle (a proxy, or a fake registry on the shop's network): sees each request and the
 * registry's answer, and gives the answer the device reads. `forward: false`: the request never reaches
 * the registry (`answer` is then status 0). See hw-sim/attacker.ts.
 */
export interface Mitm {
  forward?: boolean;
  rewrite(path: string, request: string, answer: HttpAnswer): HttpAnswer;
}

export class SimNetwork {
  state: NetworkState = { up: true, latencyMs: 20, loss: 0 };
  mitm: Mitm | null = null;
  readonly sent: SentRecord[] = [];
  private readonly http = simHost().http();

  constructor(
    private readonly rng: Rng,
    private readonly now: () => number,
  ) {}

  send(url: string, body: string, timeoutMs: number, answer: Answer): void {
    const s = this.state;
    const lost = () => s.loss > 0 && this.rng.next() < s.loss;
    if (!s.up || lost()) {
      this.record(url, 0);
      return answer(timeoutMs, 0, '');
    }
    const m = this.mitm;
    let r = m && m.forward === false ? { status: 0, body: '' } : this.http.post(url, body, timeoutMs);
    if (m) r = m.rewrite(url.replace(/^https?:\/\/[^/]+/, ''), body, r);
    const roundTrip = 2 * s.latencyMs;
    // Lost on the way back: the server acted, the device never knows.
    if (r.status === 0 || roundTrip >= timeoutMs || lost()) {
      this.record(url, 0);
      return answer(timeoutMs, 0, '');
    }
    this.record(url, r.status);
    answer(roundTrip, r.status, r.body);
  }

  private record(url: string, status: number): void {
    this.sent.push({ t: this.now(), path: url.replace(/^https?:\/\/[^/]+/, ''), status });
    if (this.sent.length > 1000) this.sent.splice(0, this.sent.length - 1000);
  }

  close(): void {
    this.http.close();
  }
}
