// The display's pixels (RGBA): dark dots on a green backlight with the LED below, as the PNG
// screenshots (render.ts) and the web page's canvas draw it. Portable: no Node, no pngjs.
import type { LedColor } from '../src/hal.ts';
import { GLYPH_HEIGHT, GLYPH_WIDTH, glyph } from './font.ts';

export interface PanelLike {
  lines: readonly string[];
  rows: number;
  columns: number;
  led: LedColor;
}

/** The screen padded to its size, one string a row. */
export function screenRows(p: PanelLike): string[] {
  const out: string[] = [];
  for (let r = 0; r < p.rows; r++) out.push((p.lines[r] ?? '').slice(0, p.columns).padEnd(p.columns));
  return out;
}

/** `scale` screen pixels a dot. */
export function drawPixels(p: PanelLike, scale = 3): { width: number; height: number; data: Uint8Array } {
  const cellW = GLYPH_WIDTH + 1;
  const cellH = GLYPH_HEIGHT + 1;
  const margin = 4;
  const ledH = 6;
  const w = (p.columns * cellW + 2 * margin) * scale;
  const h = (p.rows * cellH + 2 * margin + ledH) * scale;
  const data = new Uint8Array(w * h * 4);
  const put = (x: number, y: number, rgb: [number, number, number]) => {
    for (let dy = 0; dy < scale; dy++) {
      for (let dx = 0; dx < scale; dx++) {
        const i = ((y * scale + dy) * w + x * scale + dx) * 4;
        data[i] = rgb[0];
        data[i + 1] = rgb[1];
        data[i + 2] = rgb[2];
        data[i + 3] = 255;
      }
    }
  };
  const bg: [number, number, number] = [150, 190, 60];
  const dim: [number, number, number] = [138, 176, 56];
  const ink: [number, number, number] = [20, 40, 10];
  for (let y = 0; y < h / scale; y++) for (let x = 0; x < w / scale; x++) put(x, y, bg);
  const rows = screenRows(p);
  rows.forEach((line, r) => {
    [...line].forEach((ch, c) => {
      const cols = glyph(ch);
      for (let gx = 0; gx < GLYPH_WIDTH; gx++) {
        for (let gy = 0; gy < GLYPH_HEIGHT; gy++) {
          const on = (cols[gx] >> gy) & 1;
          put(margin + c * cellW + gx, margin + r * cellH + gy, on ? ink : dim);
        }
      }
    });
  });
  const ledColor: [number, number, number] =
    p.led === 'green' ? [0, 220, 0] : p.led === 'red' ? [230, 0, 0] : [60, 60, 60];
  const ly = margin + p.rows * cellH + 1;
  for (let y = ly; y < ly + ledH - 2; y++) for (let x = margin; x < margin + 8; x++) put(x, y, ledColor);
  return { width: w, height: h, data };
}
