export function pick(
  queue: readonly { name: string }[],
  running: ReadonlySet<string>,
  alone: ReadonlySet<string>,
  free: RegExp,
  waits?: (name: string) => boolean,
  lane?: 'waits' | 'compute',
): number;
export function parks(o: {
  lane: boolean;
  live: number;
  lanes: number;
  jobs: number;
  idleCores: number;
  queued: number;
}): boolean;
