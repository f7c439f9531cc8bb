// A fixed, seeded set of degraded 640×480 grey camera frames of real SPH1 codes: module size 3–6 px,
// anywhere in the frame, any rotation, perspective (keystone) up to 0.3, blur up to 0.3 module, noise
// up to 0.3 (σ = 0.3 × 25 grey levels), glare on half of them, uneven background. Same seed, same
// frames. Used by bench/input.bench.ts (camera_first_frame_rate) and test/input/camera.test.ts.
import QRCode from 'qrcode';
import { makeRng, type Rng } from '../../src/gen/index.ts';
import type { Frame } from '../../src/hal.ts';

export interface Degradation {
  px: number;
  perspective: number;
  blur: number;
  noise: number;
  glare: number;
  angle: number;
}

export interface DegradedFrame {
  frame: Frame;
  text: string;
  d: Degradation;
}

const W = 640;
const H = 480;

/** The homography taking the unit square's corners (0,0) (1,0) (1,1) (0,1) to the quad q. */
function squareToQuad(q: [number, number][]): number[] {
  const [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = q;
  const dx1 = x1 - x2,
    dx2 = x3 - x2,
    sx = x0 - x1 + x2 - x3;
  const dy1 = y1 - y2,
    dy2 = y3 - y2,
    sy = y0 - y1 + y2 - y3;
  const den = dx1 * dy2 - dx2 * dy1;
  const g = (sx * dy2 - dx2 * sy) / den;
  const h = (dx1 * sy - sx * dy1) / den;
  return [x1 - x0 + g * x1, x3 - x0 + h * x3, x0, y1 - y0 + g * y1, y3 - y0 + h * y3, y0, g, h, 1];
}

function invert3(m: number[]): number[] {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h,
    B = -(d * i - f * g),
    C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [
    A / det,
    -(b * i - c * h) / det,
    (b * f - c * e) / det,
    B / det,
    (a * i - c * g) / det,
    -(a * f - c * d) / det,
    C / det,
    -(a * h - b * g) / det,
    (a * e - b * d) / det,
  ];
}

/** 65 536 standard normal samples, indexed by 16 random bits (cheaper than Box–Muller per pixel). */
const NORMAL = (() => {
  const r = makeRng(new Uint8Array([7]));
  const t = new Float32Array(65536);
  for (let i = 0; i < t.length; i++) t[i] = Math.sqrt(-2 * Math.log(1 - r.next())) * Math.cos(2 * Math.PI * r.next());
  return t;
})();

const modulesCache = new Map<string, { n: number; dark: Uint8Array }>();
function modulesOf(text: string): { n: number; dark: Uint8Array } {
  let m = modulesCache.get(text);
  if (!m) {
    const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
    const n = qr.modules.size;
    const dark = new Uint8Array(n * n);
    for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) dark[y * n + x] = qr.modules.get(y, x) ? 1 : 0;
    m = { n, dark };
    modulesCache.set(text, m);
  }
  return m;
}

/** Two passes of a box blur of radius `r`, in place. */
function blur(g: Float32Array, r: number): void {
  if (r <= 0) return;
  const tmp = new Float32Array(g.length);
  for (let pass = 0; pass < 2; pass++) {
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        let s = 0;
        let n = 0;
        for (let k = Math.max(0, x - r); k <= Math.min(W - 1, x + r); k++, n++) s += g[y * W + k];
        tmp[y * W + x] = s / n;
      }
    }
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        let s = 0;
        let n = 0;
        for (let k = Math.max(0, y - r); k <= Math.min(H - 1, y + r); k++, n++) s += tmp[k * W + x];
        g[y * W + x] = s / n;
      }
    }
  }
}

