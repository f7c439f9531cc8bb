// The heap figures the budgets of the device class are judged on (docs/firmware.md "Device class and
// budgets"), measured on a bundle in QuickJS on the simulator's device: the text path (a session of
// every kind of scan on a young ledger) and the full ledger (the whole partition filled to capacity,
// booted, then scans, a refused payment and an X report that reads every payment), the camera path, and
// both with a fleet registry configured (its link compiled at boot: `registryPathHeap`). All are
// `Simulator.heapDevice()` peaks, sampled after each entry. Run by `npm run build` (build.mjs), by
// test/firmware/heap-full.test.ts and by `npm run bench -- firmware`. The caller installs the host
// (hw-sim/node-host.ts).
import './function-source.ts';
import { NorFlash } from './nor-flash.ts';
import { partitionFlash } from './device.ts';
import { LAYOUT } from '../rom/layout.ts';
import { Simulator, type SimVariant } from './sim.ts';
import { simHost } from './host.ts';
import { ticketCode } from './tickets.ts';
import { cameraTransmit } from './scanners/camera.ts';
import { transmit } from './scanners/index.ts';
import { seededRng } from './rng.ts';
import { MirroredLedger } from '../src/ledger/index.ts';
import { defaultConfig, storeConfig, type Config } from '../src/config.ts';
import { TEST_PUBLIC_KEY_HEX } from '../src/sph1/keys.ts';
import type { Key } from '../src/hal.ts';
import { attacker } from './attacker.ts';
import { DEV_REGISTRY_SEED_HEX } from '../src/registry/protocol.ts';
import { fromHex } from '../src/hex.ts';
import { DEV_OPERATOR_SEED_HEX, signNotice, storeNotice } from '../src/notice.ts';

const PAID_AT = Date.UTC(2026, 5, 14);

function chipWith(over: Partial<Config> = {}): NorFlash {
  const chip = new NorFlash();
  const cfg: Config = {
    ...defaultConfig(false),
    keys: [{ id: 0, publicKeyHex: TEST_PUBLIC_KEY_HEX }],
    emissions: [{ emission: 1, closingDate: '2026-12-31' }],
    ...over,
  };
  storeConfig(partitionFlash(chip, 'config', 0), cfg, false);
  return chip;
}

const code = (block: number, number: number, prize: number) => ticketCode({ emission: 1, block, number, prize });

/** Called after the boot and after every step (the XS bench reads XS's meters there). */
export type HeapProbe = (sim: Simulator) => void;

/** A scan by a HID scanner (its decoders are compiled on the first report, firmware/hid.ts). */
interface HidScan {
  via: 'hid-keyboard' | 'hid-pos';
  code: string;
}

async function session(
  sim: Simulator,
  steps: (string | Key | HidScan)[],
  probe?: HeapProbe,
  stepMs = 0,
): Promise<number> {
  let peak = sim.heapDevice();
  probe?.(sim);
  for (const s of steps) {
    if (typeof s !== 'string') {
      const done = sim.transmit(transmit(s.via, s.code, {}, sim.rng));
      await sim.run(done - sim.now + 50);
      if (!/GAGNANT|PERDANT/.test(sim.screen[0] ?? ''))
        throw new Error(`heap budget: the ${s.via} scan was not read (${sim.screen.join(' | ')})`);
    } else if (s.length > 2)
      sim.inject(
        'serial',
        Uint8Array.from(s + '\r', (c) => c.charCodeAt(0) & 0xff),
      );
    else await sim.press(s as Key);
    await sim.run(stepMs);
    peak = Math.max(peak, sim.heapDevice());
    probe?.(sim);
  }
  return peak;
}

export interface HeapFigure {
  /** Peak of `heapDevice()` over the session, bytes. */
  peak: number;
  /** Right after boot. */
  boot: number;
  /** Payments the ledger held. */
  payments: number;
  /** What the screen showed last (for a caller's message). */
  screen: string;
}

/** The ledger partition's bytes once filled, by `room`: filling it is ~1 s of CPU, and the cases fill it alike. */
const filled = new Map<number, { bytes: Uint8Array; count: number }>();
/** The rooms the cases leave (8: the camera path's): a fill stops there first and is kept, then goes on. */
const BASE_ROOM = 8;

