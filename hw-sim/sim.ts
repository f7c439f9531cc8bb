// The whole handheld in software: the NOR chip, the bootloader (or developer mode), the firmware bundle
// running in QuickJS with the simulated peripherals, on virtual time. Scenarios, the demo, the
// interactive mode and the benchmarks all drive this class.
import type { DeviceKey, Frame, Key, LedColor } from '../src/hal.ts';
import { Scheduler } from './scheduler.ts';
import { BLOCK64, NorFlash, PowerCut } from './nor-flash.ts';
import { Peripherals, partitionFlash, type BeepRecord } from './device.ts';
import { QjsDevice, type QjsFault, type QjsVariant } from './qjs-host.ts';
import type { XsDevice } from './xs-host.ts';
import { V8Device } from './v8-host.ts';
import {
  bootSelect,
  installImage,
  provision,
  readBootState,
  slotSummary,
  type BootedImage,
  type NorChip,
} from '../rom/bootloader.ts';
import { BOARD_ID, DEV_FIRMWARE_SEED_HEX, packImage } from '../src/image/format.ts';
import { LAYOUT, SECTOR_SIZE } from '../rom/layout.ts';
import { provisionTrust, readTrust, impliesProduction, deviceKeyOf, type Trust } from '../rom/provision.ts';
import { toHex } from '../src/hex.ts';
import { seededRng, type Rng } from './rng.ts';
import type { Transmission } from './scanners/types.ts';
import { defaultConfig, storeConfig, configProblems, type Config } from '../src/config.ts';
import { BEEPS, type Signal } from '../src/signals.ts';
import { SimPrinter, type PrintedReceipt } from './printer.ts';
import { readLedgerPartition } from '../src/ledger/index.ts';
import { SimNetwork } from './network.ts';
import { fromHex } from '../src/hex.ts';
import type { StaleReason } from '../tools/build.ts';
import { simHost } from './host.ts';
import type { Payment } from '../src/ledger/index.ts';
import type { ServiceHost } from '../rom/service.ts';
import { ServiceDriver } from './service-driver.ts';
import { RomUpdater } from '../rom/update.ts';
import { CMD } from '../src/service/packet.ts';
import { asciiBytes } from '../src/config.ts';

/** firmware/dist/saphir-fw.js, built first when missing or stale: the host's (hw-sim/host.ts). */
export function ensureBundle(onBuild?: (why: StaleReason) => void): string {
  return simHost().bundle(onBuild);
}

/** The signed image firmware/dist/saphir-fw.img (built when missing or stale), for booting through the bootloader. */
export function ensureImage(onBuild?: (why: StaleReason) => void): Uint8Array {
  return simHost().image(onBuild);
}

/** The bootloader's view of the chip. */
export function bootChip(chip: NorFlash): NorChip {
  return {
    read: (o, l) => chip.read(o, l),
    peek: (o, l) => chip.peek(o, l),
    program: (o, b) => chip.write(b, o),
    eraseSector: (o) => chip.eraseBlock(o / SECTOR_SIZE),
    eraseBlock64: (o) => chip.eraseBlock64(o / BLOCK64),
    busyMs: () => chip.counters.busyMs,
  };
}

let lastBundle = { text: '', hash: '' };
/** The developer bundle's hash (its identity's imageHash), computed once per bundle text, not at every boot. */
function bundleHash(text: string): string {
  if (lastBundle.text !== text || !lastBundle.hash) lastBundle = { text, hash: toHex(simHost().sha256Text(text)) };
  return lastBundle.hash;
}

/** Signed update images (`updateImage`) already packed, by kind and bundle text: signing is deterministic. */
const imageCache: { kind: UpdateImageKind; bundle: string; image: Uint8Array }[] = [];

export type BeepKind = Signal | 'unknown';

/** Which of the firmware's patterns (src/signals.ts) a played beep is. */
export function classifyBeep(tones: readonly { hz: number; ms: number }[]): BeepKind {
  for (const [name, pattern] of Object.entries(BEEPS) as [Signal, readonly { hz: number; ms: number }[]][]) {
    if (pattern.length === tones.length && pattern.every((p, i) => p.hz === tones[i].hz && p.ms === tones[i].ms))
      return name;
  }
  return 'unknown';
}

