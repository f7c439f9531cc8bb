// A line awaited in a child's output (the simulator's, saphir flash's).

/** Resolves when `re` shows up in what `stream` printed (from now on). */
export function waitFor(stream: NodeJS.ReadableStream, re: RegExp, ms = 20000): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const t = setTimeout(() => {
      stream.off('data', on);
      reject(new Error(`timed out waiting for ${re}: ${seen.slice(-500)}`));
    }, ms);
    const on = (d: Buffer) => {
      seen += d.toString();
      if (re.test(seen)) {
        clearTimeout(t);
        stream.off('data', on);
        resolve(seen);
      }
    };
    stream.on('data', on);
  });
}
