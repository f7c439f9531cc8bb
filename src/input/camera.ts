// Camera frames (Y8 grey or RGBA) → QR code text, through jsQR. Kept out of the other decoders so a
// firmware without a camera does not carry jsQR.
// jsQR is slow without a JIT, so it is given as few pixels as will do: first a crop around the finder
// patterns our own quick locator (finder.ts) found, resampled to about 2.2 pixels a module; else the
// region where the last code was (the locator may miss a blurred code jsQR still reads); only then (every frame in 'still' mode, one in `fallbackEvery` in 'stream'
// mode) the whole frame, shrunk then full size, normal then inverted (light code on a dark background).
// In 'stream' mode a code the locator saw but no crop read gets the whole frame at full size in the
// same frame (not two frames in a row), so that what stock jsQR reads is read in the first frame.
// A stream frame's jsQR runs share a bound on their work (FRAME_WORK steps, counted by the firmware's
// jsQR): a noisy frame stops there and reads nothing, and the next frame is tried.
// 'still' mode reads the whole (shrunk) image first, as stock jsQR does, so that of several codes in one
// photo it returns the one jsQR would.
// jsQR's own inversion is not used: its 'onlyInvert' never builds the inverted image, and it mutates its
// default options; the inverted grey image is made here instead.
import jsQRModule from 'jsqr';
import type { Frame } from '../hal.ts';
import { FinderLocator, type Box } from './finder.ts';

/** jsQR's entry point: the npm package's, or the firmware's (firmware/jsqr/), which has the same one. */
export type JsQR = typeof jsQRModule.default;
/** The firmware's jsQR's bound on its work (firmware/jsqr/locator: Work); the npm jsqr ignores it. */
interface Work {
  used: number;
  limit: number;
}
type JsQRGrey = (g: Uint8Array, w: number, h: number, tryHarder?: boolean, work?: Work) => ReturnType<JsQR>;

/**
 * The most jsQR work a stream-mode frame may take, in jsQR's steps (firmware/jsqr/locator: Work; about
 * 0.1 µs of QuickJS each). A noisy frame's whole-frame run took 10–20 million (1.6–1.8 s in QuickJS, past
 * the VM watchdog's 2 s with the camera path's compilation: issue #35); a frame that reads takes ~0.1
 * million, the most seen 1.7 million (a degraded frame read whole). A frame that reaches the bound reads
 * nothing and the next frame is tried. Steps, not time: the core has no clock and the fault explorer
 * replays a run exactly.
 */
export const FRAME_WORK = 2_000_000;

// jsQR is CommonJS with `exports.default`: bundlers and Node hand over either form.
const defaultJsQR = ((jsQRModule as unknown as { default?: unknown }).default || jsQRModule) as JsQR;

export type { Box };

export interface CameraDecoderOptions {
  /**
   * 'stream' (default, the device's camera): a frame costs at most the region try, the locator and its
   * crop, plus one whole-frame fallback every `fallbackEvery` frames without a code, and at most
   * `frameWork` jsQR steps in all. 'still' (one image:
   * CLI, photos): every strategy in turn until one reads the code.
   */
  mode?: 'stream' | 'still';
  fallbackEvery?: number;
  /** Whole-frame tries shrink the frame by an integer factor to at most this side. Default 320. */
  maxSide?: number;
  /** After a failure at the shrunk size, also try the whole frame at full size. Default true. */
  fullSizeFallback?: boolean;
  /** Also try the inverted image (light code on a dark background). Default true. */
  inverted?: boolean;
  /**
   * The jsQR to run. Default: the `jsqr` import, which the firmware build resolves to firmware/jsqr/ and
   * Node to the npm package; `saphir decode` passes the firmware's (host/jsqr.ts), so that the host
   * reads an image as the device does.
   */
  jsQR?: JsQR;
  /** Stream mode: the most jsQR steps a frame may take (default FRAME_WORK). Still mode has no bound. */
  frameWork?: number;
}

function frameValid(f: Frame): boolean {
  const bpp = f.format === 'rgba' ? 4 : f.format === 'y8' ? 1 : 0;
  return (
    bpp > 0 &&
    f.width > 0 &&
    f.height > 0 &&
    f.width * f.height <= 1 << 24 &&
    Number.isInteger(f.width) &&
    Number.isInteger(f.height) &&
    f.data.length >= f.width * f.height * bpp
  );
}