/** Scenario-level device configuration, mapped onto the firmware's Config. */
/** The configurable fields (not the keys): the firmware's `Config`, checked by the one schema (src/config-schema.ts). */
export type SimConfig = Partial<Omit<Config, 'keys'>>;

export interface SimEvents {
  display?: (lines: string[], sim: Simulator) => void;
  beep?: (b: BeepRecord, kind: BeepKind) => void;
  led?: (c: LedColor) => void;
  log?: (line: string) => void;
  /** Power states: `boot` (with how), `off` (with why). */
  power?: (what: string) => void;
  /** A receipt came out of the printer. */
  receipt?: (r: PrintedReceipt) => void;
}

export interface SimOptions {
  /** The chip to start from; default a fresh erased one. */
  chip?: NorFlash;
  /** Firmware bundle text for developer mode; default firmware/dist/saphir-fw.js (built if missing or stale). */
  bundle?: string;
  /** The engine: QuickJS (default), QuickJS-ng, or `v8`, the simulator's own engine (fast, no heap figure; the explorer's). */
  variant?: SimVariant;
  /** Seed of the simulator's randomness (scanner noise, camera frames). */
  seed?: number | string;
  /** Real-time clock at start, ms since the epoch (default 2026-06-15T10:00:00Z). */
  clockMs?: number;
  deviceId?: string;
  events?: SimEvents;
  /**
   * Trust anchors to provision into the chip's write-once area at the first boot (rom/provision.ts).
   * A firmware key other than the development one makes a production device unless `production` says
   * otherwise. None given and nothing provisioned: the development keys.
   */
  firmwareKey?: Uint8Array;
  techKey?: Uint8Array;
  production?: boolean;
  /** A fleet registry URL: the device gets a network (SimNetwork) and its key; `configure` points it there. */
  registry?: string;
  /**
   * The device's Ed25519 private seed, hex, provisioned with the other trust anchors at the first boot
   * (the write-once area, rom/provision.ts). Default: what the chip holds; on a blank chip, a fresh
   * key for a production device, the published development device key otherwise.
   */
  deviceSeedHex?: string;
  /**
   * The fleet registry's public key (it signs every answer), provisioned with the other trust anchors
   * at the first boot. Default: what the chip holds; on a blank chip, the published development one.
   */
  registryKey?: Uint8Array;
  /**
   * The operator's public key (it signs the notices, src/notice.ts), provisioned with the other trust
   * anchors at the first boot. Default: what the chip holds; on a blank chip, the published development
   * one (a development device) or none (production).
   */
  operatorKey?: Uint8Array | null;
  /** The ledger partition cut to its first N sectors (opening a ledger reads all of it: tests stay quick); default all. */
  ledgerSectors?: number;
  /** false: a device without the check-journal partition (default true). */
  journal?: boolean;
  /**
   * No firmware VM: the bootloader runs, and the image it starts is modelled by its self-test alone
   * (a trial image is confirmed when `selfTestPasses`). For the bootloader and service-port tests,
   * whose images are not bundles. Boots then complete synchronously.
   */
  firmwareModel?: FirmwareModel;
  /** A receipt printer on the device (default true). */
  printer?: boolean;
}

export interface FirmwareModel {
  selfTestPasses: boolean;
}

export class SimError extends Error {}

export type SimVariant = QjsVariant | 'v8' | 'xs';

export type UpdateImageKind = 'base' | 'next' | 'older' | 'forged';

/** The result of `Simulator.update` (via `direct`) or `updateOverService` (via `service`). */
export type UpdateOutcome = (
  { ok: true; slot: 0 | 1; hashHex: string } | { ok: false; reason: string; detail: string }
) & {
  via: 'direct' | 'service';
  /** Over the service port: the request it stopped at (service-driver.ts UploadStage), when it failed. */
  stage?: string;
  resumedFrom?: number;
  sent?: number;
};

