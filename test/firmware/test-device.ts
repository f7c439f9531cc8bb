// A small Node-side HAL Device for the firmware tests: virtual time, the simulator's NOR flash model
// (hw-sim/nor-flash.ts, power cuts included) and layout, and recorders for every output.
import { NorFlash, PowerCut } from '../../hw-sim/nor-flash.ts';
import { CHIP_SIZE, LAYOUT, SECTOR_SIZE } from '../../hw-sim/layout.ts';
import type {
  Camera,
  CameraOptions,
  Device,
  Flash,
  FlashOptions,
  Frame,
  HIDInput,
  HIDInputOptions,
  Identity,
  Key,
  Keypad,
  KeypadOptions,
  Serial,
  SerialOptions,
  TextDisplay,
  Tone,
  LedColor,
  WatchdogOptions,
} from '../../src/hal.ts';

export { PowerCut };

/** The device's NOR chip with the simulator's layout; it outlives reboots (pass it to the next TestDevice). */
export function newChip(): NorFlash {
  return new NorFlash({ size: CHIP_SIZE, sectorSize: SECTOR_SIZE });
}

/** Sectors of the ledger partition the tests use by default: a slice of the real 1 MiB partition,
 *  because opening a ledger scans the whole partition and that is slow in QuickJS. */
export const TEST_LEDGER_SECTORS = 16;

/** The HAL Flash of a partition; `sectors` limits the ledger partition (0 = the whole of it). */
export function partitionOf(chip: NorFlash, name: 'config' | 'ledger', sectors = TEST_LEDGER_SECTORS): Flash {
  const p = LAYOUT[name];
  const size = name === 'ledger' && sectors > 0 ? Math.min(p.size, sectors * SECTOR_SIZE) : p.size;
  return chip.partition(p.offset, size);
}

interface Timer {
  id: number;
  at: number;
  interval?: number;
  cb: () => void;
}

/** Virtual time shared by the clocks and timers of one device. */
export class VirtualTime {
  mono = 0;
  /** Real-time clock origin (ms since epoch). */
  epoch = Date.UTC(2026, 5, 15, 10, 0, 0);
  timers: Timer[] = [];
  nextId = 1;
  advance(ms: number): void {
    const end = this.mono + ms;
    for (;;) {
      let next: Timer | undefined;
      for (const t of this.timers) if (t.at <= end && (!next || t.at < next.at)) next = t;
      if (!next) break;
      this.mono = next.at;
      if (next.interval !== undefined) next.at += Math.max(1, next.interval);
      else this.timers = this.timers.filter((t) => t !== next);
      next.cb();
    }
    this.mono = end;
  }
}

class Source<T> {
  queue: T[] = [];
  closed = false;
  constructor(protected readonly opts: { onReadable?: (n: number) => void }) {}
  read(): T | undefined {
    return this.queue.shift();
  }
  close(): void {
    this.closed = true;
  }
  push(item: T): void {
    this.queue.push(item);
    this.opts.onReadable?.(this.queue.length);
  }
}

export interface TestDeviceOptions {
  chip?: NorFlash;
  /** Ledger partition size in sectors; 0 = the real layout's whole partition. Default TEST_LEDGER_SECTORS. */
  ledgerSectors?: number;
  time?: VirtualTime;
  deviceId?: string;
  pendingConfirm?: boolean;
}

/** Everything the tests drive and observe. `device` is what the VM gets. */
export class TestDevice {
  readonly time: VirtualTime;
  readonly chip: NorFlash;
  screen: string[] = [];
  screens: string[][] = [];
  tones: Tone[][] = [];
  leds: LedColor[] = [];
  logs: string[] = [];
  kicks = 0;
  lastKick = 0;
  watchdogMs = 0;
  confirmed = 0;
  /** The next call of this output throws (to test the app's exception handling). */
  throwOnce: 'display' | 'beeper' | 'led' | null = null;
  serials: (Source<Uint8Array> & { written: Uint8Array[] })[] = [];
  hids: Source<Uint8Array>[] = [];
  cameras: Source<Frame>[] = [];
  keypads: Source<Key>[] = [];
  readonly device: Device;

