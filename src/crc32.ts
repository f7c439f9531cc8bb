// CRC-32 (IEEE 802.3, reflected, poly 0xEDB88320), as zlib's crc32. Portable. Four bytes a step
// ("slicing by 4") and over a range without a subarray: opening a full ledger checks ~26 000 slots,
// and in QuickJS this is most of it.

let tables: Uint32Array | undefined;

/** t[0…255]: the byte table; t[256·k + i]: the same for a byte k positions further back. */
function makeTables(): Uint32Array {
  const t = new Uint32Array(1024);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  for (let i = 256; i < 1024; i++) t[i] = (t[i - 256] >>> 8) ^ t[t[i - 256] & 0xff];
  return t;
}

/** CRC-32 of `n` bytes of `b` from offset `o`; pass a previous result as `crc` to continue. */
export function crc32Range(b: Uint8Array, o: number, n: number, crc = 0): number {
  const t = tables ?? (tables = makeTables());
  let c = ~crc >>> 0;
  let i = o;
  const end = o + n;
  for (; i + 4 <= end; i += 4) {
    c ^= b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
    c = t[768 + (c & 0xff)] ^ t[512 + ((c >>> 8) & 0xff)] ^ t[256 + ((c >>> 16) & 0xff)] ^ t[c >>> 24];
  }
  for (; i < end; i++) c = t[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** CRC-32 of `bytes`; pass a previous result as `crc` to continue over several pieces. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  return crc32Range(bytes, 0, bytes.length, crc);
}
