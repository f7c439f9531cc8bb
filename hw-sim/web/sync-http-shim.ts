// hw-sim/sync-http.ts in the browser: blocking HTTP needs a worker and Atomics.wait, and the page has
// no registry to reach, so a request always goes unanswered (status 0), as with the network down.
import type { SyncAnswer } from '../sync-http.ts';

export class SyncHttp {
  post(): SyncAnswer {
    return { status: 0, body: '' };
  }
  close(): void {}
}
