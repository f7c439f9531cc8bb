// The fault explorer's menu: every kind of operation a schedule can draw, with its weight and the
// promise (invariant) it puts to the test. Kinds behind a gate are drawn only when that gate is on:
// they test promises today's firmware does not keep yet (issue #9), and are switched on once it does.

/** Groups of operations that are off unless asked for (`--faults ledger-damage,clock-back`). */
export const GATES = ['ledger-damage', 'clock-back'] as const;
export type Gate = (typeof GATES)[number];

export interface MenuEntry {
  kind: OpKind;
  weight: number;
  /** The invariants (docs/explorer.md) this kind of operation mostly puts to the test. */
  tests: readonly number[];
  gate?: Gate;
  what: string;
}

export const MENU = [
  {
    kind: 'scan-ticket',
    weight: 30,
    tests: [1, 3],
    what: 'a genuine ticket of the schedule (winning, losing, expired, foreign emission, maybe already paid) through any scanner and option',
  },
  { kind: 'pay', weight: 10, tests: [1, 2], what: 'a ticket scanned, then OK after a random pause' },
  { kind: 'scan-forged', weight: 5, tests: [3], what: 'a ticket signed with an unknown key' },
  { kind: 'scan-mutated', weight: 4, tests: [3], what: 'a genuine code with one character changed' },
  { kind: 'scan-foreign', weight: 2, tests: [3], what: 'a code signed with the trusted key for another game' },
  {
    kind: 'scan-untabled',
    weight: 2,
    tests: [3],
    what: 'a code signed with the trusted key whose win (20, 40, 50, 100, 1 000 or 5 000 €) is no prize of the table',
  },
  {
    kind: 'scan-garbage',
    weight: 3,
    tests: [3, 4],
    what: 'random text, sometimes starting SPH1:, through any scanner',
  },
  { kind: 'flood', weight: 2, tests: [3, 4, 6], what: '3 to 12 scans back to back (garbage and genuine)' },
  { kind: 'press-ok', weight: 10, tests: [1, 2], what: 'OK at any moment' },
  { kind: 'press-c', weight: 5, tests: [1, 2], what: 'C at any moment' },
  {
    kind: 'press-during-scan',
    weight: 4,
    tests: [1, 2, 3],
    what: 'OK, C or a digit pressed while a code is still arriving',
  },
  { kind: 'press-digit', weight: 3, tests: [4], what: 'a digit key' },
  { kind: 'delay', weight: 8, tests: [4], what: '10 ms to 90 s: verdicts and payment offers time out' },
  { kind: 'clock-forward', weight: 3, tests: [3], what: 'the real-time clock moved forward (minutes to a year)' },
  { kind: 'reboot', weight: 3, tests: [2, 4], what: 'a clean reboot' },
  { kind: 'power-cut', weight: 2, tests: [2, 4], what: 'power cut now, then boot' },
  {
    kind: 'cut-at-flash-op',
    weight: 6,
    tests: [1, 2, 4],
    what: 'power cut in the middle of the N-th flash operation from now (payments, compaction at boot)',
  },
  {
    kind: 'update',
    weight: 3,
    tests: [5],
    what: 'a firmware update (newer, older, forged or same image) written to the inactive slot, maybe cut at its N-th flash operation, then a reboot (on devices that boot images: a third of schedules)',
  },
  {
    kind: 'clock-back',
    weight: 3,
    tests: [1, 3],
    gate: 'clock-back',
    what: 'the real-time clock moved back (hours to a year)',
  },
  { kind: 'flip-bit', weight: 2, tests: [1, 2], gate: 'ledger-damage', what: 'one bit of the ledger flipped' },
  { kind: 'lose-sector', weight: 1, tests: [1, 2], gate: 'ledger-damage', what: 'one sector of the ledger erased' },
] as const satisfies readonly { kind: string; weight: number; tests: readonly number[]; gate?: Gate; what: string }[];

export type OpKind = (typeof MENU)[number]['kind'] | 'boot' | 'settle';

/** The invariants, numbered as in issue #10 and docs/explorer.md. */
export const INVARIANTS: Record<number, string> = {
  1: 'a ticket shown PAYÉ is never payable again',
  2: 'the ledger holds exactly the payments shown PAYÉ (amounts and ids)',
  3: 'every verdict is the model’s: forged, mutated and garbage never win, losers lose, expired never payable',
  4: 'back to PRÊT after any fault; no reset, no unhandled exception',
  5: 'a firmware update completes and confirms, or the previous image keeps running; always a bootable image; anti-rollback never goes down',
  6: 'the firmware heap stays bounded',
};

export function gatesOf(list: readonly string[]): Gate[] {
  const out: Gate[] = [];
  for (const g of list) {
    if (g === 'all') return [...GATES];
    if (g === 'none') return [];
    if (!(GATES as readonly string[]).includes(g))
      throw new RangeError(`unknown fault group '${g}' (known: ${GATES.join(', ')}, all)`);
    out.push(g as Gate);
  }
  return out;
}
