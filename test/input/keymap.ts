// The test side's own keyboard model, character → (modifiers, usage), written from the HID usage
// tables (page 0x07) and the French AZERTY layout; independent of the decoder's tables.
const SHIFT = 0x02;
const RIGHT_ALT = 0x40;

export function usKey(c: string): [number, number] {
  if (c >= '1' && c <= '9') return [0, 0x1e + Number(c) - 1];
  if (c === '0') return [0, 0x27];
  if (c >= 'A' && c <= 'Z') return [SHIFT, 0x04 + c.charCodeAt(0) - 65];
  const t: Record<string, [number, number]> = {
    ' ': [0, 0x2c],
    $: [SHIFT, 0x21],
    '%': [SHIFT, 0x22],
    '*': [SHIFT, 0x25],
    '+': [SHIFT, 0x2e],
    '-': [0, 0x2d],
    '.': [0, 0x37],
    '/': [0, 0x38],
    ':': [SHIFT, 0x33],
    ']': [0, 0x30], // the AIM identifier's first character
  };
  return t[c];
}

export function frKey(c: string): [number, number] {
  if (c >= '1' && c <= '9') return [SHIFT, 0x1e + Number(c) - 1];
  if (c === '0') return [SHIFT, 0x27];
  const moved: Record<string, number> = { A: 0x14, Q: 0x04, Z: 0x1a, W: 0x1d, M: 0x33 };
  if (c >= 'A' && c <= 'Z') return [SHIFT, moved[c] ?? 0x04 + c.charCodeAt(0) - 65];
  const t: Record<string, [number, number]> = {
    ' ': [0, 0x2c],
    $: [0, 0x30],
    '%': [SHIFT, 0x34],
    '*': [0, 0x31],
    '+': [SHIFT, 0x2e],
    '-': [0, 0x23],
    '.': [SHIFT, 0x36],
    '/': [SHIFT, 0x37],
    ':': [0, 0x37],
    ']': [RIGHT_ALT, 0x2d], // AltGr: the AIM identifier's first character
  };
  return t[c];
}

const report = (mod: number, ...keys: number[]) => {
  const r = new Uint8Array(8);
  r[0] = mod;
  r.set(keys.slice(0, 6), 2);
  return r;
};

/** Press and release reports typing `text` then Enter. */
export function typeText(text: string, key: (c: string) => [number, number], end = 0x28): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const c of text) {
    const [m, u] = key(c);
    out.push(report(m, u), report(0));
  }
  out.push(report(0, end), report(0));
  return out;
}

/** Alt+numpad reports for every character of `text` (decimal code), then Enter. */
export function altNumpad(text: string): Uint8Array[] {
  const KP = [0x62, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60, 0x61];
  const out: Uint8Array[] = [];
  for (const c of text) {
    for (const d of String(c.charCodeAt(0))) out.push(report(0x04, KP[Number(d)]), report(0x04));
    out.push(report(0));
  }
  out.push(report(0, 0x28), report(0));
  return out;
}

export { report };
