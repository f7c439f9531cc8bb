// The simulated device's NOR flash chip and how it is divided. The firmware sees only the `config` and
// `ledger` partitions (HAL Flash); the bootloader owns the image slots and its boot state.

/**
 * The device class's NOR chip: 4 MiB. The partitions below take 3 432 KiB (`LAYOUT_BYTES`), the
 * mirrored ledger alone 2 056 KiB, so a 2 MiB part cannot hold this layout: it would need the
 * ledger's capacity halved (12 954 payments) and 256 KiB image slots (docs/firmware.md, *Device class
 * and budgets*). test/core/layout.test.ts checks that the partitions fit and do not overlap.
 */
export const CHIP_SIZE = 4 * 1024 * 1024;
export const SECTOR_SIZE = 4096;

export interface Partition {
  offset: number;
  size: number;
}

export const LAYOUT = {
  slotA: { offset: 0x000000, size: 0x080000 },
  slotB: { offset: 0x080000, size: 0x080000 },
  bootState: { offset: 0x100000, size: 0x002000 },
  config: { offset: 0x102000, size: 0x002000 },
  /** The operator's signed notice, two sectors (src/notice.ts; docs/operations.md). */
  notice: { offset: 0x104000, size: 0x002000 },
  // Two time-mark sectors, then two mirrored logs of 1 MiB (src/ledger/mirror.ts).
  ledger: { offset: 0x110000, size: 0x202000 },
  /** Write-once provisioning area (the device's trust anchors, rom/provision.ts): never erased. */
  otp: { offset: 0x3ff000, size: 0x001000 },
  /** The check journal: the last Z report's time, then a ring of every verdict shown (src/journal.ts). */
  journal: { offset: 0x312000, size: 0x040000 },
  /** Offline payments waiting for the fleet registry (src/registry/outbox.ts). */
  outbox: { offset: 0x3c0000, size: 0x010000 },
  /** The bootloader's record of an update in progress (rom/update.ts): survives a power cut. */
  updateJournal: { offset: 0x3f0000, size: 0x001000 },
} as const satisfies Record<string, Partition>;

/** Bytes the partitions take together (3 432 KiB). */
export const LAYOUT_BYTES = Object.values(LAYOUT).reduce((n, p) => n + p.size, 0);
