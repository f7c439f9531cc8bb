// `saphir sim --web`: the local server prints its URL, serves the built page (and only it), stops on
// Ctrl-C. No browser needed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { ROOT } from '../helpers.ts';
import { saphir } from '../cli/run-cli.ts';

const web = suite('saphir sim --web');

/** GET or POST with a raw path (fetch would normalise `..` away). */
function get(url: string, path: string, method = 'GET'): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

web('prints a 127.0.0.1 URL, serves the page, wasm and bundle, nothing outside dist/; 400 to bad escapes', async () => {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'saphir.mjs'), 'sim', '--web', '--port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (b) => (err += b));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (b) => {
        out += b;
        const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', () => reject(new Error(`exited: ${out}${err}`)));
      setTimeout(() => reject(new Error(`no URL within 120 s: ${out}${err}`)), 120000).unref(); // not a reason to stay alive
    });
    assert.match(out, /Simulateur web/);
    const page = await get(url, '/');
    assert.is(page.status, 200);
    assert.match(page.type, /text\/html/);
    assert.match(page.body.toString(), /data-test="display"/);
    assert.not.match(page.body.toString(), /(src|href)="https?:/);
    const wasm = await get(url, '/quickjs.wasm');
    assert.is(wasm.type, 'application/wasm');
    assert.equal([...wasm.body.subarray(0, 4)], [0, 0x61, 0x73, 0x6d]);
    const fw = await get(url, '/saphir-fw.js');
    assert.ok(fw.body.equals(readFileSync(join(ROOT, 'firmware', 'dist', 'saphir-fw.js'))));
    assert.is((await get(url, '/../package.json')).status, 404);
    assert.is((await get(url, '/%2e%2e/package.json')).status, 404);
    assert.is((await get(url, '/%2F..%2F..%2F..%2Fpackage.json')).status, 404);
    assert.is((await get(url, '/nothing.js')).status, 404);
    assert.is((await get(url, '/', 'POST')).status, 404);
    // A malformed escape is a bad request, and the server goes on serving.
    assert.is((await get(url, '/%E0%A4%A')).status, 400);
    assert.is((await get(url, '/%')).status, 400);
    assert.is((await get(url, '/')).status, 200);
  } finally {
    child.kill('SIGINT');
  }
  assert.is(await exited, 0);
});

web('the registry pass-through refuses a body over the registry limit, and goes on', async () => {
  const { startWebServer } = await import('../../hw-sim/web/server.ts');
  const { MAX_BODY_BYTES } = await import('../../src/registry/protocol.ts');
  const dir = mkdtempSync(join(tmpdir(), 'saphir-web-proxy-'));
  // Nothing listens on port 9 of 127.0.0.1: a body that is passed on gets 502.
  const srv = await startWebServer({ dir, registry: 'http://127.0.0.1:9', department: '974' });
  try {
    const post = (bytes: number) =>
      new Promise<number>((resolve, reject) => {
        const u = new URL(srv.url);
        const req = request({ host: u.hostname, port: u.port, path: '/registry/claim', method: 'POST' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(Buffer.alloc(bytes, 0x20));
      });
    assert.is(await post(MAX_BODY_BYTES + 65536), 413);
    assert.is(await post(100), 502);
    const config = await get(srv.url, '/config.json');
    assert.is(config.status, 200);
    // saphir sim --web --department: the worker configures the device's chip with it.
    assert.is(JSON.parse(config.body.toString()).department, '974');
  } finally {
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

web('--open hands the URL to the desktop opener (xdg-open)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-open-'));
  const seen = join(dir, 'seen');
  writeFileSync(join(dir, 'xdg-open'), `#!/bin/sh\necho "$1" > ${seen}\n`, { mode: 0o755 });
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'saphir.mjs'), 'sim', '--web', '--open', '--lang', 'en'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${dir}:${process.env.PATH}` },
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let out = '';
  child.stdout.on('data', (b) => (out += b));
  try {
    const deadline = Date.now() + 120000;
    while (!existsSync(seen) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.match(out, /Web simulator: http:\/\/127\.0\.0\.1:\d+\//);
    assert.is(readFileSync(seen, 'utf8').trim(), /(http\S+)/.exec(out)![1]);
  } finally {
    child.kill('SIGINT');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
});

web('a bad --port is a usage error', () => {
  const r = saphir(['sim', '--web', '--port', 'http']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /--port/);
});

web.run();
