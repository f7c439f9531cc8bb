// Firmware bundles with a planted defect, to prove the explorer has teeth: the firmware sources
// bundled as build.mjs does (camera-less), with one patch file applied. When the source changed and a
// patch no longer applies, the build says so instead of planting nothing.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../tools/paths.ts';
import { applyFilePatch, parsePatch, type FilePatch } from './patch.ts';

/**
 * The planted defects: each is a unified diff, `test/explore/defects/NAME.patch` (its first lines say
 * what it breaks), applied to the sources as esbuild loads them. A patch that no longer applies fails
 * the build and names its hunk: rewrite it (`diff -u`) against the sources as they are now.
 */
export const DEFECT_NAMES = [
  'skip-ledger-write',
  'accept-bad-signature',
  'pay-on-c',
  'accept-foreign-game',
  'accept-untabled-prize',
  'drop-crc-check',
  'forget-high-water',
  'never-confirm',
  'pay-after-deadline',
  'swap-emission-block',
  // Fleet defects (`--fleet`: hw-sim/explore/fleet.ts).
  'offline-above-limit',
  'ignore-already-paid',
  'forget-outbox',
  'accept-foreign-notice',
] as const;

export type DefectName = (typeof DEFECT_NAMES)[number];

export const DEFECTS_DIR = join(ROOT, 'test', 'explore', 'defects');

/** The patch of `defect`, parsed; `text` instead of its file (a test's own patch). */
export function defectPatch(defect: string, text?: string): FilePatch[] {
  return parsePatch(text ?? readFileSync(join(DEFECTS_DIR, `${defect}.patch`), 'utf8'));
}

/** The firmware bundle text with `defect` planted (or none: the same build, unpatched). */
export async function plantedBundle(defect: DefectName | null, patchText?: string): Promise<string> {
  const patches = defect ? defectPatch(defect, patchText) : [];
  const planted = new Set<string>();
  const r = await build({
    entryPoints: [join(ROOT, 'firmware', 'main.ts')],
    bundle: true,
    format: 'iife',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2020',
    write: false,
    logLevel: 'silent',
    define: { __VERSION__: JSON.stringify('0.0.0-planted'), __PRODUCTION__: 'false' },
    plugins: [
      {
        name: 'planted',
        setup(b) {
          b.onResolve({ filter: /^@noble\/hashes\/sha2(\.js)?$/ }, () => ({
            path: join(ROOT, 'firmware', 'sha512.ts'),
          }));
          b.onResolve({ filter: /\/camera\.ts$/ }, (args) =>
            join(args.resolveDir, args.path) === join(ROOT, 'firmware', 'camera.ts')
              ? { path: join(ROOT, 'firmware', 'camera-none.ts') }
              : undefined,
          );
          if (!patches.length) return;
          b.onLoad({ filter: /\.ts$/ }, (args) => {
            const p = patches.find((x) => join(ROOT, x.file) === args.path);
            if (!p) return undefined;
            try {
              const contents = applyFilePatch(readFileSync(args.path, 'utf8'), p);
              planted.add(p.file);
              return { contents, loader: 'ts' };
            } catch (e) {
              return { errors: [{ text: `planted defect ${defect}: ${(e as Error).message}` }] };
            }
          });
        },
      },
    ],
  });
  for (const p of patches)
    if (!planted.has(p.file)) throw new Error(`planted defect ${defect}: ${p.file} was not part of the bundle`);
  return r.outputFiles[0].text;
}
