// node-hid host adapter: opens a scanner by VID:PID or path, in keyboard-wedge or HID POS mode, and feeds
// its reports to the portable decoder. node-hid is loaded lazily (a PC without a HID scanner never needs
// it) and its failures become messages a technician can act on.
import { KeyboardWedgeDecoder, type KeyboardLayout } from '../src/input/keyboard.ts';
import { HidPosDecoder } from '../src/input/hid-pos.ts';
import type { InputEvent } from '../src/input/event.ts';
import { messages } from '../src/messages/index.ts';
import type { Lang } from '../src/i18n.ts';

/** What we use of node-hid, so tests can inject a fake. */
export interface HidDeviceInfo {
  vendorId: number;
  productId: number;
  path?: string;
  product?: string;
  manufacturer?: string;
  usagePage?: number;
  usage?: number;
  interface?: number;
}
export interface HidDevice {
  on(event: 'data', listener: (data: Buffer) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  close(): void;
}
export interface HidModule {
  devices(): HidDeviceInfo[];
  HID: new (path: string) => HidDevice;
}
export type HidLoader = () => Promise<HidModule>;

export type HidErrorKind = 'libusb' | 'libudev' | 'load' | 'not-found' | 'permission' | 'keyboard-owned' | 'open';

/** A failure with what to do about it, in French or English (`text(lang)`); `message` is English. */
export class HidError extends Error {
  constructor(
    readonly kind: HidErrorKind,
    readonly detail: string,
    readonly device = '',
    readonly rule = '',
  ) {
    super('');
    this.message = this.text('en');
  }
  text(lang: Lang): string {
    const { detail: d, device: id, rule } = this;
    const m = messages(lang).hid;
    switch (this.kind) {
      case 'libusb':
        return m.libusb(d);
      case 'libudev':
        return m.libudev(d);
      case 'load':
        return m.load(d);
      case 'not-found':
        return m.notFound(id, d);
      case 'permission':
        return m.permission(id, d, rule);
      case 'keyboard-owned':
        return m.keyboardOwned(id, d);
      default:
        return m.open(id, d);
    }
  }
}

export const defaultHidLoader: HidLoader = async () => {
  const m = (await import('node-hid')) as unknown as Partial<HidModule> & { default?: HidModule };
  return typeof m.devices === 'function' ? (m as HidModule) : (m.default as HidModule);
};

const hex4 = (n: number) => n.toString(16).padStart(4, '0');
const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0];

/** A node-hid load failure: which library to install. */
export function loadError(e: unknown): HidError {
  const msg = firstLine(e);
  if (/libusb-1\.0\.so/.test(msg)) return new HidError('libusb', msg);
  if (/libudev\.so/.test(msg)) return new HidError('libudev', msg);
  return new HidError('load', msg);
}

/** The udev rule that lets a non-root user open this scanner. */
export function udevRule(vid: number, pid: number): string {
  return `SUBSYSTEM=="hidraw", ATTRS{idVendor}=="${hex4(vid)}", ATTRS{idProduct}=="${hex4(pid)}", MODE="0666"`;
}

function isKeyboard(d: HidDeviceInfo): boolean {
  return d.usagePage === 1 && d.usage === 6;
}

export interface HidSpec {
  vid?: number;
  pid?: number;
  path?: string;
}

/** Whether `s` can name a HID device: `VID:PID` in hex or a path (with a / or \\). */
export function isHidSpec(s: string): boolean {
  return /^(?:0x)?[0-9a-fA-F]{1,4}:(?:0x)?[0-9a-fA-F]{1,4}$/.test(s) || /[/\\]/.test(s);
}

/** `VID:PID` in hex (`0c2e:0b61`) or a device path. */
export function parseHidSpec(s: string): HidSpec {
  const m = /^(?:0x)?([0-9a-fA-F]{1,4}):(?:0x)?([0-9a-fA-F]{1,4})$/.exec(s);
  return m ? { vid: parseInt(m[1], 16), pid: parseInt(m[2], 16) } : { path: s };
}

/** Picks the interface to open: the POS one (usage page 0x8C) or the keyboard one, else the first. */
export function pickDevice(all: HidDeviceInfo[], spec: HidSpec, mode: 'keyboard' | 'pos'): HidDeviceInfo {
  const same = all.filter((d) =>
    spec.path ? d.path === spec.path : d.vendorId === spec.vid && d.productId === spec.pid,
  );
  if (same.length === 0) {
    const seen = all
      .slice(0, 10)
      .map((d) => `${hex4(d.vendorId)}:${hex4(d.productId)} ${d.product ?? ''} (${d.path ?? '?'})`);
    const what = spec.path ?? `${hex4(spec.vid!)}:${hex4(spec.pid!)}`;
    throw new HidError('not-found', seen.length ? seen.join(', ') : '-', what);
  }
  const wanted = same.find((d) => (mode === 'pos' ? d.usagePage === 0x8c : isKeyboard(d)));
  return wanted ?? same[0];
}

/**
 * Why opening failed, and what to do. On Linux hidraw can read any interface, keyboards included, so a
 * refusal there is a permission; elsewhere the OS keeps keyboards to itself.
 */