/** Fills the chip's ledger partition (both logs) up to `room` payments short of its capacity; returns the count. */
function fillLedger(chip: NorFlash, room: number): number {
  const { offset, size } = LAYOUT.ledger;
  const kept = filled.get(room);
  if (kept) {
    chip.bytes.set(kept.bytes, offset); // a fresh chip's ledger, never read yet: as if built with these bytes
    return kept.count;
  }
  // Below the base room, the base's payments first (the same bytes as one fill: the same records in order).
  const base = room < BASE_ROOM ? fillLedger(chip, BASE_ROOM) : 0;
  const l = MirroredLedger.open(partitionFlash(chip, 'ledger', 0), { deviceId: 'SPH-000042' });
  for (let i = base; i < l.capacity - room; i++)
    l.record({ emission: 1, block: 1 + (i >> 12), number: i & 4095, prizeEur: 150, paidAtMs: PAID_AT + i });
  filled.set(room, { bytes: chip.bytes.slice(offset, offset + size), count: l.count });
  return l.count;
}

/**
 * With `registry`: a fleet device: the registry configured, the device's network answered in the process,
 * an operator notice on flash (below).
 */
const REGISTRY_URL = 'http://127.0.0.1:9/';
const SYNC_MS = 5000;
/** Virtual time after each entry with a registry: a claim's answer comes back within it. */
const REGISTRY_STEP_MS = 300;

/**
 * Stores on `chip` the operator notice a fleet device holds: the configuration's emission and limits,
 * signed with the development operator key the simulator provisions.
 */
export function storeDevNotice(chip: NorFlash): void {
  const c = defaultConfig(false);
  const n = {
    version: 1,
    payout_limit_eur: c.payoutLimitEur,
    offline_limit_eur: c.offlineLimitEur,
    id_threshold_eur: c.idThresholdEur,
    emissions: [{ number: 1, name: 'SAPHIR', on_sale: '2026-01-05', closes: '2026-12-31' }],
    holidays: [],
  };
  const seed = fromHex(DEV_OPERATOR_SEED_HEX);
  storeNotice(
    partitionFlash(chip, 'notice', 0),
    signNotice(n, (m) => simHost().sign(m, seed)),
    null,
  );
}

function simulator(
  o: { chip: NorFlash; bundle: string; ledgerSectors: number; variant: SimVariant },
  registry: boolean,
): Simulator {
  // A fleet device holds an operator notice (docs/operations.md), as the registry brings them.
  if (registry) storeDevNotice(o.chip);
  const sim = new Simulator({ ...o, deviceId: 'SPH-000042', registry: registry ? REGISTRY_URL : undefined });
  // A registry that grants every payment, its answers signed with the development registry key (the one
  // the simulator provisions): hw-sim/attacker.ts's fake registry, as the device cannot tell it apart.
  if (registry) sim.network!.mitm = attacker('fake', fromHex(DEV_REGISTRY_SEED_HEX));
  return sim;
}

/** Runs until a sync has gone and been answered (the outbox pushed, or a heartbeat); samples the peak. */
async function synced(sim: Simulator, probe?: HeapProbe): Promise<number> {
  const sent = () => sim.network!.sent.filter((r) => r.path !== '/v1/claim' && r.status === 200).length;
  const before = sent();
  let peak = 0;
  for (let t = 0; t < 12 * SYNC_MS && sent() === before; t += 500) {
    await sim.run(500);
    peak = Math.max(peak, sim.heapDevice());
    probe?.(sim);
  }
  if (sent() === before) throw new Error('heap budget: no sync answered');
  // The info screen (3, OK) says the notice in force.
  for (const k of ['3', 'OK'] as const) await sim.press(k);
  await sim.run(0);
  if (!sim.screen.some((l) => /^AVIS n° 1$/.test(l.trim())))
    throw new Error(`heap budget: the operator notice is not in force (${sim.screen.join(' | ')})`);
  await sim.press('C');
  await sim.run(0);
  peak = Math.max(peak, sim.heapDevice());
  probe?.(sim);
  return peak;
}

/** The whole ledger partition filled to capacity (the same payments in both logs), then booted. */
export async function fullLedgerHeap(
  bundle: string,
  variant: SimVariant = 'quickjs',
  probe?: HeapProbe,
  registry = false,
): Promise<HeapFigure> {
  const chip = chipWith(registry ? { registryUrl: REGISTRY_URL, syncIntervalMs: SYNC_MS } : {});
  const payments = fillLedger(chip, 0);
  const sim = simulator({ chip, bundle, ledgerSectors: 0, variant }, registry);
  await sim.boot();
  try {
    const boot = sim.heapDevice();
    const peak = await session(
      sim,
      [
        code(1, 7, 150), // DÉJÀ PAYÉ
        'C',
        code(9, 1, 150), // a win: OK, then the ledger is full
        'OK',
        'C',
        code(9, 2, 0), // a losing ticket
        'C',
        'garbage',
        'C',
        '1', // the X report: every payment read
        'OK',
        'C',
      ],
      probe,
      registry ? REGISTRY_STEP_MS : 0,
    );
    const sync = registry ? await synced(sim, probe) : 0;
    return { peak: Math.max(boot, peak, sync), boot, payments, screen: sim.screen.join(' | ') };
  } finally {
    sim.dispose();
  }
}