export class Simulator {
  readonly scheduler = new Scheduler();
  readonly chip: NorFlash;
  readonly rng: Rng;
  readonly variant: SimVariant;
  readonly deviceId: string;
  events: SimEvents;
  /** Undefined while the power is off. */
  periph: Peripherals | undefined;
  vm: QjsDevice | V8Device | XsDevice | undefined;
  /** How the running firmware was started: `developer` (bundle file) or `image` (bootloader, slot). */
  bootMode = '';
  /** The image the bootloader started (null in developer mode or while off). */
  booted: BootedImage | null = null;
  imageHash = '';
  pendingConfirm = false;
  /** Every screen shown since the simulator started, with its virtual time. */
  readonly screens: { t: number; lines: string[] }[] = [];
  readonly beepLog: { t: number; kind: BeepKind }[] = [];
  readonly faults: QjsFault[] = [];
  /** Scans that found no open input of their kind. */
  undelivered = 0;
  boots = 0;
  /** How many times the running firmware confirmed its image. */
  confirms = 0;
  /** The last reboot the service port asked for (`serviceHost().reboot`), to await. */
  restarting: Promise<void> = Promise.resolve();
  readonly ledgerSectors: number | undefined;
  readonly journal: boolean | undefined;
  /** Set: no VM, the firmware is modelled (SimOptions.firmwareModel); its self-test result can be changed. */
  readonly firmwareModel: FirmwareModel | undefined;
  private rtcOffset: number;
  private resetReason: string | undefined;
  /** Why the device last went off (`powerOff`'s why): its next start's boot reason. */
  private offWhy = 'power-on';
  private bundleText: string | undefined;
  private provisionWith: Partial<Omit<Trust, 'provisioned'>> | null = null;
  /** The device's network (with `registry`): `network.state` takes it down, up, slow or lossy. */
  readonly network: SimNetwork | undefined;
  readonly registry: string | undefined;
  /** The receipt printer (undefined: the device has none); its paper state outlives a power cut. */
  readonly printer: SimPrinter | undefined;

  constructor(o: SimOptions = {}) {
    if (o.firmwareKey || o.techKey || o.production !== undefined || o.deviceSeedHex || o.registryKey || o.operatorKey) {
      const p: Partial<Omit<Trust, 'provisioned'>> = {};
      if (o.firmwareKey) p.firmwareKey = o.firmwareKey;
      if (o.techKey) p.techKey = o.techKey;
      if (o.deviceSeedHex) p.deviceKey = deviceKeyOf(fromHex(o.deviceSeedHex));
      if (o.registryKey) p.registryKey = o.registryKey;
      if (o.operatorKey) p.operatorKey = o.operatorKey;
      p.production = o.production ?? impliesProduction(o.firmwareKey);
      this.provisionWith = p;
    }
    this.chip = o.chip ?? new NorFlash();
    this.bundleText = o.bundle;
    this.variant = o.variant ?? 'quickjs';
    this.rng = seededRng(o.seed ?? 1);
    this.rtcOffset = o.clockMs ?? Date.UTC(2026, 5, 15, 10, 0, 0);
    this.deviceId = o.deviceId ?? 'SIM-0001';
    this.events = o.events ?? {};
    this.registry = o.registry;
    this.ledgerSectors = o.ledgerSectors;
    this.journal = o.journal;
    this.firmwareModel = o.firmwareModel;
    if (o.printer !== false) {
      this.printer = new SimPrinter();
      this.printer.onPrint = (r) => this.events.receipt?.(r);
    }
    if (o.registry) this.network = new SimNetwork(seededRng(`${o.seed ?? 1}:network`), () => this.now);
  }

  /**
   * The device's own key (its secure element), as provisioned on the chip: signs registry requests, by
   * the firmware or the service port.
   */
  get deviceKey(): DeviceKey {
    const k = this.trust().deviceKey;
    // The host's Ed25519 (node:crypto in Node): the same signature as noble's, a fraction of its CPU.
    return { publicKey: k.publicKey, sign: (m) => simHost().sign(m, k.seed) };
  }

  get on(): boolean {
    return this.periph !== undefined;
  }

  get now(): number {
    return this.scheduler.now;
  }

