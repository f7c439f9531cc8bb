export function pick(
  queue: readonly { name: string }[],
  running: ReadonlySet<string>,
  alone: ReadonlySet<string>,
  free: RegExp,
  waits?: (name: string) => boolean,
): number;
