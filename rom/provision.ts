// The device's trust anchors, programmed once at the factory into the chip's write-once area
// (LAYOUT.otp; the NOR model refuses to erase it or program a byte twice). The bootloader, the service
// port and the firmware take their keys from here, never from the image they judge.
//
//   provisionTrust(chip, { firmwareKey, techKey, production, … })   factory, once
//   readTrust(chip) → Trust | { error }   a blank area is a development device (development keys);
//       a damaged record is an error: the device then trusts nothing (it must not fall back to dev keys).
//
// Record: 'PRV1' · version u8 · flags u8 (bit 0 production, bit 1 device key, bit 2 registry key, bit 3
// operator key) · ticket key count u8 · 0 · board id u32 · device id (16 bytes, ASCII, 0-padded) ·
// firmware key (32) · technician key (32) · count × (key id u8 · key 32) · [device key: public key (32)
// · private seed (32)] · [registry public key (32)] · [operator public key (32)] · CRC-32 of all before.
// Little-endian. Without bit 1 the device signs with the published development device key; without
// bit 2 it trusts the published development registry key (answers any development registry signs);
// without bit 3 a development device trusts the published development operator key (notices), a
// production device none.
//
// The device key's seed stands for the key slot of the device's secure element: the firmware never
// reads it (the DeviceKey HAL signs and hands out the public key only); the factory, or this model of
// the hardware, writes it once, beside the public keys the device trusts.
import { sha256 } from '@noble/hashes/sha2.js';
import { LAYOUT } from './layout.ts';
import { romPlatform } from './platform.ts';
import { crc32 } from '../src/crc32.ts';
import { isErased } from '../src/bytes.ts';
import { BOARD_ID, DEV_FIRMWARE_PUBLIC_KEY_HEX } from '../src/image/format.ts';
import { DEV_TECH_PUBLIC_KEY_HEX } from '../src/service/auth.ts';
import { TEST_KEY_ID, TEST_PUBLIC_KEY_HEX } from '../src/sph1/keys.ts';
import { fromHex, toHex } from '../src/hex.ts';
import type { TrustReport } from '../src/service/protocol.ts';
import type { NorChip } from './bootloader.ts';
import { publicKeyProblem } from '../src/crypto/device-rules.ts';
import { DEV_OPERATOR_PUBLIC_KEY_HEX } from '../src/notice.ts';
import {
  DEV_DEVICE_PUBLIC_KEY_HEX,
  DEV_DEVICE_SEED_HEX,
  DEV_REGISTRY_PUBLIC_KEY_HEX,
} from '../src/registry/protocol.ts';

/** The device's own Ed25519 key (registry requests): `seed` is the secure element's, never the firmware's. */
export interface DeviceKeyPair {
  publicKey: Uint8Array;
  seed: Uint8Array;
}

export interface Trust {
  firmwareKey: Uint8Array;
  techKey: Uint8Array;
  /** Ticket keys by key id. */
  ticketKeys: Map<number, Uint8Array>;
  boardId: number;
  /** Empty: the simulator's own. */
  deviceId: string;
  production: boolean;
  /** False: the area is blank and these are the development defaults. */
  provisioned: boolean;
  /** The device's registry key; the published development device key unless one was provisioned. */
  deviceKey: DeviceKeyPair;
  /** The public key that signs the fleet registry's answers; the published development one by default. */
  registryKey: Uint8Array;
  /** The public key that signs operator notices; null: none (a production device provisioned without one). */
  operatorKey: Uint8Array | null;
}

const MAGIC = 0x31565250; // 'PRV1'
const FIXED = 92;
const MAX_TICKET_KEYS = 32;

export function devTrust(): Trust {
  return {
    firmwareKey: fromHex(DEV_FIRMWARE_PUBLIC_KEY_HEX),
    techKey: fromHex(DEV_TECH_PUBLIC_KEY_HEX),
    ticketKeys: new Map([[TEST_KEY_ID, fromHex(TEST_PUBLIC_KEY_HEX)]]),
    boardId: BOARD_ID,
    deviceId: '',
    production: false,
    provisioned: false,
    deviceKey: devDeviceKey(),
    registryKey: fromHex(DEV_REGISTRY_PUBLIC_KEY_HEX),
    operatorKey: fromHex(DEV_OPERATOR_PUBLIC_KEY_HEX),
  };
}

export function devDeviceKey(): DeviceKeyPair {
  return { publicKey: fromHex(DEV_DEVICE_PUBLIC_KEY_HEX), seed: fromHex(DEV_DEVICE_SEED_HEX) };
}

export function isDevDeviceKey(k: Uint8Array): boolean {
  return toHex(k) === DEV_DEVICE_PUBLIC_KEY_HEX;
}

