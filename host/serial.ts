// Serial scanner host adapter: @serialport/stream over @serialport/bindings-cpp (or an injected binding),
// feeding the portable SerialDecoder. An unplugged scanner is reported, and the port is reopened when it
// comes back.
import { messages } from '../src/messages/index.ts';
import { reasonOf } from './args.ts';
import type { Lang } from '../src/i18n.ts';
import { existsSync } from 'node:fs';
import type { SerialPortStream } from '@serialport/stream';
import { SerialDecoder, type SerialDecoderOptions } from '../src/input/serial.ts';
import type { InputEvent } from '../src/input/event.ts';
import { closePort, nativeBinding, openPort, type BindingInterface } from './serial-link.ts';

export type { BindingInterface };

export type SerialStatus = 'open' | 'unplugged' | 'reopened' | 'error';

export interface SerialScannerOptions {
  path: string;
  baud?: number;
  framing?: SerialDecoderOptions;
  /** Default: the native binding of this OS (`@serialport/bindings-cpp`, loaded on first use). */
  binding?: BindingInterface;
  onEvent: (e: InputEvent) => void;
  onStatus?: (status: SerialStatus, detail: string) => void;
  /** How often to try reopening an unplugged port. Default 500 ms. */
  reopenMs?: number;
  now?: () => number;
  /** How often a partial code is checked for its timeout. Default 100 ms. */
  tickMs?: number;
}

export interface SerialScanner {
  readonly isOpen: boolean;
  /** The open port (null while unplugged). */
  readonly stream: SerialPortStream | null;
  close(): Promise<void>;
}

export class SerialOpenError extends Error {
  constructor(
    readonly path: string,
    /** What the binding threw: said in the user's language by text(). */
    readonly why: unknown,
  ) {
    super(messages('en').serial.open(path, reasonOf(why, messages('en'))));
  }
  text(lang: Lang): string {
    return messages(lang).serial.open(this.path, reasonOf(this.why, messages(lang)));
  }
}

/** Opens the port (throws SerialOpenError if it cannot) and reads codes until `close()`. */
export async function openSerialScanner(o: SerialScannerOptions): Promise<SerialScanner> {
  const binding = o.binding ?? (await nativeBinding());
  const baud = o.baud ?? 9600;
  const now = o.now ?? (() => performance.now());
  const decoder = new SerialDecoder(o.framing);
  let port: SerialPortStream | null = null;
  let closing = false;
  let reopenTimer: NodeJS.Timeout | undefined;

  const drain = () => {
    for (let e = decoder.read(); e; e = decoder.read()) o.onEvent(e);
    const reply = decoder.reply();
    if (reply && port?.isOpen) port.write(Buffer.from(reply));
  };
  const attach = (p: SerialPortStream) => {
    port = p;
    p.on('data', (b: Buffer) => {
      decoder.push(new Uint8Array(b.buffer, b.byteOffset, b.length), now());
      drain();
    });
    p.on('error', (err: Error) => o.onStatus?.('error', err.message));
    p.on('close', (err: (Error & { disconnected?: boolean }) | null) => {
      port = null;
      if (closing) return;
      o.onStatus?.('unplugged', err?.message ?? 'closed');
      scheduleReopen();
    });
  };
  const scheduleReopen = () => {
    reopenTimer = setTimeout(async () => {
      if (closing) return;
      try {
        const p = await openPort(o.path, baud, binding);
        if (closing) {
          p.close();
          return;
        }
        attach(p);
        o.onStatus?.('reopened', o.path);
      } catch {
        scheduleReopen();
      }
    }, o.reopenMs ?? 500);
  };

  try {
    attach(await openPort(o.path, baud, binding));
  } catch (e) {
    throw new SerialOpenError(o.path, e);
  }
  o.onStatus?.('open', o.path);
  const ticker = setInterval(() => (decoder.tick(now()), drain()), o.tickMs ?? 100);
  ticker.unref();
  // A read that ends at EOF is retried forever by the binding, so an unplug is also noticed by the
  // device node disappearing (USB serial adapters, socat links; not COM ports, which are not files).
  const watch =
    process.platform === 'win32' || !existsSync(o.path)
      ? undefined
      : setInterval(() => {
          const p = port;
          if (p && p.isOpen && !closing && !existsSync(o.path)) p.close();
        }, o.reopenMs ?? 500);
  watch?.unref();

  return {
    get isOpen() {
      return port !== null && port.isOpen;
    },
    get stream() {
      return port;
    },
    async close() {
      closing = true;
      clearInterval(ticker);
      if (watch) clearInterval(watch);
      if (reopenTimer) clearTimeout(reopenTimer);
      const p = port;
      port = null;
      if (p) await closePort(p);
    },
  };
}
