// The hardware abstraction layer: everything the firmware needs from the device, and nothing more.
// ECMA-419 style: every constructor takes one options object; input arrives through `onReadable`
// followed by `read()`. The device (or the simulator, or a Node host adapter) provides them all on
// `globalThis.device`; the firmware depends on these interfaces only. See docs/hal.md.

/** Options shared by every input: `onReadable(count)` says `count` items can be read now. */
export interface InputOptions {
  onReadable?: (count: number) => void;
  onError?: (message: string) => void;
}

export interface Input<T> {
  /** The next item, or undefined when none is waiting. */
  read(): T | undefined;
  close(): void;
}

// --- scanner inputs -------------------------------------------------------------------------------

export interface HIDInputOptions extends InputOptions {
  /** `keyboard`: 8-byte boot keyboard reports; `pos`: 64-byte HID POS (usage page 0x8C) reports. */
  mode: 'keyboard' | 'pos';
}
/** One USB HID input report per `read()`. */
export type HIDInput = Input<Uint8Array>;

export interface SerialOptions extends InputOptions {
  baud?: number;
}
/** A byte stream: `read()` returns every byte received so far. `write()` sends (ACK/NAK). */
export interface Serial extends Input<Uint8Array> {
  write(bytes: Uint8Array): void;
}

export interface Frame {
  width: number;
  height: number;
  /** `y8`: one grey byte a pixel; `rgba`: four bytes a pixel. Rows are packed. */
  format: 'y8' | 'rgba';
  data: Uint8Array;
}
export type CameraOptions = InputOptions;
/** One frame per `read()`, the latest only: a slow reader drops frames rather than queueing them. */
export type Camera = Input<Frame>;

// --- user interface -------------------------------------------------------------------------------

export type Key = 'OK' | 'C' | '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
export type KeypadOptions = InputOptions;
export type Keypad = Input<Key>;

export interface DisplayOptions {}
/** A character display, `rows` × `columns` (4 × 20 on the device). Latin-1 characters. */
export interface TextDisplay {
  readonly rows: number;
  readonly columns: number;
  /** Replaces the whole screen; lines beyond `rows` are ignored, long lines are cut. */
  show(lines: readonly string[]): void;
}

export interface Tone {
  hz: number;
  ms: number;
}
export interface BeeperOptions {}
export interface Beeper {
  /** Plays the tones one after the other (hz 0 is a silence); a new call cuts the one playing. */
  play(tones: readonly Tone[]): void;
}

export type LedColor = 'green' | 'red' | 'off';
export interface LedOptions {}
export interface Led {
  set(color: LedColor): void;
}

// --- receipt printer ------------------------------------------------------------------------------

export interface PrinterOptions {}
/**
 * A thermal receipt printer fed ESC/POS (the subset of src/print/escpos.ts: text, bold, centring, a QR
 * code, cut). `write` takes one whole receipt and returns once it is printed; it throws when it could
 * not be (paper out, cover open, a fault), and then none of it counts as printed.
 */
export interface Printer {
  write(bytes: Uint8Array): void;
}

// --- storage --------------------------------------------------------------------------------------

export interface FlashOptions {
  /**
   * The firmware's data partitions (`outbox`: payments waiting for the registry; `journal`: every verdict
   * shown; `notice`: the operator's signed notice, src/notice.ts).
   */
  partition: 'config' | 'ledger' | 'outbox' | 'journal' | 'notice';
}
/**
 * NOR flash. Erased bytes read 0xFF; `write` can only clear bits (the result is old & new); only
 * `eraseBlock` sets them back. Calls are synchronous and complete before returning: when `write`
 * returns, the data survives a power cut.
 */
export interface Flash {
  readonly size: number;
  readonly blockLength: number;
  read(offset: number, byteLength: number): Uint8Array;
  write(bytes: Uint8Array, offset: number): void;
  eraseBlock(block: number): void;
  /**
   * Optional blank check: true when every byte of the range reads 0xFF. Native on the device (no copy
   * into the VM); a caller of a flash without it reads the range.
   */
  erased?(offset: number, byteLength: number): boolean;
}

// --- time -----------------------------------------------------------------------------------------

export interface ClockOptions {}
export interface RealTimeClock {
  /** Milliseconds since 1970-01-01T00:00:00Z (UTC). */
  now(): number;
}
export interface MonotonicClock {
  /** Milliseconds since an arbitrary origin; never goes back. */
  now(): number;
}

export interface TimerOptions {}
export interface Timers {
  /** Calls `callback` after `ms`, then every `interval` ms if given; returns an id for `clear`. */
  set(callback: () => void, ms: number, interval?: number): number;
  clear(id: number): void;
}

export interface WatchdogOptions {
  /** The device resets if `kick()` is not called within this many milliseconds. */
  timeoutMs: number;
}
export interface Watchdog {
  kick(): void;
}

// --- network (the fleet registry) -----------------------------------------------------------------

