// Soak: 10 000 mixed scans through every scanner model into the real firmware in QuickJS; the VM heap
// stays flat. Genuine codes cost an Ed25519 verification (~10-20 ms in QuickJS), so most scans are
// the cheap kinds a scanner also sends (garbage, torn and foreign codes); every model is represented.
// A camera scan in the warm-up thousand (its first frame compiles the camera path), then one in every
// thousand, measured like the rest.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator } from '../../hw-sim/sim.ts';
import { transmit, type ModelOptions, type ScannerKind } from '../../hw-sim/scanners/index.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { seededRng } from '../../hw-sim/rng.ts';
import '../../hw-sim/node-host.ts';

const SCANS = 10_000;
/** A genuine SPH1 structure signed under key id 7, which the device does not trust (E_KEY). */
const FOREIGN_KEY =
  'SPH1:X5055AW62V50X/26JQPJ95%RNQO564SYCCP2X6369BG2H7HB-XR:BH2+672U %EYEQKEAIHM+/01Z3V*30WQLSIAGIG*37BDX4L6D1WZAA4ROS0MSN PCTKND-T CMZ9P62A/H5D$GZJLYNJ%STDDK3QKP:OUT2';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';

test(`${SCANS} mixed scans through every scanner model keep the firmware heap flat`, async () => {
  const sim = new Simulator({ seed: 'soak', clockMs: Date.UTC(2027, 0, 15, 9) });
  sim.configure({});
  await sim.boot();
  const rng = seededRng('soak-mix');
  const used: Record<string, number> = {};
  const heap: number[] = [];
  let genuine = 0;
  let cameraVerdicts = 0;
  for (let i = 0; i < SCANS; i++) {
    let via: ScannerKind;
    let code: string;
    let options: ModelOptions = {};
    if (i === 1 || i % 1000 === 501) {
      via = 'camera';
      code = ticketCode({ emission: 1, block: 9, number: i, prize: 0 });
      options = { width: 320, height: 240, module: 4 };
    } else if (i % 800 === 2) {
      via = 'hid-keyboard';
      code = ticketCode({ emission: 1, block: 9, number: i, prize: 0 });
      options = { layout: (['us', 'fr', 'alt'] as const)[((i / 800) % 3) | 0] };
    } else if (i % 100 === 3) {
      via = i % 200 === 3 ? 'serial' : 'hid-pos';
      code = ticketCode({ emission: 1, block: 9, number: i, prize: i % 300 === 3 ? 10 : 0 });
      genuine++;
    } else if (i % 10 === 4) {
      via = i % 40 === 4 ? 'serial' : 'hid-pos';
      code = FOREIGN_KEY;
    } else {
      via = i % 3 === 0 ? 'serial' : 'hid-pos';
      // Garbage, torn codes and codes of the wrong size.
      const n = 1 + rng.int(i % 7 === 0 ? 200 : 40);
      code =
        (rng.next() < 0.5 ? 'SPH1:' : '') +
        Array.from({ length: n }, () => ALPHABET[rng.int(ALPHABET.length)]).join('');
    }
    if (via === 'serial') options = { baud: 115200 };
    used[via] = (used[via] ?? 0) + 1;
    const end = sim.transmit(transmit(via, code, options, sim.rng));
    await sim.run(end - sim.now + 5);
    if (via === 'camera' && sim.screen.some((l) => l.includes('PERDANT'))) cameraVerdicts++;
    // A payable win waits for the clerk: cancel it.
    if (sim.screen.some((l) => l.includes('OK payer'))) await sim.press('C');
    if (i % 1000 === 999) heap.push(sim.heapUsed());
  }
  assert.is(sim.boots, 1, 'no reset during the soak');
  assert.is(sim.faults.length, 0, JSON.stringify(sim.faults.slice(0, 3)));
  assert.is(sim.undelivered, 0);
  for (const k of ['hid-keyboard', 'hid-pos', 'serial', 'camera']) assert.ok(used[k] > 0, k);
  assert.is(cameraVerdicts, used.camera, 'every camera scan gives its verdict');
  assert.ok(genuine >= 100);
  // The first thousand warm everything up; after that the heap must not grow.
  const steady = heap.slice(1);
  const growth = steady[steady.length - 1] - steady[0];
  const spread = Math.max(...steady) - Math.min(...steady);
  assert.ok(growth < 16 * 1024, `heap grew ${growth} bytes from scan 2000 to ${SCANS}: ${heap.join(', ')}`);
  assert.ok(spread < 64 * 1024, `heap varied by ${spread} bytes: ${heap.join(', ')}`);
  sim.dispose();
});

test.run();
