// Progress for CI logs and pipes: `flash`, `ledger export`, `audit`, `gen` and `sim --explore` print a plain line every
// 10 % on stderr when it is not a terminal (a terminal gets the command's own bar), none with --quiet.

/** Calls `f` with each tenth (10 … 100 %) progress passes, once for a jump over several. */
export function eachTenth(f: (pct: number) => void): (p: { done: number; total: number }) => void {
  let next = 10;
  return (p) => {
    const pct = p.total ? Math.floor((p.done * 100) / p.total) : 100;
    if (pct < next) return;
    while (next <= pct) next += 10;
    f(Math.min(100, next - 10));
  };
}

/** Off a terminal (or for several devices): "LABEL 30 %" every 10 %, nothing with `quiet`. */
export function plainProgress(
  label: string,
  quiet: boolean,
  write: (s: string) => void = (s) => process.stderr.write(s),
): (p: { done: number; total: number }) => void {
  if (quiet) return () => {};
  return eachTenth((pct) => write(`${label}${label ? ' ' : ''}${pct} %\n`));
}

/** The plain progress when stderr is not a terminal, else nothing (for commands without a bar). */
export function progressOffTty(label: string, quiet: boolean): (p: { done: number; total: number }) => void {
  return process.stderr.isTTY ? () => {} : plainProgress(label, quiet);
}
