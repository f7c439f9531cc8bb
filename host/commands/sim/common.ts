// saphir sim: what its modes share (the XS check, the device's key options, the registry a run uses).
import { Failure, reasonOf } from '../../args.ts';
import type { Lang } from '../../../src/i18n.ts';
import type { ScenarioRegistry } from '../../../hw-sim/runner.ts';
import { scenarioRegistry, startEmbeddedRegistry } from '../../registry/embedded.ts';
import { messages } from '../../../src/messages/index.ts';
import { XS_INSTALL, xsnapWorker } from '../../../hw-sim/xs-host.ts';
import { enrolDevelopmentKey } from '../../registry/client.ts';

/** Stops a run that needs the XS engine where it is not built (exit 1: the reason and the install command). */
export function needXs(): void {
  const w = xsnapWorker();
  if ('missing' in w) throw new Failure((m) => m.sim.xsMissing(w.reason, XS_INSTALL));
}

export interface KeyOptions {
  /** The device's id (`--device-id`); default the simulator's. */
  deviceId?: string;
  firmwareKey?: Uint8Array;
  techKey?: Uint8Array;
  /** The device's registry seed, provisioned with the other keys (`--device-key FILE`). */
  deviceSeedHex?: string;
  /** The registry's public key, which signs its answers (`--registry-pub HEX|FILE`). */
  registryKey?: Uint8Array;
  /** The operator's public key, which signs the notices (`--operator-key HEX|FILE`). */
  operatorKey?: Uint8Array;
}

/** Whether the registry at `url` answers its GET /health, in one line for the user. */
export async function probeRegistry(url: string, lang: Lang, timeoutS = 3): Promise<string> {
  const m = messages(lang);
  try {
    const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutS * 1000) });
    await r.body?.cancel();
    return r.ok ? m.sim.registryAnswers(url) : m.sim.registryDown(url, `HTTP ${r.status}`);
  } catch (e) {
    const timedOut = (e as Error)?.name === 'TimeoutError';
    return m.sim.registryDown(
      url,
      timedOut ? m.sim.noAnswerIn(timeoutS) : reasonOf((e as { cause?: unknown })?.cause ?? e, m),
    );
  }
}

/**
 * A simulated device with a key of its own (a run's, `--device-key`, or its chip's) on a registry: a
 * development registry enrols it (POST /v1/enrol, signed by that key); a production one is told of
 * by the `devices add` line. One line for the user; none when the registry does not answer (said).
 */
export async function enrolOwnKey(
  url: string,
  deviceId: string,
  key: { publicKey: Uint8Array; sign(m: Uint8Array): Uint8Array },
  lang: Lang,
): Promise<string | null> {
  const m = messages(lang);
  let fleet: unknown;
  try {
    const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(3000) });
    fleet = ((await r.json().catch(() => ({}))) as { fleet?: unknown }).fleet;
  } catch {
    return null; // openRegistry's probe said why
  }
  if (fleet === 'production') return m.sim.keyProduction(deviceId, Buffer.from(key.publicKey).toString('hex'));
  try {
    const r = await enrolDevelopmentKey(url, deviceId, key);
    if (r.ok && r.body.enrolled === true) return m.sim.keyEnrolled(deviceId, !!r.body.replaced);
    return m.sim.keyNotEnrolled(`HTTP ${r.status}${r.body.detail ? ` : ${r.body.detail}` : ''}`);
  } catch (e) {
    return m.sim.keyNotEnrolled(reasonOf((e as { cause?: unknown })?.cause ?? e, m));
  }
}

/**
 * The registry a run uses: the URL given, or an embedded one (started here, closed by `close`; `fresh`
 * empties it and starts it again if a scenario left it down, so that each scenario meets a new one).
 */
export async function openRegistry(
  v: string,
  lang: Lang,
): Promise<{ reg: ScenarioRegistry; close(): Promise<void>; fresh(): Promise<void> }> {
  if (v !== 'embedded') {
    // Said at once: a registry that does not answer lets the device pay offline without a word.
    process.stderr.write((await probeRegistry(v, lang)) + '\n');
    const no = messages(lang).sim.registryByUrl;
    return {
      reg: { url: v, state: () => Promise.reject(new Error(no)) },
      close: async () => {},
      fresh: async () => {},
    };
  }
  const e = await startEmbeddedRegistry();
  process.stderr.write(messages(lang).sim.embeddedRegistry(e.url) + '\n');
  return {
    reg: scenarioRegistry(e),
    close: () => e.close(),
    fresh: async () => {
      await e.start();
      await e.reset();
    },
  };
}
