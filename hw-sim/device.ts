// The simulated handheld's peripherals: a Node-side implementation of every HAL interface of
// src/hal.ts, on virtual time (hw-sim/scheduler.ts). The VM (hw-sim/qjs-host.ts) gets `device`;
// the simulator drives the inputs and observes the outputs through this object.
import type {
  Camera,
  CameraOptions,
  Device,
  DeviceKey,
  Flash,
  FlashOptions,
  Frame,
  HIDInput,
  HIDInputOptions,
  Identity,
  Key,
  Keypad,
  KeypadOptions,
  LedColor,
  Network,
  NetworkOptions,
  NetworkResponse,
  Serial,
  SerialOptions,
  TextDisplay,
  Tone,
  Updater,
  WatchdogOptions,
} from '../src/hal.ts';
import { LAYOUT, SECTOR_SIZE } from '../rom/layout.ts';
import type { Scheduler } from './scheduler.ts';

import type { NorFlash } from './nor-flash.ts';
import type { SimNetwork } from './network.ts';
import type { SimPrinter } from './printer.ts';
import { expandLog } from '../src/messages/log.ts';

export interface BeepRecord {
  t: number;
  tones: Tone[];
}

export interface DeviceEvents {
  display?: (lines: string[]) => void;
  beep?: (b: BeepRecord) => void;
  led?: (c: LedColor) => void;
  log?: (line: string) => void;
  /** The watchdog was not kicked in time: the device must reset. */
  watchdog?: () => void;
}

export interface PeripheralOptions {
  scheduler: Scheduler;
  chip: NorFlash;
  /** Real-time clock: ms since the epoch when the scheduler's time is 0. */
  rtcBase: () => number;
  identity: {
    deviceId: string;
    boardId: number;
    imageHash: string;
    pendingConfirm: boolean;
    confirm(): void;
    ticketKeys?: string;
    production?: boolean;
    registryKey?: string;
    version?: string;
    slot?: string;
    bootReason?: string;
    operatorKey?: string;
  };
  events?: DeviceEvents;
  rows?: number;
  columns?: number;
  /** The device's network and its Ed25519 key (docs/registry.md); without them the HAL has neither. */
  network?: SimNetwork;
  deviceKey?: DeviceKey;
  /** The receipt printer; without it the HAL has none. */
  printer?: SimPrinter;
  /** The ROM's update writer for update campaigns (rom/update.ts); without it the HAL has none. */
  updater?: Updater;
  /** The ledger partition cut to its first N sectors (tests: opening a ledger reads all of it); default all. */
  ledgerSectors?: number;
  /** false: the chip has no check-journal partition (an older device; the benchmark's baseline). */
  journal?: boolean;
}

/** An output a fault hook can make throw (`Peripherals.failNext`). */
export type FailingOutput = 'display' | 'beeper' | 'led' | 'printer';

type InputKind = 'hid-keyboard' | 'hid-pos' | 'serial' | 'camera' | 'keypad';

class Source<T> {
  queue: T[] = [];
  closed = false;
  constructor(protected readonly onReadableCb: ((n: number) => void) | undefined) {}
  read(): T | undefined {
    return this.queue.shift();
  }
  close(): void {
    this.closed = true;
    this.queue = [];
  }
  push(item: T): void {
    if (this.closed) return;
    this.queue.push(item);
    this.onReadableCb?.(this.queue.length);
  }
}

/** One power-on of the device: the HAL objects the firmware opened, and what it showed. */
export class Peripherals {
  readonly rows: number;
  readonly columns: number;
  screen: string[] = [];
  led: LedColor = 'off';
  readonly beeps: BeepRecord[] = [];
  readonly logs: string[] = [];
  /** Bytes the firmware wrote to the serial scanner (ACK/NAK). */
  readonly serialOut: Uint8Array[] = [];
  watchdogTimeoutMs = 0;
  kicks = 0;
  /** Virtual time of the last watchdog kick. */
  lastKick = 0;
  /** Fault hook: the next call of this output throws (`<output> failure`), to test the app's error handling. */
  failNext: FailingOutput | null = null;
  readonly device: Device;
  private readonly inputs: Record<InputKind, Source<unknown>[]> = {
    'hid-keyboard': [],
    'hid-pos': [],
    serial: [],
    camera: [],
    keypad: [],
  };
  private timers = new Map<number, number>();
  private nextTimer = 1;
  private watchdogEvent = 0;
  private off = false;

  constructor(private readonly o: PeripheralOptions) {
    this.rows = o.rows ?? 4;
    this.columns = o.columns ?? 20;
    this.device = this.build();
  }

  /** Stops every timer and input of this power-on (reset or power cut). */
  shutdown(): void {
    this.off = true;
    for (const id of this.timers.values()) this.o.scheduler.cancel(id);
    this.timers.clear();
    if (this.watchdogEvent) this.o.scheduler.cancel(this.watchdogEvent);
    for (const list of Object.values(this.inputs)) for (const s of list) s.closed = true;
  }

