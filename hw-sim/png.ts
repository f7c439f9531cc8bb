// The simulated display as a PNG (pngjs) with the bitmap font, for screenshots. Node-only.
import { PNG } from 'pngjs';
import { drawPixels } from './pixels.ts';
import type { Panel } from './render.ts';

/** The display as a PNG: dark pixels on a green backlight, `scale` screen pixels a dot. */
export function drawPng(p: Panel, scale = 3): Buffer {
  const px = drawPixels(p, scale);
  const png = new PNG({ width: px.width, height: px.height });
  png.data.set(px.data);
  return PNG.sync.write(png);
}
