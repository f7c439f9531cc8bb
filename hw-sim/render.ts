// Drawing the simulated display: as text for a terminal, and as a PNG (pngjs) with the bitmap font.
import { PNG } from 'pngjs';
import type { LedColor } from '../src/hal.ts';
import { drawPixels, screenRows } from './pixels.ts';

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

/** The display as a PNG: dark pixels on a green backlight, `scale` screen pixels a dot. */
export function drawPng(p: Panel, scale = 3): Buffer {
  const px = drawPixels(p, scale);
  const png = new PNG({ width: px.width, height: px.height });
  png.data.set(px.data);
  return PNG.sync.write(png);
}
