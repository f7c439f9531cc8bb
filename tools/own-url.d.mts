// Types of tools/own-url.mjs.
import type { Plugin } from 'esbuild';
export declare function stamp(path: string): [number, number] | null;
export declare function ownUrlPlugin(onInput: (path: string, stamp: [number, number]) => void): Plugin;