  /** The real-time clock, ms since the epoch. */
  get clock(): number {
    return this.rtcOffset + this.scheduler.now;
  }

  setClock(ms: number): void {
    this.rtcOffset = ms - this.scheduler.now;
  }

  get screen(): string[] {
    return this.periph?.screen ?? [];
  }

  get led(): LedColor {
    return this.periph?.led ?? 'off';
  }

  /** Writes the device configuration to the config partition (the firmware reads it at boot). */
  configure(c: SimConfig): void {
    const cfg: Config = { ...defaultConfig(false) };
    const set = cfg as unknown as Record<string, unknown>;
    for (const [k, v] of Object.entries(c)) if (v !== undefined && k !== 'registryUrl') set[k] = v;
    const url = c.registryUrl ?? this.registry;
    if (url !== undefined) cfg.registryUrl = url;
    const problems = configProblems(cfg, false);
    if (problems.length > 0) throw new SimError(`config: ${problems.join('; ')}`);
    if (!this.chip.powered) this.chip.powerOn();
    storeConfig(partitionFlash(this.chip, 'config'), cfg, false);
  }

  /** The trust anchors on the chip (provisioning them first when the options asked for it). */
  trust(): Trust {
    if (!this.chip.powered) this.chip.powerOn();
    const chip = bootChip(this.chip);
    if (this.provisionWith) {
      try {
        provisionTrust(chip, this.provisionWith);
      } catch (e) {
        throw new SimError(`provisioning: ${(e as Error).message}`);
      }
      this.provisionWith = null;
    }
    const t = readTrust(chip);
    if ('error' in t) throw new SimError(`bootloader: ${t.error}`);
    return t;
  }

