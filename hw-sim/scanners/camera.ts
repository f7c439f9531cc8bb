// A camera scanner: the ticket's QR code (rendered with `qrcode`, error correction M) seen in a grey
// Y8 frame, with seeded blur, noise, perspective and glare. Levels are 0 (none) … 1 (strong).
import { create } from 'qrcode/lib/core/qrcode.js';
import type { Frame } from '../../src/hal.ts';
import type { Rng } from '../rng.ts';
import type { Delivery, Transmission } from './types.ts';
import { ScannerOptionError } from './types.ts';

export interface CameraScanOptions {
  width?: number;
  height?: number;
  /** Pixels a QR module covers at the centre (default 5). */
  module?: number;
  blur?: number;
  noise?: number;
  perspective?: number;
  glare?: number;
  /** Frames showing the code, at `fps` (default 1 frame, 10 fps). */
  frames?: number;
  fps?: number;
}

const LEVELS = ['blur', 'noise', 'perspective', 'glare'] as const;

/** The QR modules of `text`: size × size, 1 = dark. */
export function qrModules(text: string): { size: number; dark: Uint8Array } {
  const qr = create(text, { errorCorrectionLevel: 'M' });
  const { size, data } = qr.modules as unknown as { size: number; data: Uint8Array };
  return { size, dark: Uint8Array.from(data, (v) => (v ? 1 : 0)) };
}

/** The last codes' modules, read only: a schedule shows the same few tickets to the camera again and again. */
const recent = new Map<string, { size: number; dark: Uint8Array }>();
function modulesOf(text: string): { size: number; dark: Uint8Array } {
  let m = recent.get(text);
  if (!m) {
    m = qrModules(text);
    if (recent.size >= 16) recent.delete(recent.keys().next().value as string);
    recent.set(text, m);
  }
  return m;
}

/** 3×3 homography solving the 4 point correspondences src[i] → dst[i]. */
function homography(src: number[][], dst: number[][]): number[] {
  const a: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = src[i];
    const [u, v] = dst[i];
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(a[r][c]) > Math.abs(a[p][c])) p = r;
    [a[c], a[p]] = [a[p], a[c]];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = a[r][c] / a[c][c];
      for (let k = c; k < 9; k++) a[r][k] -= f * a[c][k];
    }
  }
  const h = a.map((row, i) => row[8] / row[i]);
  h.push(1);
  return h;
}