export class CameraDecoder {
  private readonly still: boolean;
  private readonly every: number;
  private readonly maxSide: number;
  private readonly fullSize: boolean;
  private readonly inverted: boolean;
  private readonly jsQR: JsQR;
  // The firmware's jsQR (firmware/jsqr/) also reads a grey image as is: crops are handed over one byte a
  // pixel, not as RGBA it would convert back. The npm jsqr (Node) has no such entry: RGBA.
  private readonly jsQRGrey: JsQRGrey | undefined;
  private readonly finder = new FinderLocator();
  private buf32 = new Uint32Array(0);
  private grey = new Uint8Array(0);
  private misses = 0;
  // After a crop failed at ~2.2 pixels a module, the next frame's crops take ~4 (blur, tilt).
  private fine = false;
  private module = 0;
  // The last frame paid a same-frame whole-frame try for a code it saw but could not read.
  private spent = false;
  /** Where the last code was, in frame pixels; null when the last frame had none. */
  last: Box | null = null;
  /** How many jsQR runs the last `decode` took (1 when the first try found the code). */
  attempts = 0;
  /**
   * The jsQR steps the last `decode` took (`used`, counted by the firmware's jsQR; the npm jsqr counts
   * none) and their bound (`limit`: `frameWork` in stream mode, none in still mode). A frame the bound
   * stopped has used = limit + 1.
   */
  readonly work: Work;
  /**
   * The payload bytes of the last code read (null when `decode` read none): what a binary payload is
   * judged by (its text is not agreed), and what the text of a Kanji or Hanzi segment was made from.
   */
  bytes: Uint8Array | null = null;
  /** False skips the finder locator, so that a benchmark can time the last-region path alone. */
  useLocator = true;

  constructor(options: CameraDecoderOptions = {}) {
    this.still = options.mode === 'still';
    this.every = Math.max(1, options.fallbackEvery ?? 4);
    this.maxSide = Math.max(64, options.maxSide ?? 320);
    this.fullSize = options.fullSizeFallback !== false;
    this.inverted = options.inverted !== false;
    this.jsQR = options.jsQR ?? defaultJsQR;
    this.work = { used: 0, limit: this.still ? Infinity : (options.frameWork ?? FRAME_WORK) };
    this.jsQRGrey = (this.jsQR as unknown as { grey?: JsQRGrey }).grey;
  }

  /** The text of the QR code in `frame`, or null (also for a malformed frame). */
  decode(frame: Frame): string | null {
    this.attempts = 0;
    this.work.used = 0;
    this.bytes = null;
    if (!frameValid(frame)) return null;
    const W = frame.width;
    const H = frame.height;
    const last = this.last;
    const whole: Box = { x0: 0, y0: 0, x1: W, y1: H };
    const s = Math.max(1, Math.ceil(Math.max(W, H) / this.maxSide));
    // A still image is first read whole as stock jsQR would (the code it picks when there are several).
    if (this.still) {
      const text = this.attempt(frame, whole, s, false);
      if (text !== null) return text;
    }
    // The locator (a fraction of a jsQR run) before the last region: a code that moved since the last
    // frame would make the region try a wasted jsQR run on a crop that cuts it.
    const found = this.useLocator ? this.finder.locate(frame) : null;
    if (found) {
      const step = cropStep(found.module, this.fine);
      let text = this.attempt(frame, found.box, step, false);
      // A located code whose crop did not read (blur, noise, tilt) is worth a crop at full resolution
      // in this frame, then one grown by two modules: jsQR thresholds 8×8 blocks on a fixed grid, and a
      // code on the edge of reading often reads with that grid moved and a wider margin.
      if (text === null && step > 1) text = this.attempt(frame, found.box, 1, false);
      if (text === null) {
        const g = Math.round(found.module * 2) + 4;
        const b = found.box;
        const grown = {
          x0: Math.max(0, b.x0 - g),
          y0: Math.max(0, b.y0 - g),
          x1: Math.min(W, b.x1 + g),
          y1: Math.min(H, b.y1 + g),
        };
        text = this.attempt(frame, grown, 1, false);
      }
      if (text !== null) return text;
    }
    if (last && this.module > 0) {
      // room for a quiet zone and some movement since the last frame
      const mx = this.module * 3 + (last.x1 - last.x0) * 0.04;
      const my = this.module * 3 + (last.y1 - last.y0) * 0.04;
      const r = {
        x0: Math.max(0, Math.floor(last.x0 - mx)),
        y0: Math.max(0, Math.floor(last.y0 - my)),
        x1: Math.min(W, Math.ceil(last.x1 + mx)),
        y1: Math.min(H, Math.ceil(last.y1 + my)),
      };
      const text = this.attempt(frame, r, cropStep(this.module, this.fine), false);
      if (text !== null) return text;
    }
    const wasFine = this.fine;
    this.fine = !wasFine && (found !== null || last !== null);
    const plans: [number, boolean][] = this.still ? [] : [[s, false]];
    if (s > 1 && this.fullSize) plans.push([1, false]);
    if (this.inverted) {
      plans.push([s, true]);
      if (s > 1 && this.fullSize) plans.push([1, true]);
    }
    // Still mode, last: one step less shrinking (a fine-printed code the box average blurred away).
    if (this.still && s >= 3) plans.push([s - 1, false]);
    if (this.still) {
      for (const [scale, invert] of plans) {
        const text = this.attempt(frame, whole, scale, invert);
        if (text !== null) return text;
      }
      // Last, what luminance loses: the brightest channel of a coloured code, inverted (light red
      // modules on dark red are grey on grey).
      if (frame.format === 'rgba' && this.inverted) {
        const text = this.attempt(frame, whole, s, true, true);
        if (text !== null) return text;
      }
      // Last of all, a small image at twice its size (bilinear): jsQR loses a code under about three
      // pixels a module (a version 8 code, 49 modules, in 135 pixels of a 309×399 photo).
      if (Math.max(W, H) <= 2 * this.maxSide) {
        const text = this.attempt(frame, whole, 0.5, false);
        if (text !== null) return text;
      }
    } else if (this.fullSize && (found !== null || this.finder.seen >= 2) && !this.spent) {
      // A code the locator saw (a finder triangle, or finder patterns without one) that no crop read:
      // the whole frame at full size in this same frame, as stock jsQR reads it. Not on two frames in a
      // row, so a code nobody reads costs one such run every other frame at most.
      this.spent = true;
      this.misses++;
      const text = this.attempt(frame, whole, 1, false);
      if (text !== null) return text;
    } else {
      this.spent = false;
      if (plans.length > 0 && ++this.misses % this.every === 0) {
        const [scale, invert] = plans[(this.misses / this.every - 1) % plans.length];
        const text = this.attempt(frame, whole, scale, invert);
        if (text !== null) return text;
      }
    }
    this.last = null;
    return null;
  }

