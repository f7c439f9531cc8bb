// The ticket keys the device was provisioned with (HAL identity.ticketKeys, from the chip's write-once
// area): they win over the configuration's, which any configuration writer could change.
import type { Identity } from '../src/hal.ts';
import type { KeyRing } from '../src/sph1/keys.ts';
import { TEST_KEY_ID } from '../src/sph1/keys.ts';
import { fromHex } from '../src/hex.ts';

/** The provisioned key ring, or null when the device has none (development: the configuration's). */
export function provisionedKeys(identity: Identity): KeyRing | null {
  const list = identity.ticketKeys;
  if (typeof list !== 'string') return null;
  const m = new Map<number, Uint8Array>();
  for (const item of list.split(',')) {
    const r = /^(\d{1,3}):([0-9a-f]{64})$/.exec(item);
    if (!r || Number(r[1]) > 255) continue;
    // A production device never trusts the published test key.
    if (identity.production && Number(r[1]) === TEST_KEY_ID) continue;
    m.set(Number(r[1]), fromHex(r[2]));
  }
  return m;
}