export function openError(e: unknown, d: HidDeviceInfo, mode: 'keyboard' | 'pos', platform: string): HidError {
  const msg = firstLine(e);
  const id = `${hex4(d.vendorId)}:${hex4(d.productId)}`;
  const keyboard = isKeyboard(d) || (mode === 'keyboard' && d.usagePage === undefined);
  if (/permission|EACCES|EPERM/i.test(msg) || (platform === 'linux' && /cannot open/i.test(msg))) {
    return new HidError('permission', `${d.path ?? ''}: ${msg}`, id, udevRule(d.vendorId, d.productId));
  }
  if (keyboard) return new HidError('keyboard-owned', msg, id);
  return new HidError('open', msg, id);
}

export interface HidScannerOptions {
  /** `VID:PID` or a device path. */
  device: string;
  mode: 'keyboard' | 'pos';
  layout?: KeyboardLayout | 'auto';
  onEvent: (e: InputEvent) => void;
  /** A read error after opening (the scanner was unplugged…): node-hid's message. */
  onError?: (message: string) => void;
  /** 'unplugged' after a read error, 'reopened' when the scanner is back and open again. */
  onStatus?: (status: 'unplugged' | 'reopened', detail: string) => void;
  /** How often to look for an unplugged scanner coming back. Default 500 ms. */
  reopenMs?: number;
  load?: HidLoader;
  now?: () => number;
  platform?: string;
  /** How often a partial code is checked for its timeout. Default 100 ms; 0: never (tests). */
  tickMs?: number;
}

export interface HidScanner {
  info: HidDeviceInfo;
  /** True while the device is open (false between an unplug and its return). */
  readonly isOpen: boolean;
  /** Feeds one report as if the device sent it (what the data listener does). */
  feed(report: Uint8Array): void;
  close(): void;
}

/**
 * Loads node-hid, picks the scanner's interface (`VID:PID` or a path) and opens it: what a decoding
 * scanner and `saphir sim --bridge-hid` (raw reports) both start with. Throws a HidError that says what to do.
 */
export async function openHidDevice(
  device: string,
  mode: 'keyboard' | 'pos',
  load: HidLoader = defaultHidLoader,
  platform: string = process.platform,
): Promise<{ hid: HidModule; spec: HidSpec; info: HidDeviceInfo; dev: HidDevice }> {
  let hid: HidModule;
  try {
    hid = await load();
  } catch (e) {
    throw loadError(e);
  }
  let all: HidDeviceInfo[];
  try {
    all = hid.devices();
  } catch (e) {
    throw loadError(e);
  }
  const spec = parseHidSpec(device);
  const info = pickDevice(all, spec, mode);
  if (!info.path) throw new HidError('open', 'no device path', device);
  try {
    return { hid, spec, info, dev: new hid.HID(info.path) };
  } catch (e) {
    throw openError(e, info, mode, platform);
  }
}

/** Opens the scanner. Throws a HidError that says what to do. */
export async function openHidScanner(o: HidScannerOptions): Promise<HidScanner> {
  const opened = await openHidDevice(o.device, o.mode, o.load, o.platform);
  const { hid, spec, info } = opened;
  let dev: HidDevice | null = opened.dev;
  const now = o.now ?? (() => performance.now());
  const decoder = o.mode === 'pos' ? new HidPosDecoder() : new KeyboardWedgeDecoder({ layout: o.layout ?? 'auto' });
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const drain = () => {
    for (let e = decoder.read(); e; e = decoder.read()) o.onEvent(e);
  };
  const feed = (report: Uint8Array) => {
    decoder.push(report, now());
    drain();
  };
  const attach = (d: HidDevice) => {
    dev = d;
    d.on('data', (b: Buffer) => {
      if (dev === d) feed(new Uint8Array(b.buffer, b.byteOffset, b.length));
    });
    d.on('error', (err: Error) => {
      if (dev !== d || closed) return;
      o.onError?.(err.message);
      o.onStatus?.('unplugged', err.message);
      dev = null;
      try {
        d.close();
      } catch {
        // already gone
      }
      lookAgain();
    });
  };
  // The scanner may come back on another path (hidraw numbers change): look it up again each time.
  const lookAgain = () => {
    retry = setTimeout(() => {
      if (closed) return;
      try {
        const again = pickDevice(hid.devices(), spec, o.mode);
        attach(new hid.HID(again.path!));
        o.onStatus?.('reopened', again.path!);
      } catch {
        lookAgain();
      }
    }, o.reopenMs ?? 500);
  };
  attach(opened.dev);
  const tickMs = o.tickMs ?? 100;
  const timer = tickMs > 0 ? setInterval(() => (decoder.tick(now()), drain()), tickMs) : undefined;
  timer?.unref();
  return {
    info,
    get isOpen() {
      return dev !== null;
    },
    feed,
    close() {
      closed = true;
      if (timer) clearInterval(timer);
      if (retry) clearTimeout(retry);
      try {
        dev?.close();
      } catch {
        // already closed by an unplug
      }
      dev = null;
    },
  };
}
