export function marked(marker: string): number[];
export function children(parent: number): number[];
export function descendants(root?: number): number[];
export function killDescendants(): void;
export function orphaned(): never;
export function commandLine(pid: number): string;
export function commandsWith(text: string): string[];
