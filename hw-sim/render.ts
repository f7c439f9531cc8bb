// Drawing the simulated display as text for a terminal (hw-sim/png.ts draws the PNG). Portable.
import type { LedColor } from '../src/hal.ts';
import { screenRows } from './pixels.ts';

export interface Panel {
  lines: readonly string[];
  rows: number;
  columns: number;
  led: LedColor;
}

export { screenRows };

/** A framed text drawing of the display and the LED. */
export function drawText(p: Panel, caption = ''): string {
  const led = p.led === 'green' ? '(G)' : p.led === 'red' ? '(R)' : '( )';
  const top = `┌${'─'.repeat(p.columns)}┐ LED ${led}${caption ? '  ' + caption : ''}`;
  const body = screenRows(p).map((l) => `│${l}│`);
  return [top, ...body, `└${'─'.repeat(p.columns)}┘`].join('\n');
}