  /** Power on: the bootloader picks a verified image, or developer mode loads the bundle file. */
  async boot(): Promise<void> {
    if (this.on) throw new SimError('boot: the device is already on (use reboot)');
    this.chip.powerOn();
    this.resetReason = undefined;
    let bundle: string;
    const trust = this.trust();
    const chip = bootChip(this.chip);
    const slots = [0, 1].map((s) => slotSummary(chip, s as 0 | 1).status);
    // A development device that never had an image (no boot state record) and holds only a half-written
    // one (a transfer cut before FINISH) stays in developer mode; the update resumes from its journal.
    const halfOnly = !trust.production && !slots.includes('valid') && readBootState(chip).seq === 0;
    const hasImage = slots.some((s) => s !== 'empty') && !halfOnly;
    let confirm = () => {};
    const w = this.offWhy;
    let bootReason = /watchdog/.test(w)
      ? 'watchdog'
      : /interrupted|out-of-memory/.test(w)
        ? 'fault'
        : w === 'reboot' || /^reset/.test(w)
          ? 'reset'
          : 'power-on';
    if (hasImage) {
      let b;
      // A trial started and not confirmed: the bootloader goes back (a revert).
      const before = readBootState(chip);
      try {
        b = bootSelect(chip);
      } catch (e) {
        // The power went while the bootloader wrote its state: the device stays off.
        if (!(e instanceof PowerCut)) throw e;
        this.events.power?.('off (power cut in the bootloader)');
        return;
      }
      if ('error' in b) throw new SimError(`bootloader: ${b.error}`);
      this.booted = b;
      if (b.pendingConfirm) bootReason = 'update';
      else if (before.trial !== null && before.trialBooted) bootReason = 'revert';
      bundle = this.firmwareModel ? '' : new TextDecoder().decode(b.bundle);
      this.bootMode = `image slot ${'AB'[b.slot]} v${b.version}`;
      this.imageHash = b.imageHash;
      this.pendingConfirm = b.pendingConfirm;
      confirm = () => {
        b.confirm();
        this.pendingConfirm = false;
        this.confirms++;
      };
    } else {
      if (trust.production) throw new SimError('bootloader: no image, and a production device has no developer mode');
      if (this.bundleText === undefined && !this.firmwareModel) this.bundleText = ensureBundle();
      bundle = this.bundleText ?? '';
      this.bootMode = 'developer';
      this.booted = null;
      this.imageHash = bundleHash(bundle);
      this.pendingConfirm = false;
    }
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters below read the live simulator
    const sim = this;
    const identity = {
      deviceId: this.deviceId,
      boardId: 0x53480001,
      get imageHash() {
        return sim.imageHash;
      },
      get pendingConfirm() {
        return sim.pendingConfirm;
      },
      confirm: () => confirm(),
      // Provisioned ticket keys win over the configuration's (firmware/trust.ts).
      ticketKeys: trust.provisioned ? [...trust.ticketKeys].map(([id, k]) => `${id}:${toHex(k)}`).join(',') : undefined,
      production: trust.production,
      registryKey: toHex(trust.registryKey),
      version: this.booted?.version,
      slot: this.booted ? 'AB'[this.booted.slot] : undefined,
      bootReason,
      operatorKey: trust.operatorKey ? toHex(trust.operatorKey) : undefined,
    };
    const periph = new Peripherals({
      scheduler: this.scheduler,
      chip: this.chip,
      ledgerSectors: this.ledgerSectors,
      journal: this.journal,
      rtcBase: () => this.rtcOffset,
      identity,
      network: this.network,
      deviceKey: this.network ? this.deviceKey : undefined,
      printer: this.printer,
      // The ROM's writer for update campaigns: a device with a network downloads them.
      updater: this.network
        ? new RomUpdater({ chip, running: () => this.booted, reset: () => this.requestReset('update') })
        : undefined,
      events: {
        display: (lines) => {
          this.screens.push({ t: this.now, lines });
          if (this.screens.length > 5000) this.screens.splice(0, 1000);
          this.events.display?.(lines, this);
        },
        beep: (b) => {
          const kind = classifyBeep(b.tones);
          this.beepLog.push({ t: b.t, kind });
          if (this.beepLog.length > 5000) this.beepLog.splice(0, 1000);
          this.events.beep?.(b, kind);
        },
        led: (c) => this.events.led?.(c),
        log: (l) => this.events.log?.(l),
        watchdog: () => this.requestReset('watchdog'),
      },
    });
    this.periph = periph;
    this.boots++;
    this.events.power?.(`boot (${this.bootMode})`);
    if (this.firmwareModel) {
      try {
        if (this.pendingConfirm && this.firmwareModel.selfTestPasses) confirm();
      } catch (e) {
        if (!(e instanceof PowerCut)) throw e;
      }
      await this.settle(); // a cut in the confirm powers the device off, as with a real firmware
      return;
    }
    const onFault = (f: QjsFault) => {
      this.faults.push(f);
      this.events.log?.(`fault ${f.kind} in ${f.where}: ${f.message}`);
      if (f.kind === 'interrupted' || f.kind === 'out-of-memory') this.requestReset(f.kind);
    };
    // under the VM host's VM_LIMITS, the only ones
    this.vm =
      this.variant === 'v8'
        ? await V8Device.start({ bundle, device: periph.device, onFault })
        : this.variant === 'xs'
          ? await simHost().xs({ bundle, device: periph.device, onFault })
          : await QjsDevice.start({ bundle, device: periph.device, variant: this.variant, onFault });
    await this.settle();
  }

  /** Power off: every timer stops, the VM is gone; the chip keeps what was written. */
  powerOff(why = 'power off'): void {
    if (!this.periph) return;
    this.periph.shutdown();
    this.periph = undefined;
    this.offWhy = why;
    this.booted = null;
    this.vm?.dispose();
    this.vm = undefined;
    this.events.power?.(`off (${why})`);
  }

  async reboot(): Promise<void> {
    this.powerOff('reboot');
    await this.boot();
  }

  /** Cuts the power now. */
  powerCut(): void {
    this.powerOff('power cut');
  }

  /** Cuts the power in the middle of the `n`-th flash operation from now (1 = the next). */
  cutAfterFlashOps(n: number): void {
    this.chip.cutAtOp(n);
  }

  private requestReset(reason: string): void {
    this.resetReason ??= reason;
  }

