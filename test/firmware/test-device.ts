// A small Node-side HAL Device for the firmware tests: virtual time, in-memory NOR flash partitions
// that can be shared across reboots and cut at any operation, and recorders for every output.
import type {
  Camera, CameraOptions, Device, Flash, FlashOptions, Frame, HIDInput, HIDInputOptions, Identity, Key, Keypad,
  KeypadOptions, Serial, SerialOptions, TextDisplay, Tone, LedColor, WatchdogOptions,
} from '../../src/hal.ts';

export const BLOCK = 4096;

/** Thrown by a flash operation when the power is cut; the VM cannot catch it in time to matter. */
export class PowerCut extends Error {
  constructor() {
    super('power cut');
  }
}

/** NOR flash contents that outlive a reboot. `cutAt(n)`: the n-th operation from now is torn, then every call fails. */
export class NorChip {
  readonly bytes: Uint8Array;
  ops = 0;
  private cut = -1;
  dead = false;
  readonly log: string[] = [];
  constructor(readonly size: number) {
    this.bytes = new Uint8Array(size).fill(0xff);
  }
  cutAt(n: number): void {
    this.cut = this.ops + n;
  }
  /** Power back on: operations work again. */
  restore(): void {
    this.cut = -1;
    this.dead = false;
  }
  op(kind: string, apply: (torn: boolean) => void): void {
    if (this.dead) throw new PowerCut();
    const n = this.ops++;
    this.log.push(kind);
    if (n === this.cut) {
      apply(true);
      this.dead = true;
      throw new PowerCut();
    }
    apply(false);
  }
}

class MemFlash implements Flash {
  readonly blockLength = BLOCK;
  constructor(private readonly chip: NorChip) {}
  get size(): number {
    return this.chip.size;
  }
  read(offset: number, byteLength: number): Uint8Array {
    if (this.chip.dead) throw new PowerCut();
    if (offset < 0 || byteLength < 0 || offset + byteLength > this.size) throw new RangeError('flash read out of range');
    return this.chip.bytes.slice(offset, offset + byteLength);
  }
  write(bytes: Uint8Array, offset: number): void {
    if (offset < 0 || offset + bytes.length > this.size) throw new RangeError('flash write out of range');
    this.chip.op('write', (torn) => {
      // A torn program: only the first half of the bytes made it.
      const n = torn ? bytes.length >> 1 : bytes.length;
      for (let i = 0; i < n; i++) this.chip.bytes[offset + i] &= bytes[i];
    });
  }
  eraseBlock(block: number): void {
    if (block < 0 || (block + 1) * BLOCK > this.size) throw new RangeError('flash erase out of range');
    this.chip.op('erase', (torn) => {
      // A torn erase leaves the first half erased and the rest as it was.
      const n = torn ? BLOCK >> 1 : BLOCK;
      this.chip.bytes.fill(0xff, block * BLOCK, block * BLOCK + n);
    });
  }
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
  config?: NorChip;
  ledger?: NorChip;
  time?: VirtualTime;
  deviceId?: string;
  pendingConfirm?: boolean;
}

/** Everything the tests drive and observe. `device` is what the VM gets. */
export class TestDevice {
  readonly time: VirtualTime;
  readonly config: NorChip;
  readonly ledger: NorChip;
  screen: string[] = [];
  screens: string[][] = [];
  tones: Tone[][] = [];
  leds: LedColor[] = [];
  logs: string[] = [];
  kicks = 0;
  lastKick = 0;
  watchdogMs = 0;
  confirmed = 0;
  serials: (Source<Uint8Array> & { written: Uint8Array[] })[] = [];
  hids: Source<Uint8Array>[] = [];
  cameras: Source<Frame>[] = [];
  keypads: Source<Key>[] = [];
  readonly device: Device;

  constructor(o: TestDeviceOptions = {}) {
    this.time = o.time ?? new VirtualTime();
    this.config = o.config ?? new NorChip(2 * BLOCK);
    this.ledger = o.ledger ?? new NorChip(16 * BLOCK);
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
        constructor(opts: HIDInputOptions) {
          super(opts);
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
          self.screen = lines.slice(0, 4).map((l) => String(l).slice(0, 20));
          self.screens.push(self.screen);
        }
      },
      Beeper: class {
        play(tones: readonly Tone[]): void {
          self.tones.push(tones.map((x) => ({ hz: x.hz, ms: x.ms })));
        }
      },
      Led: class {
        set(color: LedColor): void {
          self.leds.push(color);
        }
      },
      Flash: class extends MemFlash {
        constructor(opts: FlashOptions) {
          super(opts.partition === 'config' ? self.config : self.ledger);
        }
      },
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

  /** A text code arriving on the serial scanner, with its CR suffix. */
  scanSerial(code: string): void {
    const bytes = new Uint8Array(code.length + 1);
    for (let i = 0; i < code.length; i++) bytes[i] = code.charCodeAt(i) & 0xff;
    bytes[code.length] = 13;
    this.serials[0].push(bytes);
  }

  press(key: Key): void {
    this.keypads[0].push(key);
  }

  text(): string {
    return this.screen.join('\n');
  }
}