export interface NetworkOptions extends InputOptions {
  /** The registry's base URL (`http://host:port`); the device speaks to nothing else. */
  url: string;
}
export interface NetworkResponse {
  /** The id `request()` returned. */
  id: number;
  /** The HTTP status; 0 when no answer came within the timeout (network down, host unreachable). */
  status: number;
  body: string;
}
/** HTTP JSON request/response. Answers arrive through `onReadable` + `read()`, one per request, in any order. */
export interface Network extends Input<NetworkResponse> {
  /** POSTs `body` to `url + path`; returns the request id. An answer (status 0 at worst) always follows. */
  request(path: string, body: string, timeoutMs: number): number;
}

export interface DeviceKeyOptions {}
/** The device's own Ed25519 key, kept by the hardware (a secure element): the firmware never sees it. */
export interface DeviceKey {
  readonly publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

// --- identity and diagnostics ---------------------------------------------------------------------

export interface Identity {
  /** This device's serial number, printed on its label. */
  readonly deviceId: string;
  /** The board type; images are built for one board id. */
  readonly boardId: number;
  /** SHA-256 of the running firmware image, hex, as the bootloader computed it. */
  readonly imageHash: string;
  /** True when the bootloader started this image in test mode and waits for `confirm()`. */
  readonly pendingConfirm: boolean;
  /** Marks the running image good (MCUboot's confirm); no-op when already confirmed. */
  confirm(): void;
  /**
   * Ticket keys provisioned in the device's write-once area, `id:hex` items joined by commas; absent
   * on a device provisioned with none (the configuration's keys are used).
   */
  readonly ticketKeys?: string;
  /**
   * The fleet registry's Ed25519 public key, hex, provisioned in the write-once area: every registry
   * answer must be signed by it. Absent: the device has no registry link.
   */
  readonly registryKey?: string;
  /**
   * The operator's Ed25519 public key, hex, provisioned in the write-once area: it signs the notices
   * (src/notice.ts). Absent: the device takes no notice.
   */
  readonly operatorKey?: string;
  /** Provisioned as a production device. */
  readonly production?: boolean;
  /** The running image's version and slot (`A`, `B`), as the bootloader read them; absent in developer mode. */
  readonly version?: string;
  readonly slot?: string;
  /**
   * Why the device started: `power-on`, `reset` (asked), `watchdog`, `fault`, `update` (into a new image on
   * trial), `revert` (the bootloader went back to the confirmed image: a trial was not confirmed).
   */
  readonly bootReason?: string;
}

// --- update campaigns (the ROM's writer) ---------------------------------------------------------

export interface UpdaterOptions {}
/**
 * The ROM's streaming update writer (rom/update.ts RomUpdater): the firmware downloads an update
 * campaign's image and hands it over chunk by chunk; the ROM writes the inactive slot with its journal
 * (a power cut resumes), checks the manifest first and the whole slot at `finish`, and the bootloader
 * checks it again at the test boot. `next`: the offset of the next chunk the ROM lacks, -1 when none.
 */
export interface Updater {
  /** `manifest`: the image's header and TLV area; `size`: the whole image's bytes. Resumes the same image. */
  begin(manifest: Uint8Array, size: number): { ok: boolean; reason?: string; detail?: string; next?: number };
  /** One 4 KiB chunk at `offset` (the last one up to the end). */
  write(offset: number, bytes: Uint8Array): { ok: boolean; reason?: string; next?: number };
  /** Checks the slot and marks it for one test boot. */
  finish(): { ok: boolean; reason?: string; detail?: string; version?: string };
  /** Resets the device: the bootloader starts the new image on trial. */
  restart(): void;
}

export interface LogOptions {}
export interface Log {
  write(line: string): void;
}

type Ctor<O, T> = new (options: O) => T;

/** What the device provides on `globalThis.device`. */
export interface Device {
  HIDInput: Ctor<HIDInputOptions, HIDInput>;
  Serial: Ctor<SerialOptions, Serial>;
  Camera: Ctor<CameraOptions, Camera>;
  Keypad: Ctor<KeypadOptions, Keypad>;
  TextDisplay: Ctor<DisplayOptions, TextDisplay>;
  Beeper: Ctor<BeeperOptions, Beeper>;
  Led: Ctor<LedOptions, Led>;
  Flash: Ctor<FlashOptions, Flash>;
  RealTimeClock: Ctor<ClockOptions, RealTimeClock>;
  MonotonicClock: Ctor<ClockOptions, MonotonicClock>;
  Timers: Ctor<TimerOptions, Timers>;
  Watchdog: Ctor<WatchdogOptions, Watchdog>;
  Log: Ctor<LogOptions, Log>;
  /** Absent on a device without a receipt printer. */
  Printer?: Ctor<PrinterOptions, Printer>;
  /** Absent on a device without network: it then pays offline only (see docs/registry.md). */
  Network?: Ctor<NetworkOptions, Network>;
  DeviceKey?: Ctor<DeviceKeyOptions, DeviceKey>;
  /** Absent on a device whose ROM takes no update from the firmware (service port only). */
  Updater?: Ctor<UpdaterOptions, Updater>;
  identity: Identity;
}
