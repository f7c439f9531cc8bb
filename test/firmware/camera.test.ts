// The camera path of the real bundle in QuickJS: a 640×480 grey frame holding a ticket's QR code gives
// its verdict; the same ticket still in view is not scanned again; a frame without a code does nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boot, chipWith, flat, ticket } from './harness.ts';
import { qrFrame } from '../input/helpers.ts';

test('camera: a VGA frame with a ticket QR code → verdict, once per ticket in view', async () => {
  const { td, vm } = await boot(chipWith());
  try {
    assert.is(td.cameras.length, 1);
    const code = ticket({ number: 21, prizeEur: 150 });
    td.cameras[0].push(qrFrame(code));
    assert.match(flat(td.screen), /^GAGNANT .* 150 €$/);
    td.press('C');
    td.cameras[0].push(qrFrame(code, { x: 60 }));
    assert.match(flat(td.screen), /annulé/, 'the same code still in view is not a new scan');
    td.time.advance(5000);
    td.cameras[0].push(qrFrame(ticket({ number: 22 }), { x: 200, y: 100 }));
    assert.match(flat(td.screen), /^PERDANT/);
    td.press('OK');
    td.cameras[0].push({ width: 640, height: 480, format: 'y8', data: new Uint8Array(640 * 480).fill(128) });
    assert.match(flat(td.screen), /PRÊT/);
    td.cameras[0].push({ width: 640, height: 480, format: 'y8', data: new Uint8Array(10) });
    assert.match(flat(td.screen), /PRÊT/, 'a malformed frame is ignored');
    assert.equal(vm.faults, []);
  } finally {
    vm.dispose();
  }
});

test('camera: 60 decoded frames keep the VM heap flat', async () => {
  const { td, vm } = await boot(chipWith());
  try {
    const codes = Array.from({ length: 6 }, (_, i) => ticket({ number: 300 + i, prizeEur: i % 2 ? 150 : 0 }));
    const frames = codes.map((c, i) => qrFrame(c, { x: 40 + (i % 3) * 8, y: 30 + (i % 2) * 6 }));
    const samples: number[] = [];
    for (let i = 0; i < 60; i++) {
      td.time.advance(4000);
      const before = td.screens.length;
      td.cameras[0].push(frames[i % frames.length]);
      assert.ok(td.screens.length > before, `frame ${i} gave no verdict`);
      td.press('C');
      if (i >= 10 && i % 5 === 0) samples.push(vm.heapUsed());
    }
    // Before the fix each decoded frame left ~60 KB of cyclic garbage (jsQR's Reed-Solomon field).
    const grown = Math.max(...samples.slice(-3)) - Math.max(...samples.slice(0, 3));
    assert.ok(grown < 32 * 1024, `heap grew by ${grown} bytes over 50 frames: ${samples.join(', ')}`);
    assert.equal(vm.faults, []);
  } finally {
    vm.dispose();
  }
});

test.run();
