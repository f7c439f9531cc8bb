// Standard output for every command: a reader that goes away (`saphir check - | head`) ends the
// output quietly instead of an unhandled EPIPE, and long outputs wait for the pipe to drain.

let gone = false;
let watching = false;

/** Handles stdout's errors from now on (cli.ts, once): EPIPE marks it gone; anything else is thrown. */
export function watchStdout(): void {
  if (watching) return;
  watching = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') gone = true;
    else throw e;
  });
}

/** True once the reader of stdout has gone: a command may stop producing. */
export function stdoutGone(): boolean {
  return gone;
}

/** Writes to stdout; resolves once it may be written again (drained), or at once when the reader is gone. */
export function writeOut(data: string | Uint8Array): Promise<void> {
  return new Promise<void>((resolve) => {
    if (gone || process.stdout.write(data)) return resolve();
    const done = () => {
      process.stdout.off('drain', done);
      process.stdout.off('error', done);
      process.stdout.off('close', done);
      resolve();
    };
    process.stdout.on('drain', done);
    process.stdout.on('error', done);
    process.stdout.on('close', done);
  });
}
