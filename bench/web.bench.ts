// Web simulator benchmarks, in headless Chromium (test/web/browser.ts): page load to PRÊT with a fresh
// profile, a pasted code to its verdict on the page's display, and the bytes the page transfers
// (everything it loads, QuickJS's .wasm included; the local server does not compress).
import { chromiumMissing, launch, server, waitDisplay } from '../test/web/browser.ts';
import { ticketCode } from '../hw-sim/tickets.ts';
import '../hw-sim/node-host.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export default async function (): Promise<Record<string, number>> {
  const missing = chromiumMissing();
  if (missing) {
    process.stderr.write(`bench web SKIPPED: ${missing}\n`);
    return {};
  }
  const srv = await server();
  try {
    const boots: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 3; i++) {
      const b = await launch();
      try {
        let sum = 0;
        const pending: Promise<void>[] = [];
        b.page.on('response', (r) =>
          pending.push(
            r.body().then(
              (x) => void (sum += x.length),
              () => {},
            ),
          ),
        );
        const t0 = performance.now();
        await b.page.goto(srv.url);
        await waitDisplay(b.page, 'PRÊT', 60000);
        boots.push(performance.now() - t0);
        await Promise.all(pending);
        bytes = Math.max(bytes, sum);
      } finally {
        await b.close();
      }
    }

    const b = await launch();
    const scans: number[] = [];
    try {
      await b.page.goto(srv.url);
      await waitDisplay(b.page, 'PRÊT', 60000);
      for (let n = 0; n < 12; n++) {
        const code = ticketCode({ emission: 1, block: 8, number: 900 + n, prize: 0 });
        // Timed inside the page: from the click to the display showing that ticket's verdict.
        // A string, not a function: tsx would wrap named arrows in a helper the page lacks.
        const ms = (await b.page.evaluate(`new Promise((resolve, reject) => {
          const d = document.querySelector('[data-test="display"]');
          document.querySelector('[data-test="code"]').value = ${JSON.stringify(code)};
          const id = ${JSON.stringify(`1-8-${900 + n}`)};
          const t0 = performance.now();
          const obs = new MutationObserver(() => {
            if (!(d.textContent.includes('PERDANT') && d.textContent.includes(id))) return;
            obs.disconnect();
            resolve(performance.now() - t0);
          });
          obs.observe(d, { subtree: true, childList: true, characterData: true });
          setTimeout(() => reject(new Error('no verdict within 10 s')), 10000);
          document.querySelector('[data-test="scan"]').click();
        })`)) as number;
        scans.push(ms);
      }
    } finally {
      await b.close();
    }
    return {
      web_boot_ms: Math.round(median(boots)),
      web_scan_to_verdict_ms_median: Math.round(median(scans.slice(2)) * 10) / 10,
      web_page_kib: Math.round((bytes / 1024) * 10) / 10,
    };
  } finally {
    await srv.close();
  }
}
