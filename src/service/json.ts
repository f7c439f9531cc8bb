// JSON payloads as UTF-8 bytes, without TextEncoder (portable).
import { utf8Decode, utf8Encode } from '../utf8.ts';

export function jsonBytes(value: unknown): Uint8Array {
  return utf8Encode(JSON.stringify(value));
}

/** Parses a JSON payload; undefined when it is not JSON. */
export function parseJson(b: Uint8Array): unknown {
  try {
    return JSON.parse(utf8Decode(b));
  } catch {
    return undefined;
  }
}
