// `saphir sim --pty`: the simulated device's service port as a pseudo-terminal, through socat:
//   socat -d -d pty,raw,echo=0,link=DEVICE pty,raw,echo=0,link=PATH
// The device end is opened here (serialport) and fed to a ServicePort (hw-sim/service.ts); PATH is what
// `saphir flash --port PATH` opens.
//
//   const pty = await exposeServicePort(host, { baud: 115200, link: '/tmp/saphir-tty' });
//   console.log(pty.path); … await pty.close();
//
// `cut()` kills socat (both ends see the line drop; the device keeps its update session) and
// `reconnect()` brings a new socat up on the same paths: the link-cut tests use them.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SerialPortStream } from '@serialport/stream';
import { autoDetect } from '@serialport/bindings-cpp';
import { ServicePort, type ServiceHost } from './service.ts';

export interface PtyOptions {
  /** Simulated UART rate of the device (default 115200). */
  baud?: number;
  /** Path of the symlink to the host end (default: in a fresh temporary directory). */
  link?: string;
}

export interface ServicePty {
  /** The host end: give it to `saphir flash --port`. */
  path: string;
  /** The real /dev/pts/N behind `path`. */
  device: string;
  port: ServicePort;
  cut(): Promise<void>;
  reconnect(): Promise<void>;
  close(): Promise<void>;
}

async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function exposeServicePort(host: ServiceHost, opts: PtyOptions = {}): Promise<ServicePty> {
  const baud = opts.baud ?? 115200;
  const dir = mkdtempSync(join(tmpdir(), 'saphir-pty-'));
  const devLink = join(dir, 'device');
  const path = opts.link ?? join(dir, 'tty');
  let socat: ChildProcess | null = null;
  let serial: SerialPortStream | null = null;
  let socatLog = '';

  const port = new ServicePort(host, {
    baud,
    send: (b) => {
      if (serial?.isOpen) serial.write(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
    },
  });

  const up = async () => {
    if (existsSync(path)) rmSync(path, { force: true });
    if (existsSync(devLink)) rmSync(devLink, { force: true });
    const p = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${devLink}`, `pty,raw,echo=0,link=${path}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    socat = p;
    socatLog = '';
    let started = false;
    let failed: Error | null = null;
    p.on('error', (e: NodeJS.ErrnoException) => {
      // code SOCAT_MISSING lets the CLI say what to install.
      failed = Object.assign(new Error(`cannot start socat: ${e.message}`), { code: e.code === 'ENOENT' ? 'SOCAT_MISSING' : 'SOCAT_FAILED' });
    });
    p.stderr!.on('data', (d: Buffer) => {
      socatLog += d.toString();
      if (socatLog.includes('starting data transfer loop')) started = true;
    });
    await waitFor(() => started || failed !== null || p.exitCode !== null, 5000, 'socat');
    if (failed) throw failed;
    if (!started) throw new Error(`socat exited: ${socatLog.trim()}`);
    const s = await new Promise<SerialPortStream>((resolve, reject) => {
      const sp = new SerialPortStream({ binding: autoDetect(), path: devLink, baudRate: baud, autoOpen: false, lock: false });
      sp.open((err) => (err ? reject(err) : resolve(sp)));
    });
    s.on('data', (d: Buffer) => port.receive(new Uint8Array(d.buffer, d.byteOffset, d.byteLength)));
    s.on('error', () => {});
    serial = s;
  };

  const down = async () => {
    const s = serial;
    serial = null;
    const p = socat;
    socat = null;
    if (p && p.exitCode === null) {
      const gone = new Promise((r) => p.once('exit', r));
      p.kill('SIGTERM');
      await gone;
    }
    if (s?.isOpen) await new Promise<void>((r) => s.close(() => r()));
    port.linkReset();
  };

  await up();
  return {
    path,
    device: realpathSync(path),
    port,
    cut: down,
    reconnect: up,
    close: async () => {
      await down();
      port.close();
      rmSync(dir, { recursive: true, force: true });
      if (opts.link) rmSync(opts.link, { force: true });
    },
  };
}