  constructor(o: TestDeviceOptions = {}) {
    this.time = o.time ?? new VirtualTime();
    this.chip = o.chip ?? newChip();
    const ledgerSectors = o.ledgerSectors ?? TEST_LEDGER_SECTORS;
    const t = this.time;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    const identity: Identity & { pendingConfirm: boolean } = {
      deviceId: o.deviceId ?? 'SPH-000042',
      boardId: 0x5a01,
      imageHash: 'c0ffee00112233445566778899aabbccddeeff00112233445566778899aabbcc',
      pendingConfirm: o.pendingConfirm ?? true,
      confirm() {
        self.confirmed++;
        identity.pendingConfirm = false;
      },
    };
    this.device = {
      HIDInput: class extends Source<Uint8Array> implements HIDInput {
        readonly _mode: string;
        constructor(opts: HIDInputOptions) {
          super(opts);
          this._mode = opts.mode;
          self.hids.push(this);
        }
      },
      Serial: class extends Source<Uint8Array> implements Serial {
        written: Uint8Array[] = [];
        constructor(opts: SerialOptions) {
          super(opts);
          self.serials.push(this as never);
        }
        override read(): Uint8Array | undefined {
          if (this.queue.length === 0) return undefined;
          let n = 0;
          for (const q of this.queue) n += q.length;
          const out = new Uint8Array(n);
          let i = 0;
          for (const q of this.queue) out.set(q, (i += q.length) - q.length);
          this.queue = [];
          return out;
        }
        write(bytes: Uint8Array): void {
          this.written.push(bytes);
        }
      },
      Camera: class extends Source<Frame> implements Camera {
        constructor(opts: CameraOptions) {
          super(opts);
          self.cameras.push(this);
        }
        override push(f: Frame): void {
          this.queue = [f];
          this.opts.onReadable?.(1);
        }
      },
      Keypad: class extends Source<Key> implements Keypad {
        constructor(opts: KeypadOptions) {
          super(opts);
          self.keypads.push(this);
        }
      },
      TextDisplay: class implements TextDisplay {
        readonly rows = 4;
        readonly columns = 20;
        show(lines: readonly string[]): void {
          self.maybeThrow('display');
          self.screen = lines.slice(0, 4).map((l) => String(l).slice(0, 20));
          self.screens.push(self.screen);
        }
      },
      Beeper: class {
        play(tones: readonly Tone[]): void {
          self.maybeThrow('beeper');
          self.tones.push(tones.map((x) => ({ hz: x.hz, ms: x.ms })));
        }
      },
      Led: class {
        set(color: LedColor): void {
          self.maybeThrow('led');
          self.leds.push(color);
        }
      },
      Flash: class {
        constructor(opts: FlashOptions) {
          if (opts.partition !== 'config' && opts.partition !== 'ledger') throw new RangeError('no such partition');
          return partitionOf(self.chip, opts.partition, ledgerSectors);
        }
      } as unknown as Device['Flash'],
      RealTimeClock: class {
        now(): number {
          return t.epoch + t.mono;
        }
      },
      MonotonicClock: class {
        now(): number {
          return t.mono;
        }
      },
      Timers: class {
        set(cb: () => void, ms: number, interval?: number): number {
          const id = t.nextId++;
          t.timers.push({ id, at: t.mono + Math.max(0, ms), interval, cb });
          return id;
        }
        clear(id: number): void {
          t.timers = t.timers.filter((x) => x.id !== id);
        }
      },
      Watchdog: class {
        constructor(opts: WatchdogOptions) {
          self.watchdogMs = opts.timeoutMs;
        }
        kick(): void {
          self.kicks++;
          self.lastKick = t.mono;
        }
      },
      Log: class {
        write(line: string): void {
          self.logs.push(line);
        }
      },
      identity,
    };
  }

  private maybeThrow(what: 'display' | 'beeper' | 'led'): void {
    if (this.throwOnce !== what) return;
    this.throwOnce = null;
    throw new Error(`${what} failure`);
  }

  /** A text code arriving on the serial scanner, with its CR suffix. */
  scanSerial(code: string): void {
    const bytes = new Uint8Array(code.length + 1);
    for (let i = 0; i < code.length; i++) bytes[i] = code.charCodeAt(i) & 0xff;
    bytes[code.length] = 13;
    this.serials[0].push(bytes);
  }

  /** The HID input the app opened in `mode`. */
  hid(mode: 'keyboard' | 'pos'): Source<Uint8Array> {
    const h = this.hids.find((x) => (x as unknown as { _mode: string })._mode === mode);
    if (!h) throw new Error(`no HID input in ${mode} mode`);
    return h;
  }

  press(key: Key): void {
    this.keypads[0].push(key);
  }

  text(): string {
    return this.screen.join('\n');
  }
}
