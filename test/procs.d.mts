export function marked(marker: string): number[];
export function descendants(root?: number): number[];
export function killDescendants(): void;