  private attempt(frame: Frame, box: Box, s: number, invert: boolean, brightest = false): string | null {
    // A frame whose bound is reached tries nothing more (not even the pixels of another run).
    const work = this.work;
    if (work.used > work.limit) return null;
    this.attempts++;
    const w = Math.floor((box.x1 - box.x0) / s);
    const h = Math.floor((box.y1 - box.y0) / s);
    if (w < 21 || h < 21) return null;
    // Still mode asks the firmware's jsQR to try harder (more finder-pattern groups and, for a version 1
    // code, its fourth corner moved: only when its own locations fail); the npm jsqr ignores the option.
    const options = { inversionAttempts: 'dontInvert', tryHarder: this.still, work } as Parameters<JsQR>[3];
    let r;
    try {
      if (!invert && !brightest && frame.format === 'rgba' && s === 1 && w === frame.width && h === frame.height) {
        r = this.jsQR(new Uint8ClampedArray(frame.data.buffer, frame.data.byteOffset, w * h * 4), w, h, options);
      } else if (this.jsQRGrey) {
        if (this.grey.length < w * h) this.grey = new Uint8Array(w * h);
        const g = this.grey.subarray(0, w * h);
        if (s === Math.floor(s)) shrinkInto(frame, box, s, w, h, invert, g, 1, brightest);
        else resampleInto(frame, box, s, w, h, invert, g, 1);
        r = this.jsQRGrey(g, w, h, this.still, work);
      } else {
        if (this.buf32.length < w * h) this.buf32 = new Uint32Array(w * h);
        if (s === Math.floor(s)) shrinkInto(frame, box, s, w, h, invert, this.buf32, 0x01010101, brightest);
        else resampleInto(frame, box, s, w, h, invert, this.buf32, 0x01010101);
        r = this.jsQR(new Uint8ClampedArray(this.buf32.buffer, 0, w * h * 4), w, h, options);
      }
    } catch (e) {
      return null;
    }
    if (!r) return null;
    const L = r.location;
    const xs = [L.topLeftCorner.x, L.topRightCorner.x, L.bottomLeftCorner.x, L.bottomRightCorner.x];
    const ys = [L.topLeftCorner.y, L.topRightCorner.y, L.bottomLeftCorner.y, L.bottomRightCorner.y];
    this.misses = 0;
    this.fine = false;
    this.spent = false;
    const dim = 17 + 4 * r.version;
    this.module =
      (s * Math.hypot(L.topRightCorner.x - L.topLeftCorner.x, L.topRightCorner.y - L.topLeftCorner.y)) / dim;
    this.last = {
      x0: Math.max(0, Math.floor(box.x0 + Math.min(...xs) * s)),
      y0: Math.max(0, Math.floor(box.y0 + Math.min(...ys) * s)),
      x1: Math.min(frame.width, Math.ceil(box.x0 + Math.max(...xs) * s)),
      y1: Math.min(frame.height, Math.ceil(box.y0 + Math.max(...ys) * s)),
    };
    this.bytes = Uint8Array.from(r.binaryData);
    return r.data;
  }
}

