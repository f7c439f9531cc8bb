// A cache keyed by the bytes of a small key (an Ed25519 seed or public key). The key asked last is
// recognised by identity and content, without building its hex name: when one key signs or verifies a
// whole block, that is every call but the first. Node-only.

/** `make(bytes)`, computed once per distinct content (at most `limit` kept). */
export function bytesMemo<T>(make: (bytes: Uint8Array) => T, limit = 4096): (bytes: Uint8Array) => T {
  const cache = new Map<string, T>();
  let last: Uint8Array | null = null;
  let lastCopy = new Uint8Array(0);
  let lastValue: T;
  return (bytes) => {
    // The copy catches a caller that changed the bytes of the same array in place.
    if (bytes === last && sameBytes(bytes, lastCopy)) return lastValue;
    const id = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
    let v = cache.get(id);
    if (v === undefined && !cache.has(id)) {
      v = make(bytes);
      if (cache.size >= limit) cache.clear();
      cache.set(id, v);
    }
    last = bytes;
    lastCopy = bytes.slice();
    lastValue = v as T;
    return v as T;
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
