// Shared by the firmware tests: the real bundle (built when missing or stale), tickets signed with the
// test key, a test configuration written to the config partition, and a VM booted on a TestDevice.
import { readFileSync } from 'node:fs';
import { QjsDevice, type QjsVariant } from '../../hw-sim/qjs-host.ts';
import { TEST_PUBLIC_KEY_HEX } from '../../src/sph1/keys.ts';
import { MirroredLedger, mirroredEntries, type Payment } from '../../src/ledger/index.ts';
import { encodeConfig, defaultConfig, type Config } from '../../firmware/config.ts';
import { TestDevice, newChip, partitionOf } from './test-device.ts';
import type { NorFlash } from '../../hw-sim/nor-flash.ts';
import { ensureBuilt } from '../../tools/build.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { VM_LIMITS } from '../../hw-sim/sim.ts';
import '../../hw-sim/node-host.ts';

export { ROOT as ROOT_DIR } from '../../tools/paths.ts';

let bundle: string | undefined;
export async function bundleText(): Promise<string> {
  if (!bundle) {
    bundle = readFileSync(await ensureBuilt(), 'utf8');
  }
  return bundle;
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

/** Emission 1 is on sale, emission 9 closed long ago (its claim deadline has passed at TestDevice's clock). */
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
  const part = partitionOf(chip, 'config');
  part.eraseBlock(0);
  part.eraseBlock(1);
  part.write(encodeConfig(cfg), 0);
}

/** A fresh chip with `cfg` on its config partition. */
export function chipWith(cfg: Config = testConfig()): NorFlash {
  const chip = newChip();
  writeConfig(chip, cfg);
  return chip;
}

export function ledgerEntries(chip: NorFlash): Payment[] {
  return mirroredEntries(MirroredLedger.open(partitionOf(chip, 'ledger')));
}

export interface Booted {
  td: TestDevice;
  vm: QjsDevice;
}

export async function boot(
  chip: NorFlash,
  variant: QjsVariant = 'quickjs',
  td = new TestDevice({ chip }),
): Promise<Booted> {
  const vm = await QjsDevice.start({ bundle: await bundleText(), device: td.device, variant, ...VM_LIMITS });
  return { td, vm };
}

/** The screen as one line, for matching. */
export const flat = (lines: string[]) => lines.join(' | ');
