// Shared by the firmware tests: the real bundle (built when missing or stale) booted on hw-sim's own
// device (a Simulator: its peripherals, recorders and fault hooks, virtual time, VM limits), tickets
// signed with the test key, and a test configuration on the config partition.
import { readFileSync } from 'node:fs';
import { TEST_PUBLIC_KEY_HEX } from '../../src/sph1/keys.ts';
import { MirroredLedger, mirroredEntries, type Payment } from '../../src/ledger/index.ts';
import { storeConfig, defaultConfig, type Config } from '../../src/config.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { Peripherals, partitionFlash } from '../../hw-sim/device.ts';
import { Scheduler } from '../../hw-sim/scheduler.ts';
import { Simulator } from '../../hw-sim/sim.ts';
import type { QjsVariant } from '../../hw-sim/qjs-host.ts';
import type { Flash, Frame } from '../../src/hal.ts';
import { ensureBuilt } from '../../tools/build.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import '../../hw-sim/node-host.ts';

export { ROOT as ROOT_DIR } from '../../tools/paths.ts';

let bundle: string | undefined;
export async function bundleText(): Promise<string> {
  if (!bundle) {
    bundle = readFileSync(await ensureBuilt(), 'utf8');
  }
  return bundle;
}

/** Sectors of the ledger partition the tests use by default: a slice of the real 1 MiB partition,
 *  because opening a ledger scans the whole partition and that is slow in QuickJS. */
export const TEST_LEDGER_SECTORS = 16;

/** The device id the firmware tests boot with (it is in their ledgers). */
export const DEVICE_ID = 'SPH-000042';

/** The HAL Flash of a partition, as the device under test sees it (`sectors`: its ledger size, 0 = whole). */
export function partitionOf(chip: NorFlash, name: 'config' | 'ledger', sectors = TEST_LEDGER_SECTORS): Flash {
  return partitionFlash(chip, name, sectors);
}

/** A ticket of SAPHIR signed with the test key, winning exactly `prizeEur` (0 loses): the simulator's ticket factory. */
export function ticket(o: {
  emission?: number;
  block?: number;
  number: number;
  prizeEur?: number;
  keyId?: number;
}): string {
  return ticketCode({
    emission: o.emission ?? 1,
    block: o.block ?? 0,
    number: o.number,
    prize: o.prizeEur ?? 0,
    keyId: o.keyId,
  });
}

/** Emission 1 is on sale, emission 9 closed long ago (its claim deadline has passed at the simulator's clock). */
export function testConfig(over: Partial<Config> = {}): Config {
  return {
    ...defaultConfig(false),
    keys: [{ id: 0, publicKeyHex: TEST_PUBLIC_KEY_HEX }],
    emissions: [
      { emission: 1, closingDate: '2026-12-31' },
      { emission: 9, closingDate: '2026-01-10' },
    ],
    payoutLimitEur: 300,
    ...over,
  };
}

export function writeConfig(chip: NorFlash, cfg: Config): void {
  storeConfig(partitionOf(chip, 'config'), cfg, false);
}

/** A fresh chip with `cfg` on its config partition. */
export function chipWith(cfg: Config = testConfig()): NorFlash {
  const chip = new NorFlash();
  writeConfig(chip, cfg);
  return chip;
}

export function ledgerEntries(chip: NorFlash, sectors = TEST_LEDGER_SECTORS): Payment[] {
  return mirroredEntries(MirroredLedger.open(partitionOf(chip, 'ledger', sectors)));
}

export interface BootOptions {
  variant?: QjsVariant | 'xs';
  deviceId?: string;
  /** Ledger partition size in sectors; 0 = the real layout's whole partition. Default TEST_LEDGER_SECTORS. */
  ledgerSectors?: number;
  /** The real-time clock at power-on (default the simulator's, 2026-06-15T10:00Z). */
  clockMs?: number;
  /** Another bundle than firmware/dist's (a production build). */
  bundle?: string;
  /** A receipt printer on the device (default true). */
  printer?: boolean;
}

/** A Simulator on `chip` running the bundle in developer mode, powered on. `sim.dispose()` when done. */
export async function boot(chip: NorFlash, o: BootOptions = {}): Promise<Simulator> {
  const sim = new Simulator({
    chip,
    bundle: o.bundle ?? (await bundleText()),
    variant: o.variant,
    deviceId: o.deviceId ?? DEVICE_ID,
    ledgerSectors: o.ledgerSectors ?? TEST_LEDGER_SECTORS,
    clockMs: o.clockMs,
    printer: o.printer,
  });
  await sim.boot();
  return sim;
}

/**
 * Boots `chip` with the RTC at `rtc`, runs `f`, shuts the VM down; fails when a fault escaped the app
 * (sim.faults).
 */
export async function bootedAt(
  chip: NorFlash,
  rtc: number | undefined,
  f: (sim: Simulator) => void | Promise<void>,
): Promise<void> {
  const sim = await boot(chip, { clockMs: rtc });
  try {
    await f(sim);
    if (sim.faults.length > 0) throw new Error(`faults escaped the app: ${JSON.stringify(sim.faults)}`);
  } finally {
    sim.dispose();
  }
}

/** A text code arriving on the serial scanner in one piece, with its CR suffix; runs what it causes. */
export async function scanSerial(sim: Simulator, code: string): Promise<void> {
  await serialBytes(
    sim,
    Uint8Array.from(code + '\r', (c) => c.charCodeAt(0) & 0xff),
  );
}

/** Raw bytes on the serial scanner, now. */
export async function serialBytes(sim: Simulator, bytes: Uint8Array): Promise<void> {
  sim.inject('serial', bytes);
  await sim.run(0);
}

/** A camera frame, now. */
export async function showFrame(sim: Simulator, frame: Frame): Promise<void> {
  sim.transmit({ via: 'camera', deliveries: [{ input: 'camera', t: 0, frame }], durationMs: 0 });
  await sim.run(0);
}

/** The last beep's tones. */
export const lastTones = (sim: Simulator) => {
  const b = sim.periph?.beeps ?? [];
  return b[b.length - 1]?.tones;
};

/** hw-sim's peripherals alone, on their own virtual time, for tests of the VM host (no Simulator around). */
export function bareDevice(): { periph: Peripherals; scheduler: Scheduler } {
  const scheduler = new Scheduler();
  const periph = new Peripherals({
    scheduler,
    chip: new NorFlash(),
    rtcBase: () => Date.UTC(2026, 5, 15, 10),
    identity: { deviceId: DEVICE_ID, boardId: 1, imageHash: '', pendingConfirm: false, confirm() {} },
  });
  return { periph, scheduler };
}

/** The screen as one line, for matching. */
export const flat = (lines: string[]) => lines.join(' | ');
