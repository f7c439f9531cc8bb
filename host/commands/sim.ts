// saphir sim: the hardware simulator.
//   saphir sim --scenario FILE…        plays scenarios (exit 1 if one fails)
//   saphir sim                         interactive: type or paste codes, generate tickets, press keys
//   saphir sim --bridge-hid VID:PID|PATH [--hid-mode keyboard|pos]   a real HID scanner feeds the device
//   saphir sim --bridge-serial PATH [--baud N]                      a real serial scanner feeds the device
//   saphir sim --pty [PATH]            the device's service port on a pseudo-terminal (hw-sim/pty.ts)
//   saphir sim --web | --explore       the simulator in a browser page / the fault explorer
// Here: the options and which mode runs; each mode in host/commands/sim/ (scenarios, interactive with
// its bridges, pty, web; live: the wall-clock simulator they share), the explorer in sim-explore.ts.
import { statSync } from 'node:fs';
import { Failure, intOf, UsageError, parseCommand } from '../args.ts';
import type { Lang } from '../../src/i18n.ts';
import { Simulator } from '../../hw-sim/sim.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { messages } from '../../src/messages/index.ts';
import { toHex } from '../../src/hex.ts';
import { createHash, randomBytes } from 'node:crypto';
import { deviceSeedArg, publicKeyArg } from '../key-args.ts';
import { impliesProduction, isDevDeviceKey, productionKeyProblem } from '../../rom/provision.ts';
import { CHIP_SIZE } from '../../rom/layout.ts';
import { isDepartment } from '../../src/config-schema.ts';
import '../../hw-sim/node-host.ts';
import { needXs } from './sim/common.ts';
import { isHidSpec } from '../hid.ts';
import { scenarios } from './sim/scenarios.ts';
import { interactive } from './sim/interactive.ts';
import { pty, ptyProblem } from './sim/pty.ts';
import { web } from './sim/web.ts';

const HELP = (lang: Lang) => messages(lang).help.sim;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    scenario: { type: 'string', multiple: true },
    quiet: { type: 'boolean' },
    screenshots: { type: 'string' },
    variant: { type: 'string' },
    flash: { type: 'string' },
    provision: { type: 'string' },
    'bridge-hid': { type: 'string' },
    'hid-mode': { type: 'string' },
    'bridge-serial': { type: 'string' },
    baud: { type: 'string' },
    pty: { type: 'boolean' },
    'firmware-key': { type: 'string' },
    'tech-key': { type: 'string' },
    'device-key': { type: 'string' },
    'device-id': { type: 'string' },
    department: { type: 'string' },
    'registry-pub': { type: 'string' },
    'operator-key': { type: 'string' },
    registry: { type: 'string' },
    web: { type: 'boolean' },
    port: { type: 'string' },
    host: { type: 'string' },
    open: { type: 'boolean' },
    explore: { type: 'string' },
    'quickjs-every': { type: 'string' },
    ed25519: { type: 'string' },
    seed: { type: 'string' },
    index: { type: 'string' },
    jobs: { type: 'string' },
    json: { type: 'boolean' },
    out: { type: 'string' },
    faults: { type: 'string' },
    fleet: { type: 'boolean' },
    devices: { type: 'string' },
    attacker: { type: 'boolean' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  if (values.flash !== undefined) flashFileArg(values.flash);
  const keys = {
    firmwareKey:
      values['firmware-key'] === undefined ? undefined : publicKeyArg('--firmware-key', values['firmware-key']),
    techKey: values['tech-key'] === undefined ? undefined : publicKeyArg('--tech-key', values['tech-key']),
    deviceSeedHex: values['device-key'] === undefined ? undefined : deviceSeedArg(values['device-key']),
    registryKey:
      values['registry-pub'] === undefined ? undefined : publicKeyArg('--registry-pub', values['registry-pub']),
    operatorKey:
      values['operator-key'] === undefined ? undefined : publicKeyArg('--operator-key', values['operator-key']),
  };
  const modes = (['explore', 'scenario', 'web', 'pty'] as const).filter(
    (k) => values[k] !== undefined && values[k] !== false,
  );
  if (modes.length > 1) throw new UsageError((m) => m.sim.oneMode(modes.map((k) => `--${k}`).join(', ')));
  // Said here in the user's words; provisionTrust refuses it too.
  if (impliesProduction(keys.firmwareKey) && productionKeyProblem(keys.firmwareKey, keys.techKey) === 'tech')
    throw new UsageError((m) => m.sim.productionTechKey);
  // The explorer runs its own devices (and --json must stay JSON).
  if (values.explore !== undefined) {
    const { exploreCommand } = await import('./sim-explore.ts');
    return exploreCommand({ ...values, explore: values.explore, lang });
  }
  const bridgeHid = values['bridge-hid'];
  if (bridgeHid !== undefined && !isHidSpec(bridgeHid))
    throw new UsageError((m) => m.scan.hidSpec('--bridge-hid', bridgeHid));
  const deviceId = deviceIdOption(values['device-id'], values.registry);
  // As a scenario's `config: department:` (the chip's config, written before boot).
  const dep = values.department;
  if (dep !== undefined && !isDepartment(dep)) throw new UsageError((m) => m.sim.department(dep));
  const config = dep === undefined ? undefined : { department: dep };
  // A per-run device key (issue #30 item 7): an interactive simulator on a registry without --device-key
  // makes its own (a chip already provisioned keeps its key), which it enrols on a development registry
  // at start: two simulators in two terminals are two devices, each signing with its own key.
  let runKey: string | undefined;
  if (
    values.registry !== undefined &&
    modes.length === 0 &&
    keys.deviceSeedHex === undefined &&
    !impliesProduction(keys.firmwareKey)
  ) {
    keys.deviceSeedHex = randomBytes(32).toString('hex');
    runKey = keys.deviceSeedHex;
  }
  const variant = values.variant ?? 'quickjs';
  if (variant !== 'quickjs' && variant !== 'quickjs-ng' && variant !== 'xs') throw new UsageError((m) => m.sim.variant);
  if (variant === 'xs') needXs();
  if (values.pty) {
    const problem = await ptyProblem(positionals[0], lang);
    if (problem !== null) throw new Failure(() => problem);
  }
  // First line: which keys the simulated device trusts (the chip of --flash may already hold some).
  process.stdout.write(
    trustLine(
      new Simulator({ chip: values.flash ? NorFlash.load(values.flash) : new NorFlash(), ...keys }),
      lang,
      runKey,
    ) + '\n',
  );
  if (values.scenario) {
    // Scenario files given after --scenario, as further options or as positionals.
    return scenarios([...values.scenario, ...positionals], {
      lang,
      quiet: !!values.quiet,
      screenshots: values.screenshots,
      // unset: each scenario's own `variant:` (default quickjs)
      variant: values.variant === undefined ? undefined : variant,
      flash: values.flash,
      ...keys,
      registry: registryOption(values.registry),
    });
  }
  if (values.web) {
    const port = values.port === undefined ? 0 : intOf(values.port, '--port', 0, 65535);
    if (deviceId) process.stdout.write(messages(lang).sim.deviceIdIs(deviceId) + '\n');
    return web({
      lang,
      port,
      host: values.host,
      open: !!values.open,
      registry: registryOption(values.registry),
      deviceId,
      department: dep,
    });
  }
  if (values.pty) {
    const baud = values.baud === undefined ? undefined : intOf(values.baud, '--baud', 300, 4_000_000);
    return pty(positionals[0], {
      lang,
      flash: values.flash,
      provision: values.provision,
      variant,
      baud,
      deviceId,
      config,
      ...keys,
    });
  }
  if (positionals.length > 0) throw new UsageError((m) => m.sim.unexpected(positionals[0]));
  if (deviceId) process.stdout.write(messages(lang).sim.deviceIdIs(deviceId) + '\n');
  return interactive({
    registry: registryOption(values.registry),
    deviceId,
    lang,
    flash: values.flash,
    provision: values.provision,
    variant,
    bridgeHid: values['bridge-hid'],
    hidMode: values['hid-mode'],
    bridgeSerial: values['bridge-serial'],
    baud: values.baud === undefined ? undefined : intOf(values.baud, '--baud', 300, 4_000_000),
    config,
    ...keys,
  });
}

