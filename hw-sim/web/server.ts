// The web simulator's local HTTP server (`saphir sim --web`): serves hw-sim/web/dist/ (built when
// stale), nothing else; it fetches nothing from the internet. Port 0 picks a free port. With `registry`,
// it also passes the page's device's requests on /registry/… to that fleet registry (same origin for
// the page, so the registry needs no CORS), and config.json tells the page so.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import { ensureWebBuilt } from './build.ts';
import { MAX_BODY_BYTES } from '../../src/registry/protocol.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** A device request passed on to the registry (its answer, or 502). */
function toRegistry(registry: string, path: string, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (c: Buffer) => {
    // The registry refuses more anyway: do not hold an endless body in this process first.
    if ((size += c.length) > MAX_BODY_BYTES) {
      res.writeHead(413, { connection: 'close' }).end();
      req.destroy();
    } else chunks.push(c);
  });
  req.on('end', () => {
    fetch(registry.replace(/\/$/, '') + path.slice('/registry'.length), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.concat(chunks),
    })
      .then(async (r) => {
        const body = Buffer.from(await r.arrayBuffer());
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
        res.end(body);
      })
      .catch(() => res.writeHead(502).end());
  });
}

export interface WebServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startWebServer(
  o: { port?: number; host?: string; dir?: string; registry?: string; deviceId?: string; department?: string } = {},
): Promise<WebServer> {
  const dir = o.dir ?? (await ensureWebBuilt());
  const server = createServer((req, res) => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      // A malformed escape (`/%`, `/%E0%A4%A`) names no file: it must not stop the server.
      res.writeHead(400, { 'content-type': 'text/plain' }).end('bad request\n');
      return;
    }
    if ((o.registry || o.deviceId || o.department) && path === '/config.json') {
      res.writeHead(200, { 'content-type': TYPES['.json'], 'cache-control': 'no-cache' });
      res.end(
        JSON.stringify({
          registry: o.registry ? '/registry' : null,
          device_id: o.deviceId ?? null,
          department: o.department ?? null,
        }),
      );
      return;
    }
    if (o.registry && path.startsWith('/registry/')) return toRegistry(o.registry, path, req, res);
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
