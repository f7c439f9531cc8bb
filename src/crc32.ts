// CRC-32 (IEEE 802.3, reflected, poly 0xEDB88320), as zlib's crc32. Portable.

let table: Uint32Array | undefined;

function makeTable(): Uint32Array {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
}

/** CRC-32 of `bytes`; pass a previous result as `crc` to continue over several pieces. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  const t = table ?? (table = makeTable());
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = t[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