  /** After anything ran: a cut chip powers the device off, a watchdog or fault resets it. */
  private async settle(): Promise<void> {
    if (this.periph && !this.chip.powered) this.powerOff('power cut during a flash operation');
    if (this.periph && this.resetReason) {
      const why = this.resetReason;
      this.powerOff(`reset: ${why}`);
      await this.boot();
    }
  }

  /** Runs virtual time forward by `ms`. */
  async run(ms: number): Promise<void> {
    await this.runUntil(() => false, ms);
  }

  /** Runs events until `cond()` holds or `withinMs` of virtual time passed; returns whether it held. */
  async runUntil(cond: () => boolean, withinMs: number): Promise<boolean> {
    const end = this.now + withinMs;
    for (;;) {
      if (cond()) return true;
      if (!this.scheduler.step(end)) break;
      await this.settle();
    }
    if (this.scheduler.now < end) this.scheduler.now = end;
    return cond();
  }

  /** Schedules a scanner's deliveries from now; returns when the last one lands (virtual ms). */
  transmit(tx: Transmission): number {
    const start = this.now;
    let missed = false;
    for (const d of tx.deliveries) {
      this.scheduler.at(start + d.t, () => {
        const p = this.periph;
        let ok = false;
        if (p) {
          try {
            ok = d.input === 'camera' ? p.feedFrame(d.frame as Frame) : p.feed(d.input, d.data);
          } catch (e) {
            if (!(e instanceof PowerCut)) throw e;
          }
        }
        if (!ok && !missed) {
          missed = true;
          this.undelivered++;
        }
      });
    }
    return start + tx.durationMs;
  }

  /** Raw input from outside (a bridged real scanner), handed to the device now. */
  inject(input: 'hid-keyboard' | 'hid-pos' | 'serial', data: Uint8Array): void {
    this.transmit({ via: input, deliveries: [{ input, t: 0, data }], durationMs: 0 });
  }

  /** A key on the keypad (handled at once; a power cut or reset it causes takes effect). */
  async press(key: Key): Promise<void> {
    if (!this.periph) throw new SimError('press: the device is off');
    try {
      if (!this.periph.feed('keypad', key)) this.undelivered++;
    } catch (e) {
      if (!(e instanceof PowerCut)) throw e;
    }
    await this.settle();
  }

  /** A key pressed `ms` of virtual time from now (during a scan, say); lost if the device is off then. */
  pressAt(key: Key, ms: number): void {
    this.scheduler.after(ms, () => {
      try {
        if (!this.periph?.feed('keypad', key)) this.undelivered++;
      } catch (e) {
        if (!(e instanceof PowerCut)) throw e;
      }
    });
  }

  /** Payments on the chip's ledger partition, read as the firmware would. */
  ledger(): Payment[] {
    // Reading needs the chip powered; a later boot powers it anyway.
    this.chip.powerOn();
    // Views, not copies: the payments read are plain values, and nothing here writes.
    return readLedgerPartition(partitionFlash(this.chip, 'ledger', this.ledgerSectors, true));
  }

  /**
   * The device as its service port sees it (rom/service.ts): the chip, the running image, REBOOT
   * (awaitable as `restarting`), the ledger, the device key and clock; a power cut in a request
   * restarts the device. `over` replaces any of these (a test's or the CLI's own handling).
   */
  serviceHost(over: Partial<ServiceHost> = {}): ServiceHost {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getter below reads the live simulator
    const sim = this;
    return {
      chip: bootChip(this.chip),
      deviceId: this.deviceId,
      running: () => this.booted,
      reboot: () => {
        this.restarting = this.reboot();
        this.restarting.catch(() => {});
      },
      ledgerEntries: () => this.ledger(),
      // Read when asked; none on a chip whose provisioning record is damaged (the other commands still answer).
      get deviceKey() {
        try {
          return sim.deviceKey;
        } catch (e) {
          if (e instanceof SimError) return undefined;
          throw e;
        }
      },
      nowMs: () => this.clock,
      starts: () => this.boots,
      powerLost: () => {
        this.powerOff('power cut');
        this.restarting = this.boot();
        this.restarting.catch(() => {});
      },
      ...over,
    };
  }

