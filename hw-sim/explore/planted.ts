// Firmware bundles with a planted defect, to prove the explorer has teeth: the firmware sources
// bundled as build.mjs does (camera-less), with one piece of source text replaced. When the source
// changed and an anchor is gone, the build says so instead of planting nothing.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../tools/paths.ts';

export interface PlantedDefect {
  /** The source file (from the repository root) and the text replaced. */
  file: string;
  anchor: string;
  replacement: string;
  what: string;
}

export const DEFECTS = {
  'skip-ledger-write': {
    file: 'firmware/app.ts',
    anchor: 'this.ledger.record({',
    replacement: '((_p: unknown) => undefined)({',
    what: 'PAYÉ is shown but the payment is not written to the ledger',
  },
  'accept-bad-signature': {
    file: 'firmware/app.ts',
    anchor: 'verify: deviceVerify }',
    replacement: 'verify: () => true }',
    what: 'scanned codes are accepted whatever their signature',
  },
  'pay-on-c': {
    file: 'firmware/app.ts',
    anchor: "if (k === 'C') return this.shown(cancelledScreen(this.lang), 'key', 1500);",
    replacement: "if (k === 'C') return this.pay(s.verdict);",
    what: 'C on a payable win pays instead of cancelling',
  },
  'accept-foreign-game': {
    file: 'src/sph1/check.ts',
    anchor: "  if (parsed.id.game !== GAME_SAPHIR) return invalid('E_GAME', decoded);\n",
    replacement: '',
    what: 'a code signed with a trusted key for another game is read as a SAPHIR ticket',
  },
  'accept-untabled-prize': {
    file: 'src/sph1/check.ts',
    anchor: "  if (prizeEur !== 0 && !isPrizeAmount(prizeEur)) return invalid('E_PRIZE_NOT_IN_TABLE', decoded);\n",
    replacement: '',
    what: 'a signed code whose win is no prize of the table is paid',
  },
  'drop-crc-check': {
    file: 'src/ledger/format.ts',
    anchor: "return getU32BE(b, o + 36) === crc32Range(b, o, 36) ? 'ok' : 'bad';",
    replacement: "return 'ok';",
    what: 'the ledger trusts a payment slot without checking its CRC (a torn write reads as a payment)',
  },
  'forget-high-water': {
    file: 'firmware/app.ts',
    anchor: '    const rtc = this.rtc.now();\n    if (!(rtc >= base) || !this.clockOk(rtc)) return base;',
    replacement: '    const rtc = this.rtc.now();\n    if (rtc === rtc) return rtc;',
    what: 'trusted time forgets its high-water mark: a clock set back is believed',
  },
  'never-confirm': {
    file: 'firmware/app.ts',
    anchor: 'd.identity.confirm();',
    replacement: '/* not confirmed */',
    what: 'an updated image never confirms itself, so the bootloader reverts it at the next reset',
  },
  'pay-after-deadline': {
    file: 'firmware/app.ts',
    anchor: '        if (now >= deadlineMs) {',
    replacement: '        if (now < 0) {',
    what: 'OK pays the verdict of the scan even when the claim period closed since',
  },
  // Fleet defects (`--fleet`: hw-sim/explore/fleet.ts).
  'offline-above-limit': {
    file: 'firmware/app.ts',
    anchor: 'if (v.prizeEur <= this.config.offlineLimitEur) {',
    replacement: 'if (v.prizeEur === v.prizeEur) {',
    what: 'without an answer from the registry, a win is paid offline whatever its amount',
  },
  'ignore-already-paid': {
    file: 'firmware/app.ts',
    anchor: "if (got && got.result === 'already_paid') {",
    replacement: "if (got && got.result === 'already_paid') {\n      return this.pay(s.verdict);",
    what: 'the registry says another device paid the ticket, and the device pays it online all the same',
  },
  'forget-outbox': {
    file: 'firmware/app.ts',
    anchor: 'this.outbox!.add({',
    replacement: '((_e: unknown) => undefined)({',
    what: 'an offline payment is not written to the outbox: the registry never hears of it',
  },
} as const satisfies Record<string, PlantedDefect>;

export type DefectName = keyof typeof DEFECTS;

/** The firmware bundle text with `defect` planted (or none: the same build, unpatched). */
export async function plantedBundle(defect: DefectName | null): Promise<string> {
  const d: PlantedDefect | null = defect ? DEFECTS[defect] : null;
  let planted = false;
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
          if (!d) return;
          const target = join(ROOT, d.file);
          b.onLoad({ filter: /\.ts$/ }, (args) => {
            if (args.path !== target) return undefined;
            const src = readFileSync(args.path, 'utf8');
            if (!src.includes(d.anchor))
              return {
                errors: [
                  {
                    text: `planted defect ${defect}: '${d.anchor}' is no longer in ${d.file}; update hw-sim/explore/planted.ts`,
                  },
                ],
              };
            if (src.indexOf(d.anchor) !== src.lastIndexOf(d.anchor))
              return {
                errors: [
                  { text: `planted defect ${defect}: '${d.anchor}' is in ${d.file} more than once; make it unique` },
                ],
              };
            planted = true;
            return { contents: src.replace(d.anchor, d.replacement), loader: 'ts' };
          });
        },
      },
    ],
  });
  if (d && !planted) throw new Error(`planted defect ${defect}: ${d.file} was not part of the bundle`);
  return r.outputFiles[0].text;
}
