// One JSON style for every --json output: snake_case keys.

/** `deviceId` → `device_id`, recursively through arrays and plain objects. */
export function snakeKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snakeKeys);
  if (v === null || typeof v !== 'object' || v instanceof Uint8Array) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())] = snakeKeys(x);
  return out;
}