/** A device key pair from its private seed. */
export function deviceKeyOf(seed: Uint8Array): DeviceKeyPair {
  if (seed.length !== 32) throw new RangeError('a device key seed is 32 bytes');
  return { publicKey: romPlatform().publicKeyOf(seed), seed: seed.slice() };
}

export function isDevFirmwareKey(k: Uint8Array): boolean {
  return toHex(k) === DEV_FIRMWARE_PUBLIC_KEY_HEX;
}

export function isDevTechKey(k: Uint8Array): boolean {
  return toHex(k) === DEV_TECH_PUBLIC_KEY_HEX;
}

/** Provisioned without `production`, a firmware key other than the development one makes a production device. */
export function impliesProduction(firmwareKey: Uint8Array | undefined): boolean {
  return firmwareKey !== undefined && !isDevFirmwareKey(firmwareKey);
}

/**
 * Which published development key (anyone holds its private half) a production device would trust with
 * these keys (`undefined`: the development default), or null.
 */
export function productionKeyProblem(firmwareKey?: Uint8Array, techKey?: Uint8Array): 'firmware' | 'tech' | null {
  if (!firmwareKey || isDevFirmwareKey(firmwareKey)) return 'firmware';
  if (!techKey || isDevTechKey(techKey)) return 'tech';
  return null;
}

export function encodeTrust(t: Omit<Trust, 'provisioned'>): Uint8Array {
  const n = t.ticketKeys.size;
  if (n > MAX_TICKET_KEYS) throw new RangeError(`at most ${MAX_TICKET_KEYS} ticket keys`);
  if (t.firmwareKey.length !== 32 || t.techKey.length !== 32) throw new RangeError('public keys are 32 bytes');
  if (!/^[\x20-\x7e]{0,16}$/.test(t.deviceId)) throw new RangeError('device id: at most 16 printable ASCII characters');
  // The development device key is the default: not written, so such a record reads as before.
  const dk = t.deviceKey && !isDevDeviceKey(t.deviceKey.publicKey) ? t.deviceKey : null;
  if (dk && toHex(romPlatform().publicKeyOf(dk.seed)) !== toHex(dk.publicKey))
    throw new RangeError('device key: the public key is not the seed’s');
  // The development registry key is the default too.
  const rk = t.registryKey && toHex(t.registryKey) !== DEV_REGISTRY_PUBLIC_KEY_HEX ? t.registryKey : null;
  if (rk && rk.length !== 32) throw new RangeError('registry key: 32 bytes');
  // The development operator key is a development device's default, never written: a production device
  // given it reads back none (anyone can sign with it).
  const ok = t.operatorKey && toHex(t.operatorKey) !== DEV_OPERATOR_PUBLIC_KEY_HEX ? t.operatorKey : null;
  if (ok && ok.length !== 32) throw new RangeError('operator key: 32 bytes');
  const b = new Uint8Array(FIXED + 33 * n + (dk ? 64 : 0) + (rk ? 32 : 0) + (ok ? 32 : 0) + 4);
  const dv = new DataView(b.buffer);
  dv.setUint32(0, MAGIC, true);
  b[4] = 1;
  b[5] = (t.production ? 1 : 0) | (dk ? 2 : 0) | (rk ? 4 : 0) | (ok ? 8 : 0);
  b[6] = n;
  dv.setUint32(8, t.boardId >>> 0, true);
  for (let i = 0; i < t.deviceId.length; i++) b[12 + i] = t.deviceId.charCodeAt(i);
  b.set(t.firmwareKey, 28);
  b.set(t.techKey, 60);
  let at = FIXED;
  for (const [id, key] of t.ticketKeys) {
    if (key.length !== 32 || !Number.isInteger(id) || id < 0 || id > 255)
      throw new RangeError('ticket keys: id 0…255, 32-byte key');
    b[at] = id;
    b.set(key, at + 1);
    at += 33;
  }
  if (dk) {
    b.set(dk.publicKey, at);
    b.set(dk.seed, at + 32);
    at += 64;
  }
  if (rk) {
    b.set(rk, at);
    at += 32;
  }
  if (ok) {
    b.set(ok, at);
    at += 32;
  }
  dv.setUint32(at, crc32(b.subarray(0, at)), true);
  return b;
}

