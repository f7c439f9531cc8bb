// `saphir sim --pty`: the simulated device's service port as a pseudo-terminal, through socat:
//   socat -d -d pty,raw,echo=0,link=DEVICE pty,raw,echo=0,link=PATH
// The device end is opened here (serialport) and fed to a ServicePort (rom/service.ts); PATH is what
// `saphir flash --port PATH` opens.
//
//   const pty = await exposeServicePort(host, { baud: 115200, link: '/tmp/saphir-tty' });
//   console.log(pty.path); … await pty.close();
//
// `cut()` kills socat (both ends see the line drop; the device keeps its update session) and
// `reconnect()` brings a new socat up on the same paths: the link-cut tests use them.
//
// socat never outlives this process: it runs under a small /bin/sh guard (GUARD) in its own process
// group (a Ctrl-C at the terminal reaches this process, which closes the port, not socat), and the
// guard reads its stdin, a pipe from here: a line ends socat (cut, close), the end of the pipe (this
// process died, even by SIGKILL) ends socat and removes the temporary folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readlinkSync, rmSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SerialPortStream } from '@serialport/stream';
import { autoDetect } from '@serialport/bindings-cpp';
import { ServicePort, type ServiceHost } from '../rom/service.ts';

export interface PtyOptions {
  /** Simulated UART rate of the device (default 115200). */
  baud?: number;
  /**
   * Path of the symlink to the host end (default: in a fresh temporary directory). Refused when
   * something other than a pseudo-terminal link (one a previous run left) is there.
   */
  link?: string;
  /** socat ended on its own (not through cut() or close()): the port is gone. `why`: how, its last words. */
  onDown?: (why: string) => void;
}

/**
 * The port cannot be made: `path-taken` (PATH is not a pseudo-terminal link), `bad-path` (`detail`: the
 * path; a character socat would read as address syntax), `no-socat`, `socat-failed`
 * (`detail`: socat's last words). The message (English) says what to do.
 */
export class PtyError extends Error {
  constructor(
    readonly code: 'path-taken' | 'bad-path' | 'no-socat' | 'socat-failed',
    readonly detail: string,
    message: string,
  ) {
    super(message);
    this.name = 'PtyError';
  }
}

export const pathTaken = (p: string) =>
  new PtyError(
    'path-taken',
    p,
    `${p} exists and is not a pseudo-terminal link: choose another path (it is left as it is)`,
  );

/**
 * $1 $2: socat's two addresses, $3: the folder to remove when this process dies. Exit 127: no socat;
 * socat ended by a signal: the guard ends by the same.
 */
const GUARD = `command -v socat >/dev/null 2>&1 || exit 127
exec 3<&0
socat -d -d "$1" "$2" </dev/null &
s=$!
( if read -r _ <&3; then kill $s; else kill $s; rm -rf "$3"; fi ) 2>/dev/null &
wait $s
c=$?
[ $c -gt 128 ] && kill -$((c - 128)) $$
exit $c`;

export const SOCAT_HINT = 'install socat (Debian/Ubuntu: sudo apt-get install socat; macOS: brew install socat)';

/**
 * The characters a path may have to go into socat's address (`pty,raw,echo=0,link=PATH`): anything else
 * (`,` starts an option such as `mode=777`, `:` `!` `{` `\\` quotes, spaces, control characters) could be
 * read as address syntax, so it is refused rather than escaped.
 */
const LINK_PATH = /^[A-Za-z0-9._/+-]+$/;

/** The first character of `path` socat could read as address syntax, or null when it is safe (LINK_PATH). */
export function unsafeLinkChar(path: string): string | null {
  if (LINK_PATH.test(path) && path.length <= 1024) return null;
  if (path === '') return '';
  for (const c of path) if (!LINK_PATH.test(c)) return c;
  return path.slice(1024, 1025);
}

export const badPath = (p: string) =>
  new PtyError(
    'bad-path',
    p,
    `${JSON.stringify(p)} cannot be a pseudo-terminal path: socat would read ${JSON.stringify(unsafeLinkChar(p))} as part of its address (use letters, digits, . _ - + /)`,
  );