/**
 * The text path with a fleet registry configured: its link compiled at boot, every win claimed and
 * granted before it is paid, then a sync pushing the outbox (the registry answers in the process).
 */
export async function registryPathHeap(
  bundle: string,
  variant: SimVariant = 'quickjs',
  probe?: HeapProbe,
): Promise<HeapFigure> {
  const chip = chipWith({ registryUrl: REGISTRY_URL, syncIntervalMs: SYNC_MS });
  const sim = simulator({ chip, bundle, ledgerSectors: 16, variant }, true);
  await sim.boot();
  try {
    const boot = sim.heapDevice();
    const peak = await session(sim, textSteps(), probe, REGISTRY_STEP_MS);
    const sync = await synced(sim, probe);
    return {
      peak: Math.max(boot, peak, sync),
      boot,
      payments: sim.ledger().length,
      screen: sim.screen.join(' | '),
    };
  } finally {
    sim.dispose();
  }
}

/**
 * 120 scans of every kind: garbage, losing tickets, wins paid (OK), wins left (C); then one by each HID
 * scanner, a keyboard wedge and a HID POS (their decoders compiled then).
 */
function textSteps(): (string | HidScan)[] {
  const steps: (string | HidScan)[] = [];
  for (let i = 0; i < 120; i++) {
    const kind = i % 4;
    steps.push(kind === 0 ? 'garbage' : code(0, 1000 + i, kind === 1 ? 0 : kind === 2 ? 150 : 500));
    steps.push(kind === 2 ? 'OK' : 'C');
  }
  steps.push({ via: 'hid-keyboard', code: code(0, 2000, 0) }, 'C', { via: 'hid-pos', code: code(0, 2001, 500) }, 'C');
  return steps;
}

/** A young ledger (the tests' 16-sector slice): 120 scans of every kind, payments, keys. */
export async function textPathHeap(
  bundle: string,
  variant: SimVariant = 'quickjs',
  probe?: HeapProbe,
): Promise<HeapFigure> {
  const sim = new Simulator({ chip: chipWith(), bundle, deviceId: 'SPH-000042', ledgerSectors: 16, variant });
  await sim.boot();
  try {
    const boot = sim.heapDevice();
    const peak = await session(sim, textSteps(), probe);
    return { peak: Math.max(boot, peak), boot, payments: 30, screen: sim.screen.join(' | ') };
  } finally {
    sim.dispose();
  }
}

/**
 * The camera path after its first frame (it is compiled then and stays): four camera frames of codes
 * (a win paid, a losing ticket, a paid one again, a win refused), on a young ledger, or on the full one
 * with `full`; with `registry`, on a fleet device (its link and notice compiled, the win claimed, then a
 * sync): with `full` too, the largest state a device reaches. The peak is sampled after each frame and each key; `screen`: the first line after each frame.
 */
export async function cameraPathHeap(
  bundle: string,
  variant: SimVariant = 'quickjs',
  probe?: HeapProbe,
  full = false,
  registry = false,
): Promise<HeapFigure> {
  const chip = chipWith(registry ? { registryUrl: REGISTRY_URL, syncIntervalMs: SYNC_MS } : {});
  const payments = full ? fillLedger(chip, 8) : 0;
  const sim = simulator({ chip, bundle, ledgerSectors: full ? 0 : 16, variant }, registry);
  await sim.boot();
  try {
    const boot = sim.heapDevice();
    let peak = boot;
    probe?.(sim);
    const rng = seededRng(34);
    const seen: string[] = [];
    for (const [c, key] of [
      [code(9, 1, 150), 'OK'],
      [code(9, 2, 0), 'C'],
      [code(9, 1, 150), 'C'],
      [code(9, 3, 500), 'C'],
    ] as const) {
      sim.transmit(cameraTransmit(c, { module: 4 }, rng));
      await sim.run(200);
      seen.push(sim.screen[0]);
      peak = Math.max(peak, sim.heapDevice());
      probe?.(sim);
      await sim.press(key);
      await sim.run(registry ? REGISTRY_STEP_MS : 0);
      peak = Math.max(peak, sim.heapDevice());
      probe?.(sim);
    }
    if (registry) peak = Math.max(peak, await synced(sim, probe));
    return { peak, boot, payments, screen: seen.join(' | ') };
  } finally {
    sim.dispose();
  }
}
