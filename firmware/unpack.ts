// Unpacks text packed by tools/pack-text.ts (the camera path is carried packed: a third of its
// heap until the first frame). Portable.
//
// The packed text is printable ASCII: any character but the three markers is itself; a marker starts
// a back-reference of 1 (`@`), 2 (`#`) or 3 (`~`) distance digits, after a length digit (digits are
// characters 32…126, value c − 32; a length digit of 0 means the next character is a literal marker).
// Length = 3 + digit, distance = 1 + the digits in base 95.

/** `text` unpacked; `length`: the length of the result. */
export function unpack(text: string, length: number): string {
  const out = new Uint8Array(length);
  let j = 0;
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i++);
    const k = c === 64 ? 1 : c === 35 ? 2 : c === 126 ? 3 : 0;
    if (k === 0) {
      out[j++] = c;
      continue;
    }
    const l = text.charCodeAt(i++) - 32;
    if (l === 0) {
      out[j++] = text.charCodeAt(i++);
      continue;
    }
    let d = 0;
    for (let q = 0; q < k; q++) d = d * 95 + text.charCodeAt(i++) - 32;
    for (const e = j + l + 3; j < e; j++) out[j] = out[j - d - 1];
  }
  // 256 characters per call: `apply` puts every one on the engine's stack, and XS's is small (4 096 slots
  // in xsnap, fewer on a microcontroller): 4 096 at once overflowed it (test/sim/scenarios.test.ts on XS).
  let s = '';
  for (let p = 0; p < length; p += 256)
    s += String.fromCharCode.apply(null, out.subarray(p, p + 256) as unknown as number[]);
  return s;
}
