// Packs ASCII text for firmware/unpack.ts (format there): greedy LZ77 over hash chains, in printable
// ASCII so the bundle carries it as is. jsQR's 54 KiB pack to ~18 KiB.

const MARKERS = [64, 35, 126]; // @ # ~: 1, 2, 3 distance digits
const MAX_LEN = 3 + 94;

export function pack(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 ? c !== 10 : c > 126) throw new Error(`pack: only printable ASCII and newlines (${c} at ${i})`);
  }
  const out: string[] = [];
  const head = new Map<string, number>();
  const prev = new Int32Array(s.length).fill(-1);
  const add = (p: number) => {
    if (p + 4 > s.length) return;
    const k = s.substr(p, 4);
    prev[p] = head.get(k) ?? -1;
    head.set(k, p);
  };
  const digits = (v: number, n: number) => {
    let t = '';
    for (let q = 0; q < n; q++, v = Math.floor(v / 95)) t = String.fromCharCode(32 + (v % 95)) + t;
    return t;
  };
  for (let i = 0; i < s.length;) {
    let bestGain = 0;
    let best = '';
    let bestLen = 0;
    for (
      let p = i + 4 <= s.length ? (head.get(s.substr(i, 4)) ?? -1) : -1, n = 0;
      p >= 0 && n < 512;
      p = prev[p], n++
    ) {
      let l = 0;
      while (l < MAX_LEN && i + l < s.length && s[p + l] === s[i + l]) l++;
      const d = i - p - 1;
      const k = d < 95 ? 1 : d < 95 * 95 ? 2 : 3;
      if (d >= 95 ** 3) break;
      const gain = l - (2 + k);
      if (l >= 4 && gain > bestGain) {
        bestGain = gain;
        bestLen = l;
        best = String.fromCharCode(MARKERS[k - 1], 32 + l - 3) + digits(d, k);
      }
    }
    if (bestLen) {
      out.push(best);
      for (let q = 0; q < bestLen; q++) add(i + q);
      i += bestLen;
    } else {
      const c = s.charCodeAt(i);
      out.push(MARKERS.includes(c) ? '@ ' + s[i] : s[i]);
      add(i);
      i++;
    }
  }
  return out.join('');
}
