// The registry's public key as a provisioned trust anchor (rom/provision.ts) and a scenario field.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { bootChip } from '../../hw-sim/sim.ts';
import { provisionTrust, readTrust } from '../../rom/provision.ts';
import { parseScenario } from '../../hw-sim/scenario.ts';
import { toHex } from '../../src/hex.ts';
import { DEV_REGISTRY_PUBLIC_KEY_HEX } from '../../src/registry/protocol.ts';
import { publicKeyOf } from '../../src/crypto/ed25519.ts';

const KEY = publicKeyOf(new Uint8Array(32).fill(0x42));

test('a provisioned registry key is read back; a blank area or a record without one trusts the development key', () => {
  const blank = readTrust(bootChip(new NorFlash()));
  assert.ok(!('error' in blank) && toHex(blank.registryKey) === DEV_REGISTRY_PUBLIC_KEY_HEX);
  const chip = bootChip(new NorFlash());
  provisionTrust(chip, { registryKey: KEY });
  const t = readTrust(chip);
  assert.ok(!('error' in t) && toHex(t.registryKey) === toHex(KEY));
  // Provisioned again without naming it (a simulator restarted on the chip): the chip's key stays.
  provisionTrust(chip, {});
  const again = readTrust(chip);
  assert.ok(!('error' in again) && toHex(again.registryKey) === toHex(KEY));
  const old = bootChip(new NorFlash());
  provisionTrust(old, { production: false });
  const o = readTrust(old);
  assert.ok(!('error' in o) && toHex(o.registryKey) === DEV_REGISTRY_PUBLIC_KEY_HEX);
});

test('scenario device: registry-key: is read', () => {
  const sc = parseScenario(`name: k\ndevice:\n  registry-key: ${toHex(KEY)}\nsteps:\n  - delay: 10ms\n`, 'k.yaml');
  assert.is(sc.device?.registryKey, toHex(KEY));
});

test.run();