export function decodeTrust(b: Uint8Array): Trust | { error: string; blank: boolean } {
  if (isErased(b)) return { error: 'not provisioned', blank: true };
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.length < FIXED + 4 || dv.getUint32(0, true) !== MAGIC || b[4] !== 1)
    return { error: 'provisioning record damaged', blank: false };
  const n = b[6];
  const withKey = (b[5] & 2) === 2;
  const withRegistry = (b[5] & 4) === 4;
  const withOperator = (b[5] & 8) === 8;
  const end = FIXED + 33 * n + (withKey ? 64 : 0) + (withRegistry ? 32 : 0) + (withOperator ? 32 : 0);
  if (n > MAX_TICKET_KEYS || end + 4 > b.length || dv.getUint32(end, true) !== crc32(b.subarray(0, end))) {
    return { error: 'provisioning record damaged', blank: false };
  }
  let deviceId = '';
  for (let i = 12; i < 28 && b[i] !== 0; i++) deviceId += String.fromCharCode(b[i]);
  const ticketKeys = new Map<number, Uint8Array>();
  for (let i = 0, at = FIXED; i < n; i++, at += 33) ticketKeys.set(b[at], b.slice(at + 1, at + 33));
  const k = FIXED + 33 * n;
  const deviceKey = withKey ? { publicKey: b.slice(k, k + 32), seed: b.slice(k + 32, k + 64) } : devDeviceKey();
  const r = k + (withKey ? 64 : 0);
  const registryKey = withRegistry ? b.slice(r, r + 32) : fromHex(DEV_REGISTRY_PUBLIC_KEY_HEX);
  const o = r + (withRegistry ? 32 : 0);
  const production = (b[5] & 1) === 1;
  const operatorKey = withOperator ? b.slice(o, o + 32) : production ? null : fromHex(DEV_OPERATOR_PUBLIC_KEY_HEX);
  return {
    firmwareKey: b.slice(28, 60),
    techKey: b.slice(60, 92),
    ticketKeys,
    boardId: dv.getUint32(8, true),
    deviceId,
    production,
    provisioned: true,
    deviceKey,
    registryKey,
    operatorKey,
  };
}

/** The trust anchors on `chip`: the provisioned ones, the development ones when blank, an error when damaged. */
export function readTrust(chip: NorChip): Trust | { error: string } {
  const d = decodeTrust(chip.read(LAYOUT.otp.offset, LAYOUT.otp.size));
  if ('error' in d) return d.blank ? devTrust() : { error: d.error };
  return d;
}

/**
 * Factory provisioning (once: the area is write-once). A production device may not trust the
 * development firmware or technician key (anyone holds their private halves), and gets its own device
 * key when none is given. Throws when the area already holds another record.
 */
export function provisionTrust(chip: NorChip, t: Partial<Omit<Trust, 'provisioned'>>): Trust {
  const full = { ...devTrust(), ...t };
  const problem = full.production ? productionKeyProblem(full.firmwareKey, full.techKey) : null;
  if (problem === 'firmware') throw new Error('a production device cannot trust the development firmware key');
  if (problem === 'tech')
    throw new Error('a production device cannot trust the development technician key: give it its own (--tech-key)');
  for (const [name, k] of [
    ['firmware key', full.firmwareKey],
    ['technician key', full.techKey],
    ['registry key', full.registryKey],
    ...(full.operatorKey ? [['operator key', full.operatorKey] as const] : []),
    ...[...full.ticketKeys].map(([id, k]) => [`ticket key ${id}`, k] as const),
  ] as const) {
    const problem = publicKeyProblem(k);
    if (problem) throw new Error(`${name}: ${problem}, no signature would verify with it`);
  }
  const now = decodeTrust(chip.read(LAYOUT.otp.offset, LAYOUT.otp.size));
  if (!t.deviceKey) {
    // No device key asked for: a device provisioned before keeps its own; a new production device gets
    // a fresh one (its secure element's); a development device signs with the published one.
    if (!('error' in now)) full.deviceKey = now.deviceKey;
    else if (full.production) full.deviceKey = deviceKeyOf(romPlatform().random(32));
  }
  if (!t.registryKey && !('error' in now)) full.registryKey = now.registryKey;
  if (!t.operatorKey) {
    // None asked for: what the chip holds; a new production device trusts none (the development one is published).
    if (!('error' in now)) full.operatorKey = now.operatorKey;
    else if (full.production) full.operatorKey = null;
  }
  const bytes = encodeTrust(full);
  if (!('error' in now)) {
    if (toHex(encodeTrust(now)) === toHex(bytes)) return now;
    throw new Error('the device is already provisioned with other keys (write-once area)');
  }
  if (!now.blank) throw new Error('the provisioning area is damaged');
  chip.program(LAYOUT.otp.offset, bytes);
  return { ...full, provisioned: true };
}

export function trustReport(t: Trust): TrustReport {
  return {
    firmwareKeySha256: toHex(sha256(t.firmwareKey)),
    techKeySha256: toHex(sha256(t.techKey)),
    production: t.production,
    provisioned: t.provisioned,
  };
}
