// What the customer hears and sees, whatever the clerk says: one beep pattern and one LED colour per
// outcome. The firmware plays them; the simulator recognises the patterns by comparing with this table. Portable.
import type { LedColor, Tone } from './hal.ts';

export type Signal = 'boot' | 'key' | 'win' | 'bigwin' | 'lose' | 'refused' | 'paid' | 'error';

/** Distinct patterns: win rises, lose falls, refused is a low buzz, paid a double high chirp. */
export const BEEPS: Record<Signal, readonly Tone[]> = {
  boot: [{ hz: 1000, ms: 60 }],
  key: [{ hz: 2000, ms: 20 }],
  win: [
    { hz: 880, ms: 120 },
    { hz: 1320, ms: 120 },
    { hz: 1760, ms: 240 },
  ],
  /** A win from the big-win amount (config `bigWinFromEur`): the win's rise, twice, held longer. */
  bigwin: [
    { hz: 880, ms: 120 },
    { hz: 1320, ms: 120 },
    { hz: 1760, ms: 240 },
    { hz: 0, ms: 80 },
    { hz: 880, ms: 120 },
    { hz: 1320, ms: 120 },
    { hz: 1760, ms: 600 },
  ],
  lose: [
    { hz: 660, ms: 150 },
    { hz: 440, ms: 300 },
  ],
  refused: [
    { hz: 220, ms: 200 },
    { hz: 0, ms: 80 },
    { hz: 220, ms: 200 },
    { hz: 0, ms: 80 },
    { hz: 220, ms: 200 },
  ],
  paid: [
    { hz: 2093, ms: 80 },
    { hz: 0, ms: 60 },
    { hz: 2093, ms: 80 },
  ],
  error: [{ hz: 150, ms: 600 }],
};

/** LED colour held while the outcome is on screen (back to off on the ready screen). */
export const LEDS: Record<Signal, LedColor> = {
  boot: 'off',
  key: 'off',
  win: 'green',
  bigwin: 'green',
  lose: 'red',
  refused: 'red',
  paid: 'green',
  error: 'red',
};