export function renderQrFrame(text: string, opts: CameraScanOptions, rng: Rng): Frame {
  const width = opts.width ?? 640;
  const height = opts.height ?? 480;
  if (!(
    Number.isInteger(width) &&
    Number.isInteger(height) &&
    width >= 64 &&
    height >= 64 &&
    width * height <= 4096 * 4096
  )) {
    throw new ScannerOptionError('width and height must be integers from 64 (at most 16 Mpixel)');
  }
  for (const k of LEVELS) {
    const v = opts[k] ?? 0;
    if (!(v >= 0 && v <= 1)) throw new ScannerOptionError(`${k} must be from 0 to 1`);
  }
  const { size, dark } = modulesOf(text);
  const quiet = 4;
  const total = size + 2 * quiet;
  const module = opts.module ?? 5;
  if (!(module >= 1 && module * total <= Math.min(width, height) * 1.5))
    throw new ScannerOptionError('module size does not fit the frame');
  const side = module * total;
  const cx = width / 2 + (rng.next() - 0.5) * Math.max(0, width - side) * 0.3;
  const cy = height / 2 + (rng.next() - 0.5) * Math.max(0, height - side) * 0.3;
  // The ticket's corners in the frame: a square, tilted by `perspective`.
  const p = (opts.perspective ?? 0) * 0.25 * side;
  const j = () => (rng.next() - 0.5) * 2 * p;
  const h = side / 2;
  const corners = [
    [cx - h + j(), cy - h + j()],
    [cx + h + j(), cy - h + j()],
    [cx + h + j(), cy + h + j()],
    [cx - h + j(), cy + h + j()],
  ];
  // Frame → ticket coordinates (in modules, 0 … total).
  const m = homography(corners, [
    [0, 0],
    [total, 0],
    [total, total],
    [0, total],
  ]);
  const paper = 200 + rng.int(30);
  const background = 60 + rng.int(40);
  const ink = 30 + rng.int(20);
  let img: Uint8Array = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const w = m[6] * x + m[7] * y + m[8];
      const u = (m[0] * x + m[1] * y + m[2]) / w;
      const v = (m[3] * x + m[4] * y + m[5]) / w;
      let g = background;
      if (u >= 0 && v >= 0 && u < total && v < total) {
        const c = Math.floor(u) - quiet;
        const r = Math.floor(v) - quiet;
        g = c >= 0 && r >= 0 && c < size && r < size && dark[r * size + c] ? ink : paper;
      }
      img[y * width + x] = g;
    }
  }
  const blur = Math.round((opts.blur ?? 0) * module * 0.8);
  if (blur > 0) img = boxBlur(img, width, height, blur);
  const glare = opts.glare ?? 0;
  if (glare > 0) {
    const gx = cx + (rng.next() - 0.5) * side * 0.6;
    const gy = cy + (rng.next() - 0.5) * side * 0.6;
    const radius = side * (0.1 + 0.25 * glare);
    const r2 = radius * radius;
    for (let y = Math.max(0, Math.floor(gy - radius)); y < Math.min(height, gy + radius); y++) {
      for (let x = Math.max(0, Math.floor(gx - radius)); x < Math.min(width, gx + radius); x++) {
        const d = ((x - gx) ** 2 + (y - gy) ** 2) / r2;
        if (d < 1) {
          const i = y * width + x;
          img[i] = Math.min(255, img[i] + (255 - img[i]) * glare * (1 - d) * 0.9);
        }
      }
    }
  }
  const noise = (opts.noise ?? 0) * 40;
  if (noise > 0) {
    for (let i = 0; i < img.length; i++) img[i] = Math.max(0, Math.min(255, img[i] + rng.normal() * noise));
  }
  return { width, height, format: 'y8', data: img };
}

function boxBlur(src: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const tmp = new Uint8Array(src.length);
  const out = new Uint8Array(src.length);
  const n = 2 * r + 1;
  for (let y = 0; y < h; y++) {
    let sum = 0;
    const row = y * w;
    for (let k = -r; k <= r; k++) sum += src[row + Math.min(w - 1, Math.max(0, k))];
    for (let x = 0; x < w; x++) {
      tmp[row + x] = sum / n;
      sum += src[row + Math.min(w - 1, x + r + 1)] - src[row + Math.max(0, x - r)];
    }
  }
  for (let x = 0; x < w; x++) {
    let sum = 0;
    for (let k = -r; k <= r; k++) sum += tmp[Math.min(h - 1, Math.max(0, k)) * w + x];
    for (let y = 0; y < h; y++) {
      out[y * w + x] = sum / n;
      sum += tmp[Math.min(h - 1, y + r + 1) * w + x] - tmp[Math.max(0, y - r) * w + x];
    }
  }
  return out;
}

export function cameraTransmit(code: string, opts: CameraScanOptions, rng: Rng): Transmission {
  const frames = opts.frames ?? 1;
  const fps = opts.fps ?? 10;
  if (!(Number.isInteger(frames) && frames >= 1 && frames <= 100))
    throw new ScannerOptionError('frames must be from 1 to 100');
  if (!(fps > 0 && fps <= 120)) throw new ScannerOptionError('fps must be from 1 to 120');
  const deliveries: Delivery[] = [];
  for (let i = 0; i < frames; i++) {
    deliveries.push({ input: 'camera', t: (i + 1) * (1000 / fps), frame: renderQrFrame(code, opts, rng) });
  }
  return { via: 'camera', deliveries, durationMs: deliveries[deliveries.length - 1].t };
}
