// Shared by the two Node bundles built from the sources (the prebuilt CLI, tools/cli-bundle.mjs, and the
// worker bundle of gen and audit, host/workers/bundle.ts): a source's size and date, and the esbuild
// plugin that keeps each source's own `import.meta.url` (paths it resolves stay the repository's) and
// reports every source it reads with its stamp. Plain JavaScript: bin/saphir.mjs loads it before tsx.
import { readFileSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** [mtimeMs, size] of a file, or null when it is not there. */
export function stamp(path) {
  try {
    const s = statSync(path);
    return [s.mtimeMs, s.size];
  } catch {
    return null;
  }
}

/** The esbuild plugin; `onInput(path, stamp)` for each source read (stamped before reading). */
export function ownUrlPlugin(onInput) {
  return {
    name: 'own-url',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?[tj]s$/ }, (args) => {
        // Stamped before reading: a source edited during the build makes the next run stale.
        const s = stamp(args.path);
        if (s) onInput(args.path, s);
        const text = readFileSync(args.path, 'utf8');
        return {
          contents: text.split('import.meta.url').join(JSON.stringify(pathToFileURL(args.path).href)),
          loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js',
        };
      });
    },
  };
}
