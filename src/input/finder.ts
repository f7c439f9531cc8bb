// A quick QR finder-pattern locator, so that jsQR (slow without a JIT) only sees a tight crop around the
// code. Rows of a shrunk grey image are scanned for the dark-light-dark-light-dark runs 1:1:3:1:1,
// confirmed down the column, clustered; three clusters at the corners of a right isosceles triangle
// give the code's corners. Plain loops over typed arrays: no call per pixel.
import type { Frame } from '../hal.ts';

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface Located {
  /** The code with a quiet-zone margin, in frame pixels. */
  box: Box;
  /** Module size in frame pixels. */
  module: number;
}

const TARGET = 320;
const BLOCK = 8; // binarisation blocks (the >> 3 below)
const MAX_CANDIDATES = 64;
// Least grey range (max − min) around a block for any of it to count as dark.
const MIN_RANGE = 64;
// Thresholds are estimated from one pixel in SAMPLE of one row in SAMPLE (a divisor of BLOCK).
const SAMPLE = 2;

/** Grey copy of an RGBA frame subsampled by `s` (one pixel in s×s: enough to find finder patterns). */
function greySub(f: Frame, s: number, w: number, h: number, out: Uint8Array): void {
  const W = f.width;
  const d = f.data;
  for (let y = 0; y < h; y++) {
    let p = y * s * W;
    for (let x = 0, o = y * w; x < w; x++, o++, p += s)
      out[o] = (54 * d[4 * p] + 183 * d[4 * p + 1] + 19 * d[4 * p + 2]) >> 8;
  }
}

/**
 * Dark/light threshold of each 8×8 block: the mean of the 5×5 blocks around it, estimated from every
 * other pixel of every other row. A pixel is dark when below its block's threshold.
 * (Sums and counts are integers, so the separable 5×5 sums are exact.)
 */