/** One degraded frame of `text` with the degradations `d`, placed by `rng`. */
export function degradedFrame(text: string, d: Degradation, rng: Rng): Frame {
  const { n, dark: modules } = modulesOf(text);
  const side = (n + 8) * d.px; // with the 4-module quiet zone
  // A square of that side, rotated, one edge shortened by `perspective` (keystone), placed where it fits.
  const half = side / 2;
  const corners: [number, number][] = [
    [-half, -half],
    [half, -half],
    [half * (1 - d.perspective), half],
    [-half * (1 - d.perspective), half],
  ];
  const c = Math.cos(d.angle),
    s = Math.sin(d.angle);
  const rot = corners.map(([x, y]) => [x * c - y * s, x * s + y * c] as [number, number]);
  const minX = Math.min(...rot.map((p) => p[0])),
    maxX = Math.max(...rot.map((p) => p[0]));
  const minY = Math.min(...rot.map((p) => p[1])),
    maxY = Math.max(...rot.map((p) => p[1]));
  const cx = -minX + rng.next() * Math.max(0, W - (maxX - minX));
  const cy = -minY + rng.next() * Math.max(0, H - (maxY - minY));
  const quad = rot.map(([x, y]) => [x + cx, y + cy] as [number, number]);
  const inv = invert3(squareToQuad(quad));
  const bg = 110 + rng.next() * 80;
  const gx = (rng.next() - 0.5) * 0.15,
    gy = (rng.next() - 0.5) * 0.15;
  const light = 215 + rng.next() * 30;
  const dark = 15 + rng.next() * 40;
  const g = new Float32Array(W * H);
  const bx0 = Math.max(0, Math.floor(Math.min(...quad.map((p) => p[0]))) - 1),
    bx1 = Math.min(W, Math.ceil(Math.max(...quad.map((p) => p[0]))) + 1);
  const by0 = Math.max(0, Math.floor(Math.min(...quad.map((p) => p[1]))) - 1),
    by1 = Math.min(H, Math.ceil(Math.max(...quad.map((p) => p[1]))) + 1);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      if (x < bx0 || x >= bx1 || y < by0 || y >= by1) {
        g[y * W + x] = bg + (x - W / 2) * gx + (y - H / 2) * gy;
        continue;
      }
      let acc = 0;
      // 2×2 samples a pixel
      for (let sy = 0.25; sy < 1; sy += 0.5) {
        for (let sx = 0.25; sx < 1; sx += 0.5) {
          const X = x + sx,
            Y = y + sy;
          const w = inv[6] * X + inv[7] * Y + inv[8];
          const u = (inv[0] * X + inv[1] * Y + inv[2]) / w;
          const v = (inv[3] * X + inv[4] * Y + inv[5]) / w;
          if (u < 0 || v < 0 || u >= 1 || v >= 1) {
            acc += bg + (x - W / 2) * gx + (y - H / 2) * gy;
            continue;
          }
          const mx = Math.floor(u * (n + 8)) - 4;
          const my = Math.floor(v * (n + 8)) - 4;
          acc += mx >= 0 && my >= 0 && mx < n && my < n && modules[my * n + mx] ? dark : light;
        }
      }
      g[y * W + x] = acc / 4;
    }
  }
  blur(g, Math.round(d.blur * d.px * 1.2));
  if (d.glare > 0) {
    const gxC = cx + (rng.next() - 0.5) * side * 0.6,
      gyC = cy + (rng.next() - 0.5) * side * 0.6;
    const r2 = (side * (0.15 + rng.next() * 0.2)) ** 2;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) g[y * W + x] += d.glare * 255 * Math.exp(-((x - gxC) ** 2 + (y - gyC) ** 2) / r2);
    }
  }
  const data = new Uint8Array(W * H);
  for (let i = 0; i < data.length; i++) {
    const v = g[i] + (d.noise > 0 ? NORMAL[rng.int(65536)] * d.noise * 25 : 0);
    data[i] = v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
  }
  return { width: W, height: H, format: 'y8', data };
}

/** `count` degraded frames of the given codes (in turn), from a fixed seed. */
export function degradedFrames(codes: string[], count = 300, seed = 'saphir-camera-1'): DegradedFrame[] {
  const rng = makeRng(new Uint8Array(Buffer.from(seed)));
  const out: DegradedFrame[] = [];
  for (let i = 0; i < count; i++) {
    const d: Degradation = {
      px: 3 + rng.next() * 3,
      perspective: rng.next() * 0.3,
      blur: rng.next() * 0.3,
      noise: rng.next() * 0.3,
      glare: rng.next() < 0.5 ? rng.next() * 0.5 : 0,
      angle: rng.next() * 2 * Math.PI,
    };
    const text = codes[i % codes.length];
    out.push({ frame: degradedFrame(text, d, rng), text, d });
  }
  return out;
}