  /**
   * Damage the ledger's cells directly (what the chip does, not the firmware): `flip-bit` inverts bit
   * `index % 8` of the `index`-th programmed byte (modulo their count); `lose-sector` erases the
   * `index`-th sector holding data (modulo). Nothing happens on an empty ledger. Returns the chip offset.
   */
  damageLedger(how: 'flip-bit' | 'lose-sector', index: number): number | undefined {
    const { offset } = LAYOUT.ledger;
    const { size } = partitionFlash(this.chip, 'ledger', this.ledgerSectors);
    const b = this.chip.bytes;
    if (how === 'flip-bit') {
      let n = 0;
      for (let i = offset; i < offset + size; i++) if (b[i] !== 0xff) n++;
      if (n === 0) return undefined;
      let k = index % n;
      for (let i = offset; i < offset + size; i++) {
        if (b[i] !== 0xff && k-- === 0) {
          b[i] ^= 1 << (index % 8);
          this.chip.touched(i, 1);
          return i;
        }
      }
      return undefined;
    }
    const used: number[] = [];
    for (let s = offset; s < offset + size; s += SECTOR_SIZE) {
      for (let i = s; i < s + SECTOR_SIZE; i++) {
        if (b[i] !== 0xff) {
          used.push(s);
          break;
        }
      }
    }
    if (used.length === 0) return undefined;
    const at = used[index % used.length];
    b.fill(0xff, at, at + SECTOR_SIZE);
    this.chip.touched(at, SECTOR_SIZE);
    return at;
  }

  /**
   * What the last `update` or `updateOverService` did: the slot it installed, or why not (the bootloader's
   * or the service port's refusal reason, `power-cut` when the power went during it). A service upload
   * also says how many bytes the device already held at BEGIN and how many were sent.
   */
  lastUpdate: UpdateOutcome | undefined;

  /**
   * Images of this simulator's firmware bundle, signed with the development key: `base` (0.1.0,
   * security counter 1, what `provisionImage` writes), `next` (0.2.0, counter 2), `older` (0.0.9,
   * counter 0: refused once a counter-2 image was confirmed), `forged` (0.2.0, an unknown key).
   */
  updateImage(kind: UpdateImageKind): Uint8Array {
    if (this.bundleText === undefined) this.bundleText = ensureBundle();
    const text = this.bundleText;
    let e = imageCache.find((c) => c.kind === kind && c.bundle === text);
    if (!e) {
      e = { kind, bundle: text, image: this.packUpdate(kind) };
      imageCache.unshift(e);
      if (imageCache.length > 8) imageCache.pop();
    }
    return e.image.slice();
  }

  private packUpdate(kind: UpdateImageKind): Uint8Array {
    if (this.bundleText === undefined) this.bundleText = ensureBundle();
    const bundle = new TextEncoder().encode(this.bundleText);
    const v = { base: ['0.1.0', 1], next: ['0.2.0', 2], older: ['0.0.9', 0], forged: ['0.2.0', 2] } as const;
    const [version, securityCounter] = v[kind];
    const seed = kind === 'forged' ? new Uint8Array(32).fill(0x0f) : fromHex(DEV_FIRMWARE_SEED_HEX);
    const host = simHost();
    return packImage({
      bundle,
      version,
      boardId: BOARD_ID,
      securityCounter,
      seed,
      sign: host.sign,
      publicKeyOf: host.publicKeyOf,
    });
  }

  /** Factory programming: the `base` image in slot A, confirmed; the device then boots through the bootloader. */
  provisionImage(): void {
    this.chip.powerOn();
    provision(bootChip(this.chip), this.updateImage('base'));
  }

  /**
   * A firmware update as the service port's FINISH does it (rom/bootloader.ts installImage), with
   * the power cut in the middle of its `cutAfterFlashOps`-th flash operation when given; the running
   * firmware keeps running until a reboot starts the new image on trial.
   */
  update(kind: UpdateImageKind, cutAfterFlashOps?: number): void {
    if (!this.on) throw new SimError('update: the device is off');
    if (cutAfterFlashOps) this.chip.cutAtOp(cutAfterFlashOps);
    try {
      const r = installImage(bootChip(this.chip), this.updateImage(kind), {
        running: this.booted?.slot ?? null,
      });
      this.lastUpdate = { ...r, via: 'direct' };
    } catch (e) {
      if (!(e instanceof PowerCut)) throw e;
      this.lastUpdate = { ok: false, reason: 'power-cut', detail: e.message, via: 'direct' };
      this.powerOff('power cut during an update');
    }
    if (cutAfterFlashOps) this.chip.cutAtOp(0);
  }

