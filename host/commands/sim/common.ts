// saphir sim: what its modes share (the XS check, the device's key options, the registry a run uses).
import { Failure, reasonOf } from '../../args.ts';
import type { Lang } from '../../../src/i18n.ts';
import type { DeviceKey } from '../../../src/hal.ts';
import { toHex } from '../../../src/hex.ts';
import { formatEur } from '../../../src/i18n.ts';
import { frenchDateTime } from '../../../src/paris-time.ts';
import type { Payment } from '../../../src/ledger/index.ts';
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

/** The words of the interactive and pty sims' ledger command; "registre" is its name from before
 * "registre" meant the central registry only. */
export const LEDGER_WORDS: readonly string[] = ['journal', 'registre', 'ledger'];

/** One payment as that command lists it, the time in Paris time as the display shows it. */
export function ledgerLine(p: Payment, lang: Lang): string {
  return `  ${p.emission}/${p.block}/${p.number}  ${formatEur(p.prizeEur, lang)}  ${frenchDateTime(p.paidAtMs)}  ${p.deviceId}`;
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

/**
 * Whether the registry at `url` answers its GET /health, in one line for the user, and the fleet that
 * answer names (undefined when it names none; null when the registry did not answer).
 */
async function probeRegistry(
  url: string,
  lang: Lang,
  timeoutS = 3,
): Promise<{ line: string; fleet: string | undefined | null }> {
  const m = messages(lang);
  try {
    const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutS * 1000) });
    const f = ((await r.json().catch(() => ({}))) as { fleet?: unknown }).fleet;
    return {
      line: r.ok ? m.sim.registryAnswers(url) : m.sim.registryDown(url, `HTTP ${r.status}`),
      fleet: typeof f === 'string' ? f : undefined,
    };
  } catch (e) {
    const timedOut = (e as Error)?.name === 'TimeoutError';
    const why = timedOut ? m.sim.noAnswerIn(timeoutS) : reasonOf((e as { cause?: unknown })?.cause ?? e, m);
    return { line: m.sim.registryDown(url, why), fleet: null };
  }
}

/**
 * A simulated device with a key of its own (a run's, `--device-key`, or its chip's) on a registry: a
 * development registry enrols it (POST /v1/enrol, signed by that key); a production one is told of
 * by the `devices add` line. `fleet` is openRegistry's. One line for the user; none when the registry
 * did not answer (its probe said why).
 */
export async function enrolOwnKey(
  url: string,
  fleet: string | undefined | null,
  deviceId: string,
  key: DeviceKey,
  lang: Lang,
): Promise<string | null> {
  const m = messages(lang);
  if (fleet === null) return null;
  if (fleet === 'production') return m.sim.keyProduction(deviceId, toHex(key.publicKey));
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
 * `fleet`: what the URL's /health named (see probeRegistry); the embedded one starts a development fleet.
 */
export async function openRegistry(
  v: string,
  lang: Lang,
): Promise<{
  reg: ScenarioRegistry;
  fleet: string | undefined | null;
  close(): Promise<void>;
  fresh(): Promise<void>;
}> {
  if (v !== 'embedded') {
    // Said at once: a registry that does not answer lets the device pay offline without a word.
    const { line, fleet } = await probeRegistry(v, lang);
    process.stderr.write(line + '\n');
    const no = messages(lang).sim.registryByUrl;
    return {
      reg: { url: v, state: () => Promise.reject(new Error(no)) },
      fleet,
      close: async () => {},
      fresh: async () => {},
    };
  }
  const e = await startEmbeddedRegistry();
  process.stderr.write(messages(lang).sim.embeddedRegistry(e.url) + '\n');
  return {
    reg: scenarioRegistry(e),
    fleet: 'development',
    close: () => e.close(),
    fresh: async () => {
      await e.start();
      await e.reset();
    },
  };
}
