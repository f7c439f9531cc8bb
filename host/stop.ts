// How a command that runs until it is stopped (a server, a service port, a session, a scanner) hears Ctrl-C.

/**
 * Listens now for `signals`; `stopped` resolves at the first of them, or at `stop()`, and then stops
 * listening (a second Ctrl-C ends the process at once). Call it before printing the line a script waits for
 * (an address, a port, "prêt"): a signal that comes before any listener kills the process by its default
 * action, and what the command would save on its way out is lost. `off()` stops listening without stopping.
 */
export function untilStopped(signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM']): {
  stopped: Promise<void>;
  stop: () => void;
  off: () => void;
} {
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const heard = () => stop();
  const off = () => {
    for (const s of signals) process.off(s, heard);
  };
  for (const s of signals) process.on(s, heard);
  void stopped.then(off);
  return { stopped, stop, off };
}
