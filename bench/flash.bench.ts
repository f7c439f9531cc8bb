// flash_efficiency_115200 / flash_efficiency_921600: image bytes per second over the line's raw byte
// rate (baud / 10, 8N1), for a whole `flash` (IDENTIFY, BEGIN, every chunk, FINISH with the device's
// verify and flash writes) through a real socat pseudo-terminal, the device pacing its UART at that baud.
// Target ≥ 0.90. (The whole flash includes opening the authenticated session.)
// service_auth_ms: setting up an authenticated service session through the pty at 115 200 baud, port
// already open (IDENTIFY, CHALLENGE, AUTH with the technician key's signature, the device's check),
// median of 10. `saphir flash` skips the IDENTIFY (it has just asked): service_auth_after_identify_ms.
import { exposeServicePort } from '../hw-sim/pty.ts';
import { ServiceClient } from '../src/node/flash-client.ts';
import { TestDevice } from '../test/flash/harness.ts';
import { image } from '../test/flash/images.ts';

async function efficiency(baud: number, size: number): Promise<number> {
  const dev = new TestDevice();
  const pty = await exposeServicePort(dev, { baud });
  try {
    const img = image({ version: '1.1.0', counter: 2, size, salt: baud });
    const c = await ServiceClient.open(pty.path, { baud });
    try {
      const t0 = performance.now();
      await c.identify();
      await c.flash(img);
      const s = (performance.now() - t0) / 1000;
      return img.length / s / (baud / 10);
    } finally {
      await c.close();
    }
  } finally {
    await pty.close();
  }
}

async function authMs(baud: number, runs: number, identified: boolean): Promise<number> {
  const dev = new TestDevice();
  const pty = await exposeServicePort(dev, { baud });
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

export default async function (): Promise<Record<string, number>> {
  return {
    service_auth_ms: Math.round((await authMs(115200, 10, false)) * 10) / 10,
    service_auth_after_identify_ms: Math.round((await authMs(115200, 10, true)) * 10) / 10,
    // About 9 s and 2.5 s of line time.
    flash_efficiency_115200: Math.round((await efficiency(115200, 100_000)) * 1000) / 1000,
    flash_efficiency_921600: Math.round((await efficiency(921600, 220_000)) * 1000) / 1000,
  };
}
