// COBS (Consistent Overhead Byte Stuffing): frames contain no 0x00, so 0x00 delimits them.
// Overhead: one byte per 254 bytes of data plus the delimiter. Portable.

/** Encodes `data` and appends the 0x00 delimiter. */
export function cobsEncode(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(data.length + Math.ceil(data.length / 254) + 2);
  let codeAt = 0;
  let o = 1;
  let code = 1;
  for (let i = 0; i < data.length; i++) {
    const b = data[i];
    if (b === 0) {
      out[codeAt] = code;
      codeAt = o++;
      code = 1;
    } else {
      out[o++] = b;
      code++;
      if (code === 0xff) {
        out[codeAt] = code;
        codeAt = o++;
        code = 1;
      }
    }
  }
  out[codeAt] = code;
  out[o++] = 0;
  return out.subarray(0, o);
}

/** Decodes one frame (without its delimiter); null when malformed. */
export function cobsDecode(frame: Uint8Array): Uint8Array | null {
  const out = new Uint8Array(frame.length);
  let o = 0;
  let i = 0;
  while (i < frame.length) {
    const code = frame[i++];
    if (code === 0) return null;
    const end = i + code - 1;
    if (end > frame.length) return null;
    while (i < end) {
      const b = frame[i++];
      if (b === 0) return null;
      out[o++] = b;
    }
    if (code !== 0xff && i < frame.length) out[o++] = 0;
  }
  return out.subarray(0, o);
}
