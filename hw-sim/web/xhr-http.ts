// The page's blocking HTTP (hw-sim/host.ts) for the simulated device's network: a synchronous
// XMLHttpRequest, which a Web Worker may make (a page's main thread may not). The registry is reached
// through the page's own server (`saphir sim --web --registry`), so the request stays same-origin.
import type { BlockingHttp, SyncAnswer } from '../host.ts';

export class XhrHttp implements BlockingHttp {
  post(url: string, body: string, timeoutMs: number): SyncAnswer {
    try {
      const x = new XMLHttpRequest();
      x.open('POST', url, false);
      x.timeout = timeoutMs;
      x.setRequestHeader('content-type', 'application/json');
      x.send(body);
      return { status: x.status, body: x.responseText };
    } catch {
      return { status: 0, body: '' };
    }
  }

  close(): void {}
}