function thresholds(g: Uint8Array, rs: number, cs: number, w: number, h: number): { thr: Float32Array; bw: number } {
  const bw = Math.ceil(w / BLOCK);
  const bh = Math.ceil(h / BLOCK);
  const sum = new Float64Array(bw * bh);
  const cnt = new Float64Array(bw * bh);
  const lo = new Uint8Array(bw * bh).fill(255);
  const hi = new Uint8Array(bw * bh);
  const step = SAMPLE * cs;
  // Samples a block row holds: BLOCK / SAMPLE, but the last block may be narrower (no call per block).
  const nFull = BLOCK / SAMPLE;
  const nLast = Math.ceil((w - (bw - 1) * BLOCK) / SAMPLE);
  for (let y = 0; y < h; y += SAMPLE) {
    const brow = (y >> 3) * bw;
    let p = y * rs;
    for (let bx = 0; bx < bw; bx++) {
      let s = 0;
      let mn = lo[brow + bx];
      let mx = hi[brow + bx];
      const n = bx === bw - 1 ? nLast : nFull;
      const pe = p + n * step;
      for (; p < pe; p += step) {
        const v = g[p];
        s += v;
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
      sum[brow + bx] += s;
      cnt[brow + bx] += n;
      lo[brow + bx] = mn;
      hi[brow + bx] = mx;
    }
  }
  // 5 blocks across, then 5 down for the means (sliding sums); 3 across, then 3 down for the range.
  const n = bw * bh;
  const hs = new Float64Array(n);
  const hc = new Float64Array(n);
  const hlo = new Uint8Array(n);
  const hhi = new Uint8Array(n);
  for (let by = 0; by < bh; by++) {
    const r = by * bw;
    let t = 0;
    let c = 0;
    for (let i = 0; i < 2 && i < bw; i++) {
      t += sum[r + i];
      c += cnt[r + i];
    }
    for (let bx = 0; bx < bw; bx++) {
      if (bx + 2 < bw) {
        t += sum[r + bx + 2];
        c += cnt[r + bx + 2];
      }
      if (bx >= 3) {
        t -= sum[r + bx - 3];
        c -= cnt[r + bx - 3];
      }
      hs[r + bx] = t;
      hc[r + bx] = c;
      let mn = lo[r + bx];
      let mx = hi[r + bx];
      if (bx > 0) {
        if (lo[r + bx - 1] < mn) mn = lo[r + bx - 1];
        if (hi[r + bx - 1] > mx) mx = hi[r + bx - 1];
      }
      if (bx + 1 < bw) {
        if (lo[r + bx + 1] < mn) mn = lo[r + bx + 1];
        if (hi[r + bx + 1] > mx) mx = hi[r + bx + 1];
      }
      hlo[r + bx] = mn;
      hhi[r + bx] = mx;
    }
  }
  const thr = new Float32Array(n);
  for (let bx = 0; bx < bw; bx++) {
    let t = 0;
    let c = 0;
    for (let j = 0; j < 2 && j < bh; j++) {
      t += hs[j * bw + bx];
      c += hc[j * bw + bx];
    }
    for (let by = 0; by < bh; by++) {
      const o = by * bw + bx;
      if (by + 2 < bh) {
        t += hs[o + 2 * bw];
        c += hc[o + 2 * bw];
      }
      if (by >= 3) {
        t -= hs[o - 3 * bw];
        c -= hc[o - 3 * bw];
      }
      let mn = hlo[o];
      let mx = hhi[o];
      if (by > 0) {
        if (hlo[o - bw] < mn) mn = hlo[o - bw];
        if (hhi[o - bw] > mx) mx = hhi[o - bw];
      }
      if (by + 1 < bh) {
        if (hlo[o + bw] < mn) mn = hlo[o + bw];
        if (hhi[o + bw] > mx) mx = hhi[o + bw];
      }
      // A block whose 3×3 neighbourhood has no contrast is background or noise: nothing in it is dark
      // (sensor noise around the mean would otherwise draw finder-like runs everywhere).
      thr[o] = mx - mn < MIN_RANGE ? -1 : t / c;
    }
  }
  return { thr, bw };
}

function ratioOk(a: number, b: number, c: number, d: number, e: number): number {
  const total = a + b + c + d + e;
  if (total < 7) return 0;
  const m = total / 7;
  const v = m * 0.75;
  if (
    Math.abs(a - m) < v &&
    Math.abs(b - m) < v &&
    Math.abs(c - 3 * m) < 3 * v &&
    Math.abs(d - m) < v &&
    Math.abs(e - m) < v
  ) {
    return m;
  }
  return 0;
}

/** Checks the column through (x, y) for the 1:1:3:1:1 runs; returns [centre y, module] or null. */
function vertical(
  g: Uint8Array,
  rs: number,
  cs: number,
  thr: Float32Array,
  bw: number,
  h: number,
  x: number,
  y: number,
  maxRun: number,
): [number, number] | null {
  const bx = x >> 3;
  const xo = x * cs;
  const dark = (yy: number) => g[yy * rs + xo] < thr[(yy >> 3) * bw + bx];
  if (!dark(y)) return null;
  let up = y;
  while (up > 0 && dark(up - 1) && y - up < maxRun) up--;
  let dn = y;
  while (dn < h - 1 && dark(dn + 1) && dn - y < maxRun) dn++;
  const c = dn - up + 1;
  let p = up - 1;
  let b1 = 0;
  while (p >= 0 && !dark(p) && b1 <= maxRun) (b1++, p--);
  let a1 = 0;
  while (p >= 0 && dark(p) && a1 <= maxRun) (a1++, p--);
  p = dn + 1;
  let d1 = 0;
  while (p < h && !dark(p) && d1 <= maxRun) (d1++, p++);
  let e1 = 0;
  while (p < h && dark(p) && e1 <= maxRun) (e1++, p++);
  const m = ratioOk(a1, b1, c, d1, e1);
  return m ? [(up + dn) / 2, m] : null;
}

interface Cluster {
  x: number;
  y: number;
  m: number;
  n: number;
}

export class FinderLocator {
  private grey = new Uint8Array(0);
  /** Finder-like patterns (seen on two rows or more) the last `locate` found, triangle or not. */
  seen = 0;

  locate(f: Frame): Located | null {
    const s = Math.max(1, Math.floor(Math.max(f.width, f.height) / TARGET));
    const w = Math.floor(f.width / s);
    const h = Math.floor(f.height / s);
    this.seen = 0;
    if (w < 21 || h < 21) return null;
    // Pixel (x, y) of the subsampled image is g[y * rs + x * cs]: the frame itself when it is grey.
    let g = f.data;
    let rs = s * f.width;
    let cs = s;
    if (f.format === 'rgba') {
      if (this.grey.length < w * h) this.grey = new Uint8Array(w * h);
      g = this.grey;
      greySub(f, s, w, h, g);
      rs = w;
      cs = 1;
    }
    const { thr, bw } = thresholds(g, rs, cs, w, h);
    const clusters: Cluster[] = [];
    // Even rows first; the odd ones only when something finder-like showed up but no triangle (a
    // small code: its finder centres are only 3 rows tall here).
    this.scanRows(g, rs, cs, thr, bw, w, h, 0, clusters);
    let tri = bestTriangle(clusters);
    if (!tri && clusters.length > 0) {
      this.scanRows(g, rs, cs, thr, bw, w, h, 1, clusters);
      tri = bestTriangle(clusters);
    }
    for (const c of clusters) if (c.n >= 2) this.seen++;
    if (!tri) return null;
    const [tl, a, c] = tri;
    const dx = a.x + c.x - tl.x;
    const dy = a.y + c.y - tl.y;
    // Runs across a rotated square are longer than its side by 1 / max(|cos|, |sin|) of the rotation.
    const leg = Math.hypot(a.x - tl.x, a.y - tl.y);
    const m = (((tl.m + a.m + c.m) / 3) * Math.max(Math.abs(a.x - tl.x), Math.abs(a.y - tl.y))) / leg;
    const margin = m * 6;
    const xs = [tl.x, a.x, c.x, dx];
    const ys = [tl.y, a.y, c.y, dy];
    return {
      box: {
        x0: Math.max(0, Math.floor((Math.min(...xs) - margin) * s)),
        y0: Math.max(0, Math.floor((Math.min(...ys) - margin) * s)),
        x1: Math.min(f.width, Math.ceil((Math.max(...xs) + margin) * s)),
        y1: Math.min(f.height, Math.ceil((Math.max(...ys) + margin) * s)),
      },
      module: m * s,
    };
  }

  private scanRows(
    g: Uint8Array,
    rs: number,
    cs: number,
    thr: Float32Array,
    bw: number,
    w: number,
    h: number,
    first: number,
    clusters: Cluster[],
  ): void {
    for (let y = first; y < h; y += 2) {
      const row = y * rs;
      const trow = (y >> 3) * bw;
      // r4 is the current run; colours alternate, r0 dark when the pattern can match.
      let color = g[row] < thr[trow] ? 1 : 0;
      let r0 = 0;
      let r1 = 0;
      let r2 = 0;
      let r3 = 0;
      let r4 = 1;
      // x = w closes the last run (as if the colour changed there).
      for (let x = 1; x <= w; x++) {
        if (x < w) {
          // One threshold a block of 8; the run goes on while the colour stays: a load and a compare a pixel.
          const end = Math.min(w, (x | 7) + 1);
          const t = thr[trow + (x >> 3)];
          const from = x;
          let p = row + x * cs;
          // A block without contrast (t < 0) has no dark pixel: a light run crosses it whole, untested.
          if (t < 0 && color === 0) x = end;
          else if (color === 1) while (x < end && g[p] < t) (x++, (p += cs));
          else while (x < end && g[p] >= t) (x++, (p += cs));
          r4 += x - from;
          if (x === end) {
            x--; // the loop's x++ puts it back on the next block
            continue;
          }
        }
        // Pixel x (or the row's end) has the other colour.
        if (color === 1) {
          const m = ratioOk(r0, r1, r2, r3, r4);
          if (m) {
            const cx = Math.round(x - r4 - r3 - r2 / 2);
            const v = vertical(g, rs, cs, thr, bw, h, cx, y, Math.ceil(m * 5));
            if (v && v[1] < m * 2 && v[1] > m / 2) this.add(clusters, cx, v[0], (m + v[1]) / 2);
          }
        }
        r0 = r1;
        r1 = r2;
        r2 = r3;
        r3 = r4;
        r4 = 1;
        color ^= 1;
      }
    }
  }

  private add(cs: Cluster[], x: number, y: number, m: number): void {
    for (const c of cs) {
      if (Math.abs(c.x - x) < c.m * 2 && Math.abs(c.y - y) < c.m * 2) {
        c.x = (c.x * c.n + x) / (c.n + 1);
        c.y = (c.y * c.n + y) / (c.n + 1);
        c.m = (c.m * c.n + m) / (c.n + 1);
        c.n++;
        return;
      }
    }
    if (cs.length < MAX_CANDIDATES) cs.push({ x, y, m, n: 1 });
  }
}

/** The three clusters that best form the finder triangle, corner first; null if none does. */
function bestTriangle(all: Cluster[]): [Cluster, Cluster, Cluster] | null {
  const cs = all
    .filter((c) => c.n >= 2)
    .sort((p, q) => q.n - p.n)
    .slice(0, 6);
  let best: [Cluster, Cluster, Cluster] | null = null;
  let bestErr = 0.25;
  for (let i = 0; i < cs.length; i++) {
    for (let j = i + 1; j < cs.length; j++) {
      for (let k = j + 1; k < cs.length; k++) {
        const t = [cs[i], cs[j], cs[k]];
        for (let r = 0; r < 3; r++) {
          const [o, p, q] = [t[r], t[(r + 1) % 3], t[(r + 2) % 3]];
          const d1 = Math.hypot(p.x - o.x, p.y - o.y);
          const d2 = Math.hypot(q.x - o.x, q.y - o.y);
          const hyp = Math.hypot(p.x - q.x, p.y - q.y);
          const m = (o.m + p.m + q.m) / 3;
          if (d1 < m * 10 || d2 < m * 10) continue;
          // equal legs, a right angle, similar module sizes
          const err =
            Math.abs(d1 - d2) / Math.max(d1, d2) +
            Math.abs(hyp / Math.SQRT2 - (d1 + d2) / 2) / ((d1 + d2) / 2) +
            Math.abs(o.m - p.m) / m / 4 +
            Math.abs(o.m - q.m) / m / 4;
          if (err < bestErr) {
            bestErr = err;
            best = [o, p, q];
          }
        }
      }
    }
  }
  return best;
}
