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

test.run();