/** Whether `path` is a symlink to a pseudo-terminal (what socat's link= makes), or absent. */
export function freeForLink(path: string): boolean {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return true;
  }
  if (!st.isSymbolicLink()) return false;
  return /^\/dev\/(pts\/\d+|ptmx|tty\w*)$/.test(readlinkSync(path));
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
  if (opts.link !== undefined && unsafeLinkChar(opts.link) !== null) throw badPath(opts.link);
  if (opts.link !== undefined && !freeForLink(opts.link)) {
    throw pathTaken(opts.link);
  }
  // The device end's path goes into socat's address too: a TMPDIR with a comma must not make it an option.
  const tmp = tmpdir();
  if (unsafeLinkChar(join(tmp, 'saphir-pty-XXXXXX', 'device')) !== null) throw badPath(tmp);
  const dir = mkdtempSync(join(tmp, 'saphir-pty-'));
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

  let stopping = false;
  const up = async () => {
    if (!freeForLink(path)) throw pathTaken(path);
    rmSync(path, { force: true });
    if (existsSync(devLink)) rmSync(devLink, { force: true });
    const addresses = [`pty,raw,echo=0,link=${devLink}`, `pty,raw,echo=0,link=${path}`];
    const p = spawn('/bin/sh', ['-c', GUARD, 'saphir-pty', ...addresses, dir], {
      stdio: ['pipe', 'ignore', 'pipe'],
      detached: true,
    });
    p.stdin!.on('error', () => {});
    socat = p;
    socatLog = '';
    let started = false;
    let failed: Error | null = null;
    p.on('error', (e: NodeJS.ErrnoException) => {
      failed =
        e.code === 'ENOENT'
          ? new PtyError('no-socat', '', `socat not found: ${SOCAT_HINT}`)
          : new PtyError('socat-failed', e.message, `cannot start socat: ${e.message}`);
    });
    p.on('exit', (code, signal) => {
      if (code === 127 && !started) failed = new PtyError('no-socat', '', `socat not found: ${SOCAT_HINT}`);
      if (!started || stopping || socat !== p) return;
      opts.onDown?.(`${signal ?? `exit ${code}`}: ${socatLog.trim().split('\n').pop() ?? ''}`);
    });
    p.stderr!.on('data', (d: Buffer) => {
      socatLog += d.toString();
      if (socatLog.includes('starting data transfer loop')) started = true;
    });
    try {
      await waitFor(() => started || failed !== null || p.exitCode !== null || p.signalCode !== null, 5000, 'socat');
    } catch {
      p.stdin!.end('stop\n');
      throw new PtyError('socat-failed', socatLog.trim(), `socat did not start within 5 s: ${socatLog.trim()}`);
    }
    if (failed) throw failed;
    if (!started) {
      const last = socatLog.trim().split('\n').pop() || `exit ${p.exitCode ?? p.signalCode}`;
      throw new PtyError('socat-failed', last, `socat could not make the port: ${last}`);
    }
    const s = await new Promise<SerialPortStream>((resolve, reject) => {
      const sp = new SerialPortStream({
        binding: autoDetect(),
        path: devLink,
        baudRate: baud,
        autoOpen: false,
        lock: false,
      });
      sp.open((err) => (err ? reject(err) : resolve(sp)));
    });
    s.on('data', (d: Buffer) => port.receive(new Uint8Array(d.buffer, d.byteOffset, d.byteLength)));
    s.on('error', () => {});
    serial = s;
  };

  const down = async () => {
    stopping = true;
    const s = serial;
    serial = null;
    const p = socat;
    socat = null;
    // A signal leaves exitCode null: both say whether it already ended.
    if (p && p.exitCode === null && p.signalCode === null) {
      const gone = new Promise((r) => p.once('exit', r));
      p.stdin!.end('stop\n');
      await gone;
    } else p?.stdin!.end('stop\n'); // the guard's reader, still waiting, ends without removing the folder
    if (s?.isOpen) await new Promise<void>((r) => s.close(() => r()));
    port.linkReset();
    stopping = false;
  };

  try {
    await up();
  } catch (e) {
    port.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
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
      // Only our own link: never a file someone put there since.
      if (opts.link && freeForLink(opts.link)) rmSync(opts.link, { force: true });
    },
  };
}
