// The device configuration's fields and their limits: one schema for the firmware (which stores and
// checks a configuration, src/config.ts), the simulator (Simulator.configure) and the scenario
// checker (hw-sim/scenario.ts, which reports a problem at its YAML line). Portable.
import { isDate } from './claim.ts';

export const CONFIG_LANGS = ['fr', 'en'] as const;
export const CONFIG_INPUTS = ['serial', 'keyboard', 'pos', 'camera'] as const;
export type ConfigInput = (typeof CONFIG_INPUTS)[number];

/** Whole-number fields, inclusive limits. */
export const CONFIG_INT_LIMITS = {
  payoutLimitEur: [0, 0xffffffff],
  verdictMs: [500, 600_000],
  payWaitMs: [1000, 3_600_000],
  compactFreeSectors: [0, 65535],
  clockJumpDays: [1, 3650],
  offlineLimitEur: [0, 0xffffffff],
  registryTimeoutMs: [100, 60_000],
  syncIntervalMs: [1000, 86_400_000],
  idThresholdEur: [1, 0xffffffff],
  confirmFromEur: [0, 0xffffffff],
  bigWinFromEur: [0, 0xffffffff],
} as const satisfies Record<string, readonly [number, number]>;
export type ConfigIntField = keyof typeof CONFIG_INT_LIMITS;

export const EMISSION_LIMITS = [0, 0xffff] as const;
export const KEY_ID_LIMITS = [0, 255] as const;
export const DEVICE_ID_MAX = 16;
/** The shop's name as printed on receipts. */
export const SHOP_MAX = 32;

/**
 * The scenario's YAML name of each field a scenario sets (keys are not set from scenarios; the registry
 * URL comes from the simulator's registry option).
 */
export const CONFIG_YAML_NAMES = {
  payoutLimitEur: 'payout-limit',
  lang: 'language',
  emissions: 'emissions',
  deviceId: 'device-id',
  verdictMs: 'verdict-ms',
  payWaitMs: 'pay-wait-ms',
  compactFreeSectors: 'compact-free-sectors',
  clockJumpDays: 'clock-jump-days',
  inputs: 'inputs',
  offlineLimitEur: 'offline-limit',
  registryTimeoutMs: 'registry-timeout-ms',
  syncIntervalMs: 'sync-interval-ms',
  idThresholdEur: 'id-threshold',
  confirmFromEur: 'confirm-from',
  bigWinFromEur: 'big-win-from',
  shop: 'shop',
  department: 'department',
} as const;

export const isIntIn = (v: unknown, [min, max]: readonly [number, number]): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** Printable ASCII of at most 16 characters (written into each payment). */
export const isDeviceId = (v: unknown): v is string =>
  typeof v === 'string' && v.length <= DEVICE_ID_MAX && /^[\x20-\x7e]*$/.test(v);

/** Printable ASCII of at most 32 characters (the shop's name on receipts). */
export const isShop = (v: unknown): v is string =>
  typeof v === 'string' && v.length <= SHOP_MAX && /^[\x20-\x7e]*$/.test(v);

/**
 * A French department's code: 01…95 with 2A and 2B (metropolitan), 971…976 (overseas). A device's
 * department picks its holidays in an operator notice (src/notice.ts).
 */
export const isDepartment = (v: unknown): v is string =>
  typeof v === 'string' && /^(0[1-9]|1\d|2[1-9AB]|[3-8]\d|9[0-5]|97[1-6])$/.test(v);

export const isConfigInput = (v: unknown): v is ConfigInput => (CONFIG_INPUTS as readonly unknown[]).indexOf(v) >= 0;

export { isDate };
