// saphir sim: a simulator on wall-clock pace for a person (interactive, --pty), and --provision's factory programming.
import { readFileSync, statSync } from 'node:fs';
import { reasonOf } from '../../args.ts';
import type { Lang } from '../../../src/i18n.ts';
import { Simulator, bootChip, ensureBundle, type SimConfig } from '../../../hw-sim/sim.ts';
import { SLOT_SIZE, checkImage, provision, slotSummary, trustedOptions } from '../../../rom/bootloader.ts';
import { NorFlash } from '../../../hw-sim/nor-flash.ts';
import { SCANNER_KINDS } from '../../../hw-sim/scanners/index.ts';
import { displayFrame } from '../../../hw-sim/present.ts';
import { messages } from '../../../src/messages/index.ts';
import { buildNotice } from '../../build-notice.ts';
import { enrolOwnKey, openRegistry, type KeyOptions } from './common.ts';
import { isDevDeviceKey } from '../../../rom/provision.ts';

/** The longest one `wait` of the interactive simulator may last (a simulated day takes tens of seconds). */
export const MAX_WAIT_MS = 86_400_000;

/** A duration as people say it: the two largest units, e.g. "2 h 30 min", "1 j" / "1 d", "250 ms". */
export function durationText(ms: number, lang: Lang): string {
  const units: [number, string][] = [
    [86_400_000, lang === 'fr' ? 'j' : 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
    [1, 'ms'],
  ];
  const parts: string[] = [];
  let rest = Math.round(ms);
  for (const [size, unit] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n} ${unit}`);
  }
  return parts.slice(0, 2).join(' ') || '0 s';
}

/** The interactive simulator's words; `help` lists the scanner kinds and the longest wait. */
const words = (lang: Lang) => ({
  ...messages(lang).sim,
  help: messages(lang).sim.help(SCANNER_KINDS.join(', '), durationText(MAX_WAIT_MS, lang)),
});

export const I = { fr: words('fr'), en: words('en') };

/** A simulator on wall-clock pace: virtual time follows real time while a person watches. */
export async function liveSimulator(
  o: {
    lang: Lang;
    flash?: string;
    /** A signed image programmed into slot A of a blank chip before the first boot (factory programming). */
    provision?: string;
    variant: 'quickjs' | 'quickjs-ng' | 'xs';
    config?: SimConfig;
    registry?: string;
  } & KeyOptions,
) {
  const chip = o.flash ? NorFlash.load(o.flash) : new NorFlash();
  const registry = o.registry ? await openRegistry(o.registry, o.lang) : undefined;
  let last = '';
  let drawPending = false;
  const sim = new Simulator({
    chip,
    variant: o.variant,
    seed: Date.now(),
    clockMs: Date.now(),
    bundle: ensureBundle((why) => process.stderr.write(buildNotice(o.lang, why) + '\n')),
    firmwareKey: o.firmwareKey,
    techKey: o.techKey,
    deviceSeedHex: o.deviceSeedHex,
    deviceId: o.deviceId,
    registryKey: o.registryKey,
    operatorKey: o.operatorKey,
    registry: registry?.reg.url,
    events: {
      // Drawn once the firmware's callback is over, so the frame shows the LED it set after the text.
      display: () => {
        if (drawPending) return;
        drawPending = true;
        queueMicrotask(() => {
          drawPending = false;
          const frame = displayFrame(sim);
          const body = frame.split('\n').slice(1).join('\n');
          if (body !== last) process.stdout.write(frame + '\n');
          last = body;
        });
      },
    },
  });
  if (o.config) sim.configure(o.config);
  else if (!o.flash || registry) sim.configure({});
  if (o.provision) factoryProgram(sim, chip, o.provision, o.lang);
  // A key of its own (this run's, --device-key's, its chip's): enrolled on a development registry first.
  if (registry && !isDevDeviceKey(sim.deviceKey.publicKey)) {
    const line = await enrolOwnKey(registry.reg.url, registry.fleet, sim.deviceId, sim.deviceKey, o.lang);
    if (line) process.stderr.write(line + '\n');
  }
  await sim.boot();
  // One queue: ticks and commands never run at the same time.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <R>(f: () => Promise<R> | R): Promise<R> => {
    const p = queue.then(f);
    queue = p.catch(() => undefined);
    return p;
  };
  let wall = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    const dt = now - wall;
    wall = now;
    void serial(() => sim.run(dt));
  }, 50);
  const save = () => {
    if (o.flash) chip.save(o.flash);
  };
  const close = async () => {
    clearInterval(tick);
    await queue;
    sim.dispose();
    save();
    await registry?.close();
  };
  return { sim, serial, close, save };
}

/**
 * `--provision IMAGE`: the factory writes a signed image into slot A of a blank chip (after the keys of
 * --firmware-key/--tech-key), checked as the bootloader will check it. A chip of --flash already holding
 * this very image is left as it is; one holding any other image is refused (nothing written).
 */
function factoryProgram(sim: Simulator, chip: NorFlash, file: string, lang: Lang): void {
  const m = messages(lang).sim;
  let bytes: Uint8Array;
  try {
    if ((statSync(file).size ?? 0) > SLOT_SIZE) throw new Error(m.provisionTooLarge(SLOT_SIZE));
    bytes = new Uint8Array(readFileSync(file));
  } catch (e) {
    throw new Error(m.provisionRefused(file, reasonOf(e, messages(lang))));
  }
  sim.trust(); // the keys first: the image is judged by them
  const boot = bootChip(chip);
  const o = trustedOptions(boot);
  if ('error' in o) throw new Error(m.provisionRefused(file, o.error));
  const c = checkImage(bytes, 0, o);
  if (!c.ok) throw new Error(m.provisionRefused(file, c.detail));
  const slots = [slotSummary(boot, 0, o), slotSummary(boot, 1, o)];
  if (slots[0].hash === c.hashHex) return; // programmed by an earlier run on this --flash chip
  if (slots.some((s) => s.status !== 'empty')) throw new Error(m.provisionRefused(file, m.provisionNotBlank));
  provision(boot, bytes, c.image.header.securityCounter);
}
