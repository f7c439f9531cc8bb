// The web simulator's local HTTP server (`saphir sim --web`): serves hw-sim/web/dist/ (built when
// stale), nothing else; it fetches nothing from the internet. Port 0 picks a free port.
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import { ensureWebBuilt } from './build.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
};

export interface WebServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startWebServer(o: { port?: number; host?: string; dir?: string } = {}): Promise<WebServer> {
  const dir = o.dir ?? (await ensureWebBuilt());
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(dir, path === '/' ? 'index.html' : path));
    if (!file.startsWith(dir + sep) || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) => {
        const ext = file.slice(file.lastIndexOf('.'));
        res.writeHead(200, {
          'content-type': TYPES[ext] ?? 'application/octet-stream',
          'content-length': body.length,
          'cache-control': 'no-cache',
        });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n'),
    );
  });
  const host = o.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${shown}:${port}/`,
    server,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
