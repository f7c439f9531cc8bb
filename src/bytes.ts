// Unsigned integers in byte arrays, both byte orders, byte equality and erased flash: the one copy for every format (big-endian: the
// ledger, the config record, the SPH1 body, the generator's keys; little-endian: the service
// protocol). Portable. The image format reads its header through a DataView instead.

export function getU16BE(b: Uint8Array, o: number): number {
  return (b[o] << 8) | b[o + 1];
}

export function putU16BE(b: Uint8Array, o: number, v: number): void {
  b[o] = (v >>> 8) & 0xff;
  b[o + 1] = v & 0xff;
}

export function getU32BE(b: Uint8Array, o: number): number {
  return ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
}

export function putU32BE(b: Uint8Array, o: number, v: number): void {
  b[o] = (v >>> 24) & 0xff;
  b[o + 1] = (v >>> 16) & 0xff;
  b[o + 2] = (v >>> 8) & 0xff;
  b[o + 3] = v & 0xff;
}

export function getU16LE(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8);
}

export function putU16LE(b: Uint8Array, o: number, v: number): void {
  b[o] = v & 0xff;
  b[o + 1] = (v >>> 8) & 0xff;
}

export function getU32LE(b: Uint8Array, o: number): number {
  return (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
}

export function putU32LE(b: Uint8Array, o: number, v: number): void {
  b[o] = v & 0xff;
  b[o + 1] = (v >>> 8) & 0xff;
  b[o + 2] = (v >>> 16) & 0xff;
  b[o + 3] = (v >>> 24) & 0xff;
}

/** Every byte 0xFF: erased flash. */
export function isErased(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (b[i] !== 0xff) return false;
  return true;
}

/** Same length and same bytes; reads every byte whatever differs (hashes and keys are compared with it). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}
