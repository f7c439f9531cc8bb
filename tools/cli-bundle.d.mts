// Types of tools/cli-bundle.mjs (plain JavaScript: bin/saphir.mjs loads it before tsx).
export declare const CLI_CACHE: string;
export declare function freshCliBundle(cache?: string): string | null;
export declare function buildCliBundle(cache?: string, entry?: string): Promise<string>;