  /**
   * A firmware update as a technician makes it over the service port (hw-sim/service-driver.ts, the
   * device's own ServicePort): IDENTIFY, CHALLENGE, AUTH with the development technician key, BEGIN,
   * WRITE of every 4 KiB chunk through the update journal, FINISH. With `resume`, BEGIN again and only
   * the chunks the device says it is missing (after a cut); without, ABORT first (a fresh upload). The
   * power cut strikes in the middle of the `cutAfterFlashOps`-th flash operation when given: the device
   * is then off. The device is not rebooted: the running firmware keeps running until a reboot starts
   * the new image on trial. Nonces come from the simulator's seeded randomness, the port's clock is
   * virtual time: a scenario replays the same.
   */
  updateOverService(kind: UpdateImageKind, o: { cutAfterFlashOps?: number; resume?: boolean } = {}): void {
    if (!this.on) throw new SimError('update: the device is off');
    const image = this.updateImage(kind);
    const host = this.serviceHost({ powerLost: () => this.powerOff('power cut during an update') });
    const driver = new ServiceDriver(host, {
      random: (n) => Uint8Array.from({ length: n }, () => this.rng.int(256)),
      now: () => this.now,
    });
    if (o.cutAfterFlashOps) this.chip.cutAtOp(o.cutAfterFlashOps);
    try {
      const r = driver.upload(image, { resume: o.resume });
      const tail = { via: 'service' as const, resumedFrom: r.resumedFrom, sent: r.sent };
      this.lastUpdate = r.ok
        ? { ok: true, slot: r.slot === 'B' ? 1 : 0, hashHex: r.hash, ...tail }
        : { ok: false, reason: r.reason, detail: `${r.stage}: ${r.detail}`, stage: r.stage, ...tail };
      // Silent without a power cut would be the port's fault, not the device being off.
      if (!r.ok && r.reason === 'power-cut' && this.chip.powered) throw new SimError(`update: ${r.detail}`);
    } finally {
      if (o.cutAfterFlashOps) this.chip.cutAtOp(0);
      driver.close();
    }
  }

  /**
   * `saphir notice push` as a technician makes it over the service port (the device's own ServicePort):
   * AUTH with the development technician key, NOTICE with the signed notice's text; then, when the device
   * took it and `reboot` is not false, a restart so that it applies. The device's reply: `{ok, version,
   * previous}` or a refusal `{ok: false, reason, detail}`.
   */
  async pushNotice(text: string, o: { reboot?: boolean } = {}): Promise<Record<string, unknown>> {
    if (!this.on) throw new SimError('notice: the device is off');
    const driver = new ServiceDriver(this.serviceHost(), {
      random: (n) => Uint8Array.from({ length: n }, () => this.rng.int(256)),
      now: () => this.now,
    });
    let r: Record<string, unknown>;
    try {
      const a = driver.authenticate();
      r = a
        ? { ok: false, reason: a.reason, detail: a.detail }
        : (driver.json(CMD.NOTICE, asciiBytes(text)) ?? { ok: false, reason: 'silent', detail: 'no answer' });
    } finally {
      driver.close();
    }
    if (r.ok === true && o.reboot !== false) await this.reboot();
    return r;
  }

  /** Bytes of firmware heap in use (0 while off, and under `v8`, which has no such figure). */
  heapUsed(): number {
    return this.vm?.heapUsed() ?? 0;
  }

  /** The firmware heap a device would use: `heapUsed` less the debug line tables a device strips (qjs-host.ts). */
  heapDevice(): number {
    return this.vm && 'heapDevice' in this.vm ? this.vm.heapDevice() : 0;
  }

  dispose(): void {
    this.powerOff('dispose');
    this.network?.close();
  }
}