  /** How many live inputs of a kind the firmware opened. */
  opened(kind: InputKind): number {
    return this.inputs[kind].filter((s) => !s.closed).length;
  }

  /** Hands an item to every open input of that kind; false when the firmware opened none. */
  feed(kind: 'hid-keyboard' | 'hid-pos' | 'serial' | 'keypad', item: Uint8Array | Key): boolean {
    const open = this.inputs[kind].filter((s) => !s.closed);
    for (const s of open) s.push(item);
    return open.length > 0;
  }

  feedFrame(frame: Frame): boolean {
    const open = this.inputs.camera.filter((s) => !s.closed) as CameraSource[];
    for (const s of open) s.latest(frame);
    return open.length > 0;
  }

  private fail(what: FailingOutput): void {
    if (this.failNext !== what) return;
    this.failNext = null;
    throw new Error(`${what} failure`);
  }

  private build(): Device {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    const o = this.o;
    const sched = o.scheduler;
    const register = <T extends Source<unknown>>(kind: InputKind, s: T): T => {
      self.inputs[kind].push(s);
      return s;
    };
    const identity: Identity = {
      get deviceId() {
        return o.identity.deviceId;
      },
      get boardId() {
        return o.identity.boardId;
      },
      get imageHash() {
        return o.identity.imageHash;
      },
      get pendingConfirm() {
        return o.identity.pendingConfirm;
      },
      confirm() {
        o.identity.confirm();
      },
      get ticketKeys() {
        return o.identity.ticketKeys;
      },
      get production() {
        return o.identity.production;
      },
      get registryKey() {
        return o.identity.registryKey;
      },
      get version() {
        return o.identity.version;
      },
      get slot() {
        return o.identity.slot;
      },
      get bootReason() {
        return o.identity.bootReason;
      },
      get operatorKey() {
        return o.identity.operatorKey;
      },
    };
    const device: Device = {
      HIDInput: class extends Source<Uint8Array> implements HIDInput {
        constructor(opts: HIDInputOptions) {
          super(opts?.onReadable);
          if (opts?.mode !== 'keyboard' && opts?.mode !== 'pos')
            throw new TypeError("HIDInput mode must be 'keyboard' or 'pos'");
          register(opts.mode === 'keyboard' ? 'hid-keyboard' : 'hid-pos', this);
        }
      },
      Serial: class extends Source<Uint8Array> implements Serial {
        constructor(opts: SerialOptions) {
          super(opts?.onReadable);
          register('serial', this);
        }
        override read(): Uint8Array | undefined {
          if (this.queue.length === 0) return undefined;
          let n = 0;
          for (const q of this.queue) n += q.length;
          const out = new Uint8Array(n);
          let i = 0;
          for (const q of this.queue) {
            out.set(q, i);
            i += q.length;
          }
          this.queue = [];
          return out;
        }
        write(bytes: Uint8Array): void {
          self.serialOut.push(Uint8Array.from(bytes));
        }
      },
      Camera: class extends CameraSource {
        constructor(opts: CameraOptions) {
          super(opts?.onReadable);
          register('camera', this);
        }
      },
      Keypad: class extends Source<Key> implements Keypad {
        constructor(opts: KeypadOptions) {
          super(opts?.onReadable);
          register('keypad', this);
        }
      },
      TextDisplay: class implements TextDisplay {
        get rows() {
          return self.rows;
        }
        get columns() {
          return self.columns;
        }
        show(lines: readonly string[]): void {
          if (self.off) return;
          self.fail('display');
          const ls = Array.isArray(lines) ? lines : [];
          self.screen = ls.slice(0, self.rows).map((l) => String(l).slice(0, self.columns));
          o.events?.display?.(self.screen);
        }
      },
      Beeper: class {
        play(tones: readonly Tone[]): void {
          if (self.off) return;
          self.fail('beeper');
          const b = {
            t: sched.now,
            tones: (Array.isArray(tones) ? tones : []).map((x) => ({ hz: Number(x.hz), ms: Number(x.ms) })),
          };
          self.beeps.push(b);
          if (self.beeps.length > 1000) self.beeps.splice(0, self.beeps.length - 1000);
          o.events?.beep?.(b);
        }
      },
      Led: class {
        set(color: LedColor): void {
          if (self.off) return;
          self.fail('led');
          self.led = color === 'green' || color === 'red' ? color : 'off';
          o.events?.led?.(self.led);
        }
      },
      Flash: class implements Flash {
        readonly blockLength = SECTOR_SIZE;
        readonly size: number;
        private readonly _part: Required<Flash>;
        constructor(opts: FlashOptions) {
          if (opts?.partition === 'journal' && o.journal === false) throw new TypeError('no journal partition');
          this._part = partitionFlash(o.chip, opts?.partition, o.ledgerSectors);
          this.size = this._part.size;
        }
        read(offset: number, byteLength: number): Uint8Array {
          return this._part.read(offset, byteLength);
        }
        erased(offset: number, byteLength: number): boolean {
          return this._part.erased(offset, byteLength);
        }
        write(bytes: Uint8Array, offset: number): void {
          this._part.write(bytes, offset);
        }
        eraseBlock(block: number): void {
          this._part.eraseBlock(block);
        }
      },
      RealTimeClock: class {
        /** Read once per entry into the VM (hw-sim/qjs-host.ts): time does not move while it runs. */
        readonly _steady = ['now'];
        now(): number {
          return o.rtcBase() + sched.now;
        }
      },
      MonotonicClock: class {
        readonly _steady = ['now'];
        now(): number {
          return sched.now;
        }
      },
      Timers: class {
        set(callback: () => void, ms: number, interval?: number): number {
          const id = self.nextTimer++;
          const every = interval === undefined || interval === null ? undefined : Math.max(1, Number(interval) || 0);
          const fire = () => {
            if (every !== undefined) self.timers.set(id, sched.after(every, fire));
            else self.timers.delete(id);
            if (!self.off) callback();
          };
          self.timers.set(id, sched.after(Math.max(0, Number(ms) || 0), fire));
          return id;
        }
        clear(id: number): void {
          const e = self.timers.get(id);
          if (e !== undefined) sched.cancel(e);
          self.timers.delete(id);
        }
      },
      Watchdog: class {
        constructor(opts: WatchdogOptions) {
          self.watchdogTimeoutMs = Math.max(1, Number(opts?.timeoutMs) || 1000);
          this.kick();
        }
        kick(): void {
          self.kicks++;
          self.lastKick = sched.now;
          if (self.watchdogEvent) sched.cancel(self.watchdogEvent);
          self.watchdogEvent = sched.after(self.watchdogTimeoutMs, () => {
            self.watchdogEvent = 0;
            if (!self.off) o.events?.watchdog?.();
          });
        }
      },
      Log: class {
        write(line: string): void {
          // The firmware logs codes (src/messages/log-codes.ts); the log is read in words, as before.
          const l = expandLog(String(line));
          self.logs.push(l);
          if (self.logs.length > 2000) self.logs.splice(0, self.logs.length - 2000);
          o.events?.log?.(l);
        }
      },
      identity,
    };
    const printer = o.printer;
    if (printer)
      device.Printer = class {
        write(bytes: Uint8Array): void {
          if (self.off) return;
          self.fail('printer');
          printer.print(bytes, sched.now);
        }
      };
    const net = o.network;
    const key = o.deviceKey;
    if (net && key) {
      device.Network = class extends Source<NetworkResponse> implements Network {
        private readonly url: string;
        private nextId = 1;
        constructor(opts: NetworkOptions) {
          super(opts?.onReadable);
          this.url = String(opts?.url ?? '');
        }
        request(path: string, body: string, timeoutMs: number): number {
          const id = this.nextId++;
          const timeout = Math.max(1, Number(timeoutMs) || 1);
          const answer = (after: number, status: number, text: string) =>
            sched.after(after, () => {
              if (!self.off) this.push({ id, status, body: text });
            });
          net.send(this.url + String(path), String(body), timeout, answer);
          return id;
        }
      };
      device.DeviceKey = class implements DeviceKey {
        get publicKey(): Uint8Array {
          return key.publicKey.slice();
        }
        sign(message: Uint8Array): Uint8Array {
          return key.sign(message);
        }
      };
    }
    const up = o.updater;
    if (up)
      device.Updater = class implements Updater {
        begin(manifest: Uint8Array, size: number) {
          return up.begin(Uint8Array.from(manifest), Number(size));
        }
        write(offset: number, bytes: Uint8Array) {
          return up.write(Number(offset), Uint8Array.from(bytes));
        }
        finish() {
          return up.finish();
        }
        restart() {
          if (!self.off) up.restart();
        }
      };
    return device;
  }
}

class CameraSource extends Source<Frame> implements Camera {
  /** A camera keeps only the latest frame: a slow reader drops frames. */
  latest(f: Frame): void {
    if (this.closed) return;
    this.queue = [f];
    this.onReadableCb?.(1);
  }
}

/** The HAL Flash of a firmware partition of the chip; `ledgerSectors` cuts the ledger partition to that many sectors. */
export function partitionFlash(
  chip: NorFlash,
  partition: unknown,
  ledgerSectors?: number,
  views = false,
): Required<Flash> {
  const p =
    partition === 'config'
      ? LAYOUT.config
      : partition === 'ledger'
        ? LAYOUT.ledger
        : partition === 'outbox'
          ? LAYOUT.outbox
          : partition === 'journal'
            ? LAYOUT.journal
            : partition === 'notice'
              ? LAYOUT.notice
              : null;
  if (!p) throw new TypeError("Flash partition must be 'config', 'ledger', 'outbox', 'journal' or 'notice'");
  if (p === LAYOUT.ledger && ledgerSectors)
    return chip.partition(p.offset, Math.min(p.size, ledgerSectors * SECTOR_SIZE), views);
  return chip.partition(p.offset, p.size, views);
}