/** What the simulated device trusts, in one line; provisions `sim`'s chip first when its options ask. */
export function trustLine(sim: Simulator, lang: Lang, runSeedHex?: string): string {
  let t;
  try {
    t = sim.trust();
  } catch (e) {
    return messages(lang).sim.deviceKeysProblem((e as Error).message);
  }
  const h = (k: Uint8Array) => createHash('sha256').update(k).digest('hex').slice(0, 16) + '…';
  const run = runSeedHex !== undefined && t.deviceKey.seed !== undefined && toHex(t.deviceKey.seed) === runSeedHex;
  return trustKeysLine(t, lang, h) + deviceKeyLine(t, lang, run);
}

/** The device's registry key: the published development one (said loudly), or its own, to enrol. */
function deviceKeyLine(t: ReturnType<Simulator['trust']>, lang: Lang, run = false): string {
  const m = messages(lang).sim;
  if (isDevDeviceKey(t.deviceKey.publicKey)) return m.devDeviceKey;
  if (run) return m.runDeviceKey(toHex(t.deviceKey.publicKey));
  return m.ownDeviceKey(toHex(t.deviceKey.publicKey));
}

function trustKeysLine(t: ReturnType<Simulator['trust']>, lang: Lang, h: (k: Uint8Array) => string): string {
  const m = messages(lang).sim;
  if (!t.provisioned) return m.devKeys;
  return m.provisioned(t.production, h(t.firmwareKey), h(t.techKey));
}

/**
 * The simulated device's id: `--device-id`, else with a registry one of this run (`SIM-` and 4 random
 * hex digits), so two simulators on one registry are two devices; else the simulator's default.
 */
function deviceIdOption(v: string | undefined, registry: string | undefined): string | undefined {
  if (v !== undefined) {
    if (!/^[\x21-\x7e]{1,16}$/.test(v)) throw new UsageError((m) => m.sim.deviceId(v));
    return v;
  }
  if (registry === undefined) return undefined;
  return `SIM-${Math.floor(Math.random() * 0x10000)
    .toString(16)
    .toUpperCase()
    .padStart(4, '0')}`;
}

function registryOption(v: string | undefined): string | undefined {
  if (v === undefined || v === 'embedded') return v;
  if (!/^https?:\/\/[\x21-\x7e]+$/.test(v)) throw new UsageError((m) => m.sim.registryUrl);
  return v.replace(/\/$/, '');
}

/** --flash FILE: absent (a fresh chip is made), or a saved chip of the right size. */
function flashFileArg(file: string): void {
  const st = statSync(file, { throwIfNoEntry: false });
  if (st && (!st.isFile() || st.size !== CHIP_SIZE)) throw new UsageError((m) => m.sim.flashFile(file, CHIP_SIZE));
}
