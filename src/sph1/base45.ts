// RFC 9285 Base45, over the QR alphanumeric alphabet.

export const BASE45_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';

const VALUE = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let i = 0; i < BASE45_ALPHABET.length; i++) t[BASE45_ALPHABET.charCodeAt(i)] = i;
  return t;
})();

/** Base45 text: a string, or its ASCII bytes (any byte above 127 is outside the alphabet). */
export type Base45Text = string | Uint8Array;

function valueAt(s: Base45Text, i: number): number {
  const c = typeof s === 'string' ? s.charCodeAt(i) : s[i];
  return c < 128 ? VALUE[c] : -1;
}

export function base45Encode(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    let n = bytes[i] * 256 + bytes[i + 1];
    const c = n % 45;
    n = (n - c) / 45;
    out += BASE45_ALPHABET[c] + BASE45_ALPHABET[n % 45] + BASE45_ALPHABET[(n - (n % 45)) / 45];
  }
  if (bytes.length % 2 === 1) {
    const n = bytes[bytes.length - 1];
    out += BASE45_ALPHABET[n % 45] + BASE45_ALPHABET[(n - (n % 45)) / 45];
  }
  return out;
}

/**
 * Checks `s[start…]` is valid Base45 without decoding it, so a huge input costs no memory.
 * Returns the decoded byte length, or -1.
 */
export function base45DecodedLength(s: Base45Text, start = 0): number {
  const n = s.length - start;
  if (n % 3 === 1) return -1;
  for (let i = start; i < s.length; i += 3) {
    const rest = s.length - i;
    const a = valueAt(s, i);
    const b = valueAt(s, i + 1);
    if (a < 0 || b < 0) return -1;
    if (rest >= 3) {
      const c = valueAt(s, i + 2);
      if (c < 0 || a + b * 45 + c * 2025 > 0xffff) return -1;
    } else if (a + b * 45 > 0xff) return -1;
  }
  return Math.floor(n / 3) * 2 + (n % 3 === 2 ? 1 : 0);
}

/** Decodes `s[start…]`; null when it is not valid Base45. */
export function base45Decode(s: string, start = 0): Uint8Array | null {
  const len = base45DecodedLength(s, start);
  return len < 0 ? null : base45DecodeValid(s, start, len);
}

/**
 * Decodes `s[start…]`, already found valid and `len` bytes long by base45DecodedLength, into `out` at
 * `at` (a new array by default); returns `out`.
 */
export function base45DecodeValid(
  s: Base45Text,
  start: number,
  len: number,
  out = new Uint8Array(len),
  at = 0,
): Uint8Array {
  let o = at;
  for (let i = start; i < s.length; i += 3) {
    if (s.length - i >= 3) {
      const v = valueAt(s, i) + valueAt(s, i + 1) * 45 + valueAt(s, i + 2) * 2025;
      out[o++] = v >> 8;
      out[o++] = v & 0xff;
    } else {
      out[o++] = valueAt(s, i) + valueAt(s, i + 1) * 45;
    }
  }
  return out;
}

/**
 * Decodes src[start…end), whole groups of three characters given as bytes (end − start a multiple of
 * 3), into `out` at `at`, in one pass; false where base45DecodedLength would refuse the text (a byte
 * outside the alphabet, a group above 0xffff), `out` then partly written. `saphir audit`'s path.
 */
export function base45DecodeGroups(src: Uint8Array, start: number, end: number, out: Uint8Array, at = 0): boolean {
  for (let i = start, o = at; i < end; i += 3, o += 2) {
    const x = src[i];
    const y = src[i + 1];
    const z = src[i + 2];
    const a = VALUE[x & 127];
    const b = VALUE[y & 127];
    const c = VALUE[z & 127];
    if (((x | y | z) & 128) !== 0 || (a | b | c) < 0) return false;
    const v = a + b * 45 + c * 2025;
    if (v > 0xffff) return false;
    out[o] = v >> 8;
    out[o + 1] = v & 0xff;
  }
  return true;
}
