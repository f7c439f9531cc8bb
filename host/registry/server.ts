// The registry's HTTP JSON service (node:http). Routes:
//   POST /v1/claim   a device asks before paying a win (one payment)
//   POST /v1/sync    a device reports payments made offline (a batch, maybe empty); the answer carries
//                    the latest operator notice when the device holds an older one
//   POST /v1/confirm a device says it paid claims it was granted (a batch; two-phase claims)
//   GET  /health     liveness, database kind, fleet mode
//   POST /v1/chunk   4 KiB of an update campaign's image (hex), for a device downloading it
//   POST /v1/enrol   a development fleet only: a device (a simulator run) enrols its own key
//   GET  /metrics    counters and fleet gauges (Prometheus text format)
// Logs are JSON lines. A bad request gets a clear error and changes nothing. See docs/registry.md.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEV_REGISTRY_SEED_HEX, IMAGE_CHUNK, MAX_BODY_BYTES, answerText } from '../../src/registry/protocol.ts';
import { imageChunk } from './campaigns.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { HOST_CRYPTO, nodeSign, signerOf } from '../../tools/node-crypto.ts';
import { HEAD_BYTES, RegistryStore, RequestError, parseRequest, requestHead, type Verified } from './store.ts';

export interface RegistryServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

export interface ServeOptions {
  port?: number;
  host?: string;
  /** One JSON object a line; default: nowhere. */
  log?: (entry: Record<string, unknown>) => void;
  /** The registry's Ed25519 seed, which signs every answer; default: the published development one. */
  registrySeed?: Uint8Array;
  /** `/metrics`: a device not heard for this many days counts as stale (default 7). */
  staleDays?: number;
  /** The folder of campaign images kept as files (`registry serve --images DIR`; HASH.img). */
  imagesDir?: string;
}

/** A Prometheus label value: backslash, quote and newline escaped. */
const label = (v: string) => v.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : '\\' + c));

/** Refusals logged one by one in a second; beyond, counted (`refusals not logged`). */
export const REFUSALS_LOGGED = 5;

const unread = (status: number, detail: string) =>
  Object.assign(new RequestError(status, { error: 'bad_request', detail }), { unread: true });

const tooLarge = (limit: number) => new RequestError(413, { error: 'bad_request', detail: `body over ${limit} bytes` });

/**
 * The bodies of the routes no signature guards (`/v1/enrol`, `/v1/chunk`: a few hundred bytes): parsed
 * whole, so bounded small, or anyone could make the server parse 1 MiB of JSON a request.
 */
export const SMALL_BODY_BYTES = 4096;

/** A body refused from its head is drained (the connection kept) up to this announced length, else cut. */
export const DRAIN_BYTES = 128 * 1024;

/**
 * A request's body, at most `limit` bytes (`413` before a byte is read when more is announced). With
 * `check`, read only once its head (the first HEAD_BYTES, or the whole body if shorter) has passed it: a
 * request refused there is answered at once, the rest of its body never copied nor parsed (Node discards
 * it; a body over DRAIN_BYTES or of no length: the connection is closed).
 */
