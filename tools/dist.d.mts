// Types of tools/dist.mjs.
export declare const DIST: string;
export declare const BUNDLE_PATH: string;