/** The sampling step that leaves about 2.2 (fine: 4) pixels a module (1: none). */
function cropStep(module: number, fine: boolean): number {
  const s = module / (fine ? 4 : 2.2);
  return s < 1.25 ? 1 : s;
}

/** Grey box average of `box` shrunk by `s` (inverted if asked), times `k`: 1 a byte, 0x01010101 for RGBA. */
function shrinkInto(
  f: Frame,
  box: Box,
  s: number,
  w: number,
  h: number,
  invert: boolean,
  out: Uint32Array | Uint8Array,
  k: number,
  brightest = false,
): void {
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
          if (brightest) for (let i = 0; i < s; i++, p++) sum += Math.max(d[4 * p], d[4 * p + 1], d[4 * p + 2]);
          else for (let i = 0; i < s; i++, p++) sum += (54 * d[4 * p] + 183 * d[4 * p + 1] + 19 * d[4 * p + 2]) >> 8;
        } else {
          for (let i = 0; i < s; i++, p++) sum += d[p];
        }
      }
      out[y * w + x] = ((sum / n) | 0) * k;
    }
  }
  if (invert) invertInPlace(out, w * h, k);
}

/** 255 − v of each pixel written as v × `k` (a pass of its own: no test a pixel on the usual path). */
function invertInPlace(out: Uint32Array | Uint8Array, n: number, k: number): void {
  const white = 255 * k;
  for (let i = 0; i < n; i++) out[i] = white - out[i];
}

/**
 * Bilinear point samples of `box` at a fractional step `s` (> 1; 0.5 doubles a small still image). Used
 * for crops, where a box average down to ~2 pixels a module would blur half the modules into grey
 * depending on where the crop starts.
 */
export function resampleInto(
  f: Frame,
  box: Box,
  s: number,
  w: number,
  h: number,
  invert: boolean,
  out: Uint32Array | Uint8Array,
  k: number,
): void {
  const W = f.width;
  const H = f.height;
  let d = f.data;
  let base = 0;
  const stride = W;
  if (f.format === 'rgba') {
    // Grey of the rows the box needs, then the same sampling as a grey frame.
    const y0 = Math.min(H - 2, Math.max(0, Math.floor(box.y0 + 0.5 * s - 0.5)));
    const y1 = Math.min(H - 1, Math.max(0, Math.floor(box.y0 + (h - 0.5) * s - 0.5)) + 1);
    const g = new Uint8Array((y1 - y0 + 1) * W);
    for (let i = 0, p = y0 * W * 4; i < g.length; i++, p += 4)
      g[i] = (54 * f.data[p] + 183 * f.data[p + 1] + 19 * f.data[p + 2]) >> 8;
    d = g;
    base = -y0 * W;
  }
  // Column positions and weights are the same on every row. Weights in 1/256 (integer arithmetic is
  // QuickJS's fast path): a sample is within one grey level of the exact bilinear value, truncated.
  const xs = new Int32Array(w);
  const wxs = new Int32Array(w);
  for (let x = 0; x < w; x++) {
    const fx = box.x0 + (x + 0.5) * s - 0.5;
    const x0 = Math.min(W - 2, Math.max(0, Math.floor(fx)));
    xs[x] = x0;
    wxs[x] = Math.round(Math.min(1, Math.max(0, fx - x0)) * 256);
  }
  for (let y = 0; y < h; y++) {
    const fy = box.y0 + (y + 0.5) * s - 0.5;
    const y0 = Math.min(H - 2, Math.max(0, Math.floor(fy)));
    const wy = Math.round(Math.min(1, Math.max(0, fy - y0)) * 256);
    const wy0 = 256 - wy;
    const row = base + y0 * stride;
    for (let x = 0, o = y * w; x < w; x++, o++) {
      const p = row + xs[x];
      const q = p + stride;
      const t = wxs[x];
      const a = d[p];
      const c = d[q];
      const top = (a << 8) + (d[p + 1] - a) * t;
      const bottom = (c << 8) + (d[q + 1] - c) * t;
      out[o] = ((top * wy0 + bottom * wy) >> 16) * k;
    }
  }
  if (invert) invertInPlace(out, w * h, k);
}
