// Lines of a byte stream, split on LF (a CR before it is dropped); bytes are decoded as UTF-8 per line,
// so binary garbage becomes U+FFFD characters instead of an exception.
import type { Readable } from 'node:stream';

export async function* lines(input: Readable): AsyncGenerator<string> {
  let parts: Buffer[] = [];
  for await (const chunk of input as AsyncIterable<Buffer>) {
    let start = 0;
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, start)) {
      parts.push(chunk.subarray(start, i));
      yield finish(parts);
      parts = [];
      start = i + 1;
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
  }
  if (parts.length > 0) yield finish(parts);
}

function finish(parts: Buffer[]): string {
  let b = parts.length === 1 ? parts[0] : Buffer.concat(parts);
  if (b.length > 0 && b[b.length - 1] === 13) b = b.subarray(0, b.length - 1);
  return b.toString('utf8');
}
