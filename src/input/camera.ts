// Camera frames (Y8 grey or RGBA) → QR code text, through jsQR. Kept out of the other decoders so a
// firmware without a camera does not carry jsQR.
// Speed on a JIT-less engine comes from doing less: a large frame is first shrunk (box average), the
// region where the last code was is tried first, and the inverted image (light modules on dark) only
// after the normal one failed. jsQR's own inversion is not used: its 'onlyInvert' is broken (it never
// builds the inverted image), and it mutates its default options; we invert while shrinking instead.
import jsQRModule from 'jsqr';
import type { Frame } from '../hal.ts';

// jsQR is CommonJS with `exports.default`: bundlers and Node hand over either form.
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default || jsQRModule) as typeof jsQRModule.default;

export interface CameraDecoderOptions {
  /** Frames are shrunk by an integer factor until their longer side is at most this. Default 320. */
  maxSide?: number;
  /** After a failure at the shrunk size, also try the whole frame at full size. Default true. */
  fullSizeFallback?: boolean;
  /** Also try the inverted image (light code on a dark background). Default true. */
  inverted?: boolean;
}

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

function frameValid(f: Frame): boolean {
  const bpp = f.format === 'rgba' ? 4 : f.format === 'y8' ? 1 : 0;
  return (
    bpp > 0 && f.width > 0 && f.height > 0 && f.width * f.height <= 1 << 24 &&
    Number.isInteger(f.width) && Number.isInteger(f.height) && f.data.length >= f.width * f.height * bpp
  );
}

export class CameraDecoder {
  private readonly maxSide: number;
  private readonly fullSize: boolean;
  private readonly inverted: boolean;
  private buf32 = new Uint32Array(0);
  /** Where the last code was, in frame pixels; null when the last frame had none. */
  last: Box | null = null;
  /** How many jsQR runs the last `decode` took (1 when the first try found the code). */
  attempts = 0;

  constructor(options: CameraDecoderOptions = {}) {
    this.maxSide = Math.max(64, options.maxSide ?? 320);
    this.fullSize = options.fullSizeFallback !== false;
    this.inverted = options.inverted !== false;
  }

  /** The text of the QR code in `frame`, or null (also for a malformed frame). */
  decode(frame: Frame): string | null {
    this.attempts = 0;
    if (!frameValid(frame)) return null;
    const W = frame.width;
    const H = frame.height;
    const whole: Box = { x0: 0, y0: 0, x1: W, y1: H };
    const shrink = (b: Box) => Math.max(1, Math.ceil(Math.max(b.x1 - b.x0, b.y1 - b.y0) / this.maxSide));
    const plans: [Box, number, boolean][] = [];
    const last = this.last;
    if (last) {
      const mx = (last.x1 - last.x0) >> 2;
      const my = (last.y1 - last.y0) >> 2;
      const r = {
        x0: Math.max(0, last.x0 - mx), y0: Math.max(0, last.y0 - my),
        x1: Math.min(W, last.x1 + mx), y1: Math.min(H, last.y1 + my),
      };
      if (r.x1 - r.x0 >= 21 && r.y1 - r.y0 >= 21 && (r.x1 - r.x0) * (r.y1 - r.y0) < 0.6 * W * H) {
        plans.push([r, shrink(r), false]);
      }
    }
    const s = shrink(whole);
    plans.push([whole, s, false]);
    if (s > 1 && this.fullSize) plans.push([whole, 1, false]);
    if (this.inverted) {
      plans.push([whole, s, true]);
      if (s > 1 && this.fullSize) plans.push([whole, 1, true]);
    }
    for (const [box, scale, invert] of plans) {
      this.attempts++;
      const text = this.attempt(frame, box, scale, invert);
      if (text !== null) return text;
    }
    this.last = null;
    return null;
  }

  private attempt(frame: Frame, box: Box, s: number, invert: boolean): string | null {
    const w = Math.floor((box.x1 - box.x0) / s);
    const h = Math.floor((box.y1 - box.y0) / s);
    if (w < 21 || h < 21) return null;
    let rgba: Uint8ClampedArray;
    if (!invert && frame.format === 'rgba' && s === 1 && w === frame.width && h === frame.height) {
      rgba = new Uint8ClampedArray(frame.data.buffer, frame.data.byteOffset, w * h * 4);
    } else {
      if (this.buf32.length < w * h) this.buf32 = new Uint32Array(w * h);
      shrinkInto(frame, box, s, w, h, invert, this.buf32);
      rgba = new Uint8ClampedArray(this.buf32.buffer, 0, w * h * 4);
    }
    let r;
    try {
      r = jsQR(rgba, w, h, { inversionAttempts: 'dontInvert' });
    } catch (e) {
      return null;
    }
    if (!r) return null;
    const L = r.location;
    const xs = [L.topLeftCorner.x, L.topRightCorner.x, L.bottomLeftCorner.x, L.bottomRightCorner.x];
    const ys = [L.topLeftCorner.y, L.topRightCorner.y, L.bottomLeftCorner.y, L.bottomRightCorner.y];
    this.last = {
      x0: Math.max(0, Math.floor(box.x0 + Math.min(...xs) * s)),
      y0: Math.max(0, Math.floor(box.y0 + Math.min(...ys) * s)),
      x1: Math.min(frame.width, Math.ceil(box.x0 + Math.max(...xs) * s)),
      y1: Math.min(frame.height, Math.ceil(box.y0 + Math.max(...ys) * s)),
    };
    return r.data;
  }
}

/** Grey box average of `box` shrunk by `s` (inverted if asked), as 4 equal bytes a pixel for jsQR. */
function shrinkInto(f: Frame, box: Box, s: number, w: number, h: number, invert: boolean, out: Uint32Array): void {
  const W = f.width;
  const d = f.data;
  const rgba = f.format === 'rgba';
  const n = s * s;
  for (let y = 0; y < h; y++) {
    const sy = box.y0 + y * s;
    for (let x = 0; x < w; x++) {
      const sx = box.x0 + x * s;
      let sum = 0;
      for (let j = 0; j < s; j++) {
        let p = (sy + j) * W + sx;
        if (rgba) {
          for (let i = 0; i < s; i++, p++) sum += (54 * d[4 * p] + 183 * d[4 * p + 1] + 19 * d[4 * p + 2]) >> 8;
        } else {
          for (let i = 0; i < s; i++, p++) sum += d[p];
        }
      }
      const v = (sum / n) | 0;
      out[y * w + x] = (invert ? 255 - v : v) * 0x01010101;
    }
  }
}