function readBody(req: IncomingMessage, limit: number, check?: (head: string) => Promise<void>): Promise<Buffer> {
  const announced = Number(req.headers['content-length']);
  if (announced > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let checked = !check;
    const stop = (e: unknown) => {
      // Resumed with no listener: the rest of the body is discarded, so the connection can serve the next
      // request (left paused, Node never reads it, and the kept-alive socket is reset under the next one).
      req.off('data', data).off('end', end).resume();
      reject(e);
    };
    const data = (c: Buffer) => {
      if (size + c.length > limit) return stop(tooLarge(limit));
      chunks.push(c);
      size += c.length;
      if (!checked && size >= HEAD_BYTES) {
        checked = true;
        req.pause();
        const head = (chunks.length === 1 ? c : Buffer.concat(chunks, size)).toString('latin1', 0, HEAD_BYTES);
        check!(head).then(() => req.resume(), stop);
      }
    };
    const end = () => {
      const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      if (checked) return resolve(raw);
      checked = true;
      check!(raw.toString('latin1')).then(() => resolve(raw), stop);
    };
    req.on('data', data).on('end', end).on('error', stop);
  });
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new RequestError(400, { error: 'bad_request', detail: 'the body is not JSON' });
  }
}

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const text = type === 'application/json' ? JSON.stringify(body) : String(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function serveRegistry(store: RegistryStore, opts: ServeOptions = {}): Promise<RegistryServer> {
  const log = opts.log ?? (() => {});
  const sign = signerOf(nodeSign, opts.registrySeed ?? fromHex(DEV_REGISTRY_SEED_HEX));
  const metrics = {
    requests: 0,
    granted: 0,
    already_paid: 0,
    conflicts: 0,
    invalid: 0,
    refused: 0,
    errors: 0,
  };
  const started = Date.now();
  // Refusals are logged up to REFUSALS_LOGGED a second, the rest counted in one line the next second: a
  // flood of forged requests must not make the server spend its time writing its log (stderr is
  // written synchronously to a pipe; a slow reader stalled every request behind it).
  let refusalSecond = 0;
  let refusalsThisSecond = 0;
  let refusalsUnlogged = 0;
  const logRefusal = (entry: Record<string, unknown>) => {
    const second = Math.floor(Date.now() / 1000);
    if (second !== refusalSecond) {
      if (refusalsUnlogged > 0)
        log({
          msg: 'refusals not logged',
          count: refusalsUnlogged,
          second: new Date(refusalSecond * 1000).toISOString(),
        });
      refusalSecond = second;
      refusalsThisSecond = 0;
      refusalsUnlogged = 0;
    }
    if (++refusalsThisSecond <= REFUSALS_LOGGED) log(entry);
    else refusalsUnlogged++;
  };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/health') {
      const dev = await store.isDevelopmentFleet();
      return send(res, 200, {
        status: 'ok',
        db: store.db.kind,
        fleet: dev ? 'development' : 'production',
        // Which library verifies the devices' signatures and signs the answers (docs/registry.md).
        crypto: HOST_CRYPTO,
        uptime_s: Math.round((Date.now() - started) / 1000),
      });
    }
    if (req.method === 'GET' && path === '/metrics') {
      const c = await store.counts();
      const lines = [
        ...Object.entries(metrics).map(([k, v]) => `saphir_registry_${k}_total ${v}`),
        `saphir_registry_payments ${c.payments}`,
        `saphir_registry_conflicts ${c.conflicts}`,
        `saphir_registry_devices ${c.devices}`,
        ...(await fleetLines(store, opts.staleDays ?? 7)),
        // The process's CPU (user + system): what requests cost the server, whatever their wall time.
        `process_cpu_seconds_total ${(process.cpuUsage().user + process.cpuUsage().system) / 1e6}`,
      ];
      return send(res, 200, lines.join('\n') + '\n', 'text/plain; version=0.0.4');
    }
    if (path === '/v1/chunk') {
      if (req.method !== 'POST') return send(res, 405, { error: 'bad_request', detail: `${path} takes POST` });
      const b = parseJson(await readBody(req, SMALL_BODY_BYTES)) as { hash?: unknown; offset?: unknown } | null;
      const hash = b && typeof b.hash === 'string' && /^[0-9a-f]{64}$/.test(b.hash) ? b.hash : null;
      const offset = b ? Number(b.offset) : NaN;
      if (!hash || !Number.isSafeInteger(offset) || offset < 0 || offset % IMAGE_CHUNK !== 0)
        return send(res, 400, { error: 'bad_request', detail: 'hash: 64 hex digits; offset: a multiple of 4096' });
      const r = await imageChunk(store.db, hash, offset, opts.imagesDir);
      if ('data' in r) return send(res, 200, Buffer.from(r.data).toString('hex'), 'text/plain');
      // paused or unavailable (the image's file is not here): ask again later; gone: the campaign
      // ended (aborted, stopped, done): drop the download.
      const status = r.status === 'paused' ? 409 : r.status === 'gone' ? 410 : r.status === 'unavailable' ? 503 : 404;
      if (r.status === 'unavailable') log({ msg: 'image file unavailable', hash, dir: opts.imagesDir ?? null });
      return send(res, status, { error: 'bad_request', detail: `image ${hash.slice(0, 16)}…: ${r.status}` });
    }
    if (path === '/v1/enrol') {
      if (req.method !== 'POST') return send(res, 405, { error: 'bad_request', detail: `${path} takes POST` });
      const r = await store.enrolDevelopmentKey(parseJson(await readBody(req, SMALL_BODY_BYTES)));
      log({ msg: 'enrol', ...r });
      return send(res, 200, { enrolled: true, ...r });
    }
    const kind =
      path === '/v1/claim' ? 'claim' : path === '/v1/sync' ? 'sync' : path === '/v1/confirm' ? 'confirm' : null;
    if (!kind) return send(res, 404, { error: 'bad_request', detail: `no route ${req.method} ${path}` });
    if (req.method !== 'POST') return send(res, 405, { error: 'bad_request', detail: `${path} takes POST` });
    const t0 = process.hrtime.bigint();
    // Refused from the head alone, before the rest of the body is read (docs/registry.md, "The order").
    let verified: Verified | undefined;
    const raw = await readBody(req, MAX_BODY_BYTES, async (head) => {
      const early = requestHead(head, kind);
      if (!early) throw unread(400, 'the body must begin with its head: device_id, nonce, sent_at, digest, signature');
      try {
        verified = await store.refuseEarly(early);
      } catch (e) {
        if (e instanceof RequestError) e.unread = true;
        throw e;
      }
    });
    const body = parseJson(raw);
    const signed = parseRequest(body, kind);
    const { results, update } = await store.handle(signed, verified);
    // A sync carries the latest notice to a device holding less (`notice_version`, unsigned: a hint).
    let notice: unknown;
    if (kind === 'sync') {
      const have = (body as { notice_version?: unknown }).notice_version;
      const latest = await store.latestNotice();
      if (latest && !(typeof have === 'number' && have >= latest.version)) notice = JSON.parse(latest.text);
    }
    for (const r of results) {
      if (r.result === 'conflict') metrics.conflicts++;
      else metrics[r.result]++;
    }
    log({
      msg: kind,
      device_id: signed.device_id,
      results: results.map((r) => r.result),
      ...(update ? { update: update.campaign } : {}),
      ms: Number(process.hrtime.bigint() - t0) / 1e6,
    });
    // Signed over the device id, the nonce and each result with its ticket (docs/registry.md); encoded
    // by Node, not the portable encoder (milliseconds on a 500-result sync).
    const text = Buffer.from(answerText(signed, results, update), 'utf8');
    send(res, 200, {
      ...(update ? { results, update } : { results }),
      signature: toHex(sign(text)),
      ...(notice ? { notice } : {}),
    });
  }

  const server = createServer((req, res) => {
    metrics.requests++;
    const t0 = process.hrtime.bigint();
    route(req, res).catch((e: unknown) => {
      if (e instanceof RequestError) {
        metrics.refused++;
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        logRefusal({ msg: 'refused', path: req.url, status: e.status, error: e.body.error, detail: e.body.detail, ms });
        // A body refused unread: the rest of one of known length up to DRAIN_BYTES is discarded by Node and
        // the connection kept (a new connection a refusal cost the server ~0.4 ms of CPU, the drain less);
        // a larger one, one of no announced length or a 413 is cut by closing the connection.
        const announced = Number(req.headers['content-length']);
        if (e.status === 413 || (e.unread && !(announced <= DRAIN_BYTES))) res.setHeader('connection', 'close');
        if (e.retryAfterS !== undefined) res.setHeader('retry-after', String(e.retryAfterS));
        if (!res.headersSent) send(res, e.status, e.body);
        return;
      }
      metrics.errors++;
      log({ msg: 'error', path: req.url, detail: e instanceof Error ? e.message : String(e) });
      if (!res.headersSent)
        send(res, 500, { error: 'internal', detail: 'the registry could not answer; nothing was recorded' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: opts.port ?? 0, host: opts.host ?? '127.0.0.1', backlog: 4096 }, () => resolve());
  });
  const a = server.address() as AddressInfo;
  const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return {
    server,
    url: `http://${host}:${a.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The fleet's gauges from the devices' last health (the database's: the same from every server). */
async function fleetLines(store: RegistryStore, staleDays: number): Promise<string[]> {
  const g = await store.fleetGauges(staleDays);
  return [
    `saphir_fleet_devices_reporting ${g.devices}`,
    `saphir_fleet_devices_stale{days="${staleDays}"} ${g.stale}`,
    ...g.versions.map((v) => `saphir_fleet_firmware_devices{version="${label(v.k)}"} ${v.n}`),
    ...g.boots.map((v) => `saphir_fleet_boot_reason_devices{reason="${label(v.k)}"} ${v.n}`),
    `saphir_fleet_outbox_entries ${g.outbox}`,
    `saphir_fleet_outbox_entries_max ${g.outbox_max}`,
    `saphir_fleet_ledger_payments ${g.ledger}`,
    `saphir_fleet_device_errors ${g.errors}`,
    ...g.campaigns.map((c) => {
      const [name, state] = [c.k.slice(0, c.k.lastIndexOf('/')), c.k.slice(c.k.lastIndexOf('/') + 1)];
      return `saphir_campaign_devices{campaign="${label(name)}",state="${state}"} ${c.n}`;
    }),
  ];
}
