// The page's device on a fleet registry: `saphir sim --web --registry` passes its requests on (same
// origin), the worker blocks on them with a synchronous XMLHttpRequest, and the registry records the
// payment the page made. A real Chromium and a registry on PGlite. Skipped without chromium.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { Simulator } from '../../hw-sim/sim.ts';
import { chromiumMissing, launch, waitDisplay, type Browser } from './browser.ts';
import { startWebServer, type WebServer } from '../../hw-sim/web/server.ts';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../host/registry/embedded.ts';
import { requireTool } from '../helpers.ts';

const t = suite('web simulator on a fleet registry');
const withChromium = requireTool('chromium', 'apt-get install chromium', { check: chromiumMissing, t });

let reg: EmbeddedRegistry;
let srv: WebServer;
let b: Browser;

if (!chromiumMissing()) {
  t.before(async () => {
    reg = await startEmbeddedRegistry();
    srv = await startWebServer({ port: 0, registry: reg.url });
    b = await launch();
  });
  t.after(async () => {
    await b?.close();
    await srv?.close();
    await reg?.close();
  });
}

withChromium('a payment in the page is claimed at the registry, through the page server', async () => {
  const p = b.page;
  await p.goto(srv.url);
  await waitDisplay(p, 'PRÊT', 30000);
  await p.waitForFunction(
    `/registre central : http:\\/\\/[^ ]+\\/registry/.test(document.querySelector('[data-test="log"]').textContent)`,
  );
  await p.fill('[data-test="code"]', ticketCode({ emission: 1, block: 9, number: 701, prize: 10 }));
  await p.click('[data-test="scan"]');
  await waitDisplay(p, 'GAGNANT');
  await p.click('[data-test="key-OK"]');
  // Paid online: the device had the registry's grant (offline, it would say "hors ligne").
  assert.not.match(await waitDisplay(p, 'PAYÉ'), /hors ligne/);
  // The page says the device's log in its language (French here).
  assert.match(await p.locator('[data-test="log"]').innerText(), /payé 1-9-701 10 €(?! hors ligne)/);
  const { holders } = await reg.report();
  assert.equal(
    holders.map((h) => `${h.emission}/${h.block}/${h.number}`),
    ['1/9/701'],
  );
  assert.equal(b.errors, []);
});

withChromium("an imported chip's device is pointed at the registry, the rest of its configuration kept", async () => {
  const sim = new Simulator({ deviceId: 'WEB-EN' });
  sim.configure({ lang: 'en', deviceId: 'WEB-EN' });
  const p = b.page;
  await p.setInputFiles('[data-test="import"]', {
    name: 'chip.bin',
    mimeType: 'application/octet-stream',
    buffer: Buffer.from(sim.chip.bytes),
  });
  await waitDisplay(p, 'READY', 30000);
  await p.fill('[data-test="code"]', ticketCode({ emission: 1, block: 9, number: 702, prize: 10 }));
  await p.click('[data-test="scan"]');
  await waitDisplay(p, 'WINNER');
  await p.click('[data-test="key-OK"]');
  assert.not.match(await waitDisplay(p, 'PAID'), /offline/i);
  const { holders } = await reg.report();
  assert.equal(
    holders.map((h) => `${h.number} ${h.device_id}`),
    ['701 SIM-0001', '702 WEB-EN'],
  );
});

t.run();
