// flash_efficiency_115200 / flash_efficiency_921600: image bytes per second over the line's raw byte
// rate (baud / 10, 8N1), for a whole `flash` (IDENTIFY, BEGIN, every chunk, FINISH with the device's
// verify and flash writes) through a real socat pseudo-terminal, the device pacing its UART at that baud
// and its NOR chip's typical erase and program times (hw-sim/nor-flash.ts TYPICAL_TIMING): chip time
// counts. Targets ≥ 0.95 at 115 200, ≥ 0.90 at 921 600.
// update_ram_kib: the most update bytes the device held in RAM at once (chunks waiting for the chip +
// the manifest), over both runs. Target ≤ 32.
// flash_4_devices_s beside flash_1_device_s: four devices flashed at once (what `saphir flash --port A
// --port B …` does: one client each, in parallel) against one, 120 kB at 921 600 baud.
// The whole flash includes opening the authenticated session.
// service_auth_ms: setting up an authenticated service session through the pty at 115 200 baud, port
// already open (IDENTIFY, CHALLENGE, AUTH with the technician key's signature, the device's check),
// median of 10. `saphir flash` skips the IDENTIFY (it has just asked): service_auth_after_identify_ms.
import { exposeServicePort } from '../hw-sim/pty.ts';
import { ServiceClient } from '../host/flash-client.ts';
import { flashDevice } from '../test/flash/harness.ts';
import { image } from '../test/flash/images.ts';

let ramPeak = 0;

async function efficiency(baud: number, size: number): Promise<number> {
  const dev = await flashDevice();
  const pty = await exposeServicePort(dev.serviceHost(), { baud });
  try {
    const img = image({ version: '1.1.0', counter: 2, size, salt: baud });
    const c = await ServiceClient.open(pty.path, { baud });
    try {
      const t0 = performance.now();
      await c.identify();
      await c.flash(img);
      const s = (performance.now() - t0) / 1000;
      ramPeak = Math.max(ramPeak, pty.port.updateRamPeak);
      return img.length / s / (baud / 10);
    } finally {
      await c.close();
    }
  } finally {
    await pty.close();
  }
}

async function authMs(baud: number, runs: number, identified: boolean): Promise<number> {
  const dev = await flashDevice();
  const pty = await exposeServicePort(dev.serviceHost(), { baud });
  try {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const c = await ServiceClient.open(pty.path, { baud });
      try {
        if (identified) await c.identify();
        const t0 = performance.now();
        await c.authenticate();
        times.push(performance.now() - t0);
      } finally {
        await c.close();
      }
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
  } finally {
    await pty.close();
  }
}

async function flashMany(n: number): Promise<number> {
  const devs = await Promise.all(Array.from({ length: n }, () => flashDevice()));
  const ptys = await Promise.all(devs.map((d) => exposeServicePort(d.serviceHost(), { baud: 921600 })));
  try {
    const img = image({ version: '1.2.0', counter: 2, size: 120_000, salt: 4 });
    const t0 = performance.now();
    await Promise.all(
      ptys.map(async (p) => {
        const c = await ServiceClient.open(p.path, { baud: 921600 });
        try {
          await c.identify();
          await c.flash(img);
        } finally {
          await c.close();
        }
      }),
    );
    return Math.round((performance.now() - t0) / 10) / 100;
  } finally {
    for (const p of ptys) await p.close();
  }
}

export default async function (): Promise<Record<string, number>> {
  return {
    service_auth_ms: Math.round((await authMs(115200, 10, false)) * 10) / 10,
    service_auth_after_identify_ms: Math.round((await authMs(115200, 10, true)) * 10) / 10,
    // About 9 s and 2.5 s of line time.
    flash_efficiency_115200: Math.round((await efficiency(115200, 100_000)) * 1000) / 1000,
    flash_efficiency_921600: Math.round((await efficiency(921600, 220_000)) * 1000) / 1000,
    update_ram_kib: Math.round((ramPeak / 1024) * 10) / 10,
    flash_1_device_s: await flashMany(1),
    flash_4_devices_s: await flashMany(4),
  };
}
