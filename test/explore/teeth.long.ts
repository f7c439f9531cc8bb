// Every planted defect of the explorer (test/explore/teeth.ts), in the firmware and in the device's own
// code, is found, with a scenario that reproduces it; npm test runs the first one (explore.test.ts).
import { test } from 'uvu';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plantedBundle } from '../../hw-sim/explore/planted.ts';
import { DEVICE_TEETH, TEETH, checkDeviceTeeth, checkTeeth, deviceTeethTitle, teethTitle } from './teeth.ts';

const out = mkdtempSync(join(tmpdir(), 'saphir-teeth-'));
let clean: string;
test.before(async () => {
  clean = await plantedBundle(null);
});
test.after(() => rmSync(out, { recursive: true, force: true }));

for (const t of TEETH) test(teethTitle(t), () => checkTeeth(t, clean, out));
for (const t of DEVICE_TEETH) test(deviceTeethTitle(t), () => checkDeviceTeeth(t, clean, out));

test.run();
