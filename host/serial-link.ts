// The host's serial link: opening and closing a port (@serialport/stream over @serialport/bindings-cpp,
// or an injected binding; a pty from `saphir sim --pty` or socat is opened the same way), and the service
// protocol's framing on that byte stream (src/service/packet.ts). No protocol, no wording.
import { statSync } from 'node:fs';
import { SerialPortStream, type OpenOptions } from '@serialport/stream';
import { PacketReader, encodePacket, type Packet } from '../src/service/packet.ts';

/** A serialport binding: the native one, or @serialport/binding-mock in tests. */
export type BindingInterface = OpenOptions['binding'];

/** The native binding of this OS, loaded on first use (a host without serial ports never needs it). */
export async function nativeBinding(): Promise<BindingInterface> {
  const m = await import('@serialport/bindings-cpp');
  return m.autoDetect() as unknown as BindingInterface;
}

/** Opens `path` at `baud`; rejects with the binding's error. */
export async function openPort(path: string, baud: number, binding?: BindingInterface): Promise<SerialPortStream> {
  const b = binding ?? (await nativeBinding());
  return new Promise((resolve, reject) => {
    const port = new SerialPortStream({ binding: b, path, baudRate: baud, autoOpen: false });
    port.open((err) => (err ? reject(err) : resolve(port)));
  });
}

/** Closes `port` if it is open; resolves once it is closed. */
export function closePort(port: SerialPortStream): Promise<void> {
  return new Promise((resolve) => (port.isOpen ? port.close(() => resolve()) : resolve()));
}

/** A byte link: a serial port, or anything else in tests. */
export interface Link {
  write(bytes: Uint8Array): void;
  onData(cb: (bytes: Uint8Array) => void): void;
  onClose(cb: (err?: Error) => void): void;
  close(): Promise<void>;
}

/** Why a port did not open: absent, held by another program, or another failure. */
export class LinkOpenError extends Error {
  constructor(
    readonly code: 'no-port' | 'busy' | 'open-failed',
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

/** The serial port at `path` as a Link. Throws LinkOpenError. */
export async function openSerial(path: string, baud: number): Promise<Link> {
  // A file or a folder is no serial port (the binding would say "Inappropriate ioctl for device").
  const st = statSync(path, { throwIfNoEntry: false });
  if (st && !st.isCharacterDevice()) throw new LinkOpenError('no-port', 'not a character device', path);
  const port = await openPort(path, baud).catch((e: Error) => {
    const m = e.message.replace(/^Error: /, '');
    if (/ENOENT|No such file/i.test(m)) throw new LinkOpenError('no-port', m, path);
    if (/lock|EBUSY|busy|EAGAIN|temporarily unavailable/i.test(m)) throw new LinkOpenError('busy', m, path);
    throw new LinkOpenError('open-failed', m, path);
  });
  let closed = false;
  return {
    write: (bytes) => {
      if (!closed) port.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    },
    onData: (cb) => port.on('data', (d: Buffer) => cb(new Uint8Array(d.buffer, d.byteOffset, d.byteLength))),
    onClose: (cb) => {
      port.on('close', (err?: Error) => {
        closed = true;
        cb(err ?? undefined);
      });
      port.on('error', (err: Error) => cb(err));
    },
    close: () => {
      if (closed) return Promise.resolve();
      closed = true;
      return closePort(port);
    },
  };
}

/** Service packets on a byte link: COBS frames out, whole packets in. */
export class PacketLink {
  private readonly reader: PacketReader;
  /** Send a lone delimiter first: it ends whatever partial frame the device holds (line noise). */
  private resyncNext = true;

  constructor(
    private readonly link: Link,
    onPacket: (p: Packet) => void,
  ) {
    this.reader = new PacketReader(onPacket, 1 << 16);
    link.onData((b) => this.reader.push(b));
  }

  /** The next packet starts with a lone delimiter (after a silence: the device may hold a partial frame). */
  resync(): void {
    this.resyncNext = true;
  }

  send(p: Packet): void {
    if (this.resyncNext) {
      this.resyncNext = false;
      this.link.write(new Uint8Array(1));
    }
    this.link.write(encodePacket(p));
  }
}
