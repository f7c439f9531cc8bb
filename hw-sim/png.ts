// The simulated display as a PNG (pngjs) with the bitmap font, for screenshots. Node-only.
import { createRequire } from 'node:module';
import { drawPixels } from './pixels.ts';
import type { Panel } from './render.ts';

type PngJs = typeof import('pngjs');
/** pngjs, loaded at the first screenshot: its ~20 files cost each simulator process ~30 ms at start. */
let pngjs: PngJs | undefined;
const loadPngjs = (): PngJs => (pngjs ??= createRequire(import.meta.url)('pngjs') as PngJs);

/** The display as a PNG: dark pixels on a green backlight, `scale` screen pixels a dot. */
export function drawPng(p: Panel, scale = 3): Buffer {
  const { PNG } = loadPngjs();
  const px = drawPixels(p, scale);
  const png = new PNG({ width: px.width, height: px.height });
  png.data.set(px.data);
  return PNG.sync.write(png);
}
