// A real Chromium for the web simulator's tests and benchmark: Debian's /usr/bin/chromium driven by
// playwright-core, headless, with a fresh profile, and the page served by hw-sim/web/server.ts; and a
// stock Firefox driven by puppeteer-core (launchFirefox).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import puppeteer, { type Page as PPage } from 'puppeteer-core';
import { renderQrFrame } from '../../hw-sim/scanners/camera.ts';
import { seededRng } from '../../hw-sim/rng.ts';
import { startWebServer, type WebServer } from '../../hw-sim/web/server.ts';

export const CHROMIUM = process.env.SAPHIR_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null. (The lead may switch this to test/helpers.ts.) */
export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM) ? null : `${CHROMIUM} not found (apt-get install chromium)`;
}

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Page errors and console errors seen so far. */
  errors: string[];
  close(): Promise<void>;
}

/** A fresh profile (empty IndexedDB) unless `profile` names one to reuse. */
export async function launch(o: { args?: string[]; profile?: string } = {}): Promise<Browser> {
  const dir = o.profile ?? mkdtempSync(join(tmpdir(), 'saphir-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    // Under test/run.mjs (SAPHIR_WASM_LIFTOFF=1), the page's QuickJS on Liftoff only, as in the saphir
    // processes the tests start: a page lives seconds (web.test.ts 17 → 15 s of the machine's CPU).
    args: [
      ...FLAGS,
      ...(process.env.SAPHIR_WASM_LIFTOFF === '1' ? ['--js-flags=--liftoff-only'] : []),
      ...(o.args ?? []),
    ],
    // Its audio client's runtime folder in the profile (else TMPDIR/pulse-…, left behind).
    env: { ...process.env, PULSE_RUNTIME_PATH: join(dir, 'pulse') },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  return {
    context,
    page,
    errors,
    close: async () => {
      await context.close();
      if (!o.profile) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function server(): Promise<WebServer> {
  return startWebServer({ port: 0 });
}

export const display = (p: Page) => p.locator('[data-test="display"]');

/**
 * A page expression: the display's lines once it shows `text`, else null. One evaluation: read apart from
 * the check, the lines were once another screen's (blank, under load in Firefox, 6 Dec).
 */
const showing = (text: string) =>
  `(() => { const d = document.querySelector('[data-test="display"]'); ` +
  `return d.textContent.includes(${JSON.stringify(text)}) ? d.innerText : null; })()`;

/** Waits until the display shows `text`; returns its four lines as they were then. */
export async function waitDisplay(p: Page, text: string, timeout = 20000): Promise<string> {
  return (await p.waitForFunction(showing(text), null, { timeout })).jsonValue() as Promise<string>;
}

/** A 640×480 grey camera view of `code`'s QR code (the simulator's camera model). */
export function ticketFrame(code: string) {
  return renderQrFrame(code, {}, seededRng('web'));
}

/** The same view as a PNG photo. */
export function ticketPng(code: string): Buffer {
  const f = ticketFrame(code);
  const png = new PNG({ width: f.width, height: f.height });
  for (let i = 0; i < f.width * f.height; i++) {
    png.data[i * 4] = png.data[i * 4 + 1] = png.data[i * 4 + 2] = f.data[i];
    png.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(png);
}

/** A short Y4M video (4:2:0) of the ticket, for Chromium's --use-file-for-fake-video-capture. */
export function ticketY4m(code: string, file: string, frames = 10): void {
  const f = ticketFrame(code);
  const chroma = Buffer.alloc((f.width / 2) * (f.height / 2) * 2, 128);
  const parts: Buffer[] = [Buffer.from(`YUV4MPEG2 W${f.width} H${f.height} F10:1 Ip A1:1 C420jpeg\n`)];
  for (let i = 0; i < frames; i++) parts.push(Buffer.from('FRAME\n'), Buffer.from(f.data), chroma);
  writeFileSync(file, Buffer.concat(parts));
}

export const FIREFOX = process.env.SAPHIR_FIREFOX ?? '/usr/bin/firefox-esr';

/** Why the Firefox tests cannot run here, or null. */
export function firefoxMissing(): string | null {
  return existsSync(FIREFOX) ? null : `${FIREFOX} not found`;
}

export interface Firefox {
  page: PPage;
  /** Page errors and console errors seen so far. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * A stock Firefox (Debian's firefox-esr, ≥ 128) driven by puppeteer-core through WebDriver BiDi:
 * playwright-core only drives its own patched Firefox builds. Headless, with a fresh temporary profile.
 */
export async function launchFirefox(): Promise<Firefox> {
  const pulse = mkdtempSync(join(tmpdir(), 'saphir-firefox-pulse-'));
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    protocol: 'webDriverBiDi',
    env: { ...process.env, PULSE_RUNTIME_PATH: pulse },
  });
  const page = (await browser.pages())[0] ?? (await browser.newPage());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e instanceof Error ? e.message : String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  return {
    page,
    errors,
    close: async () => {
      await browser.close();
      rmSync(pulse, { recursive: true, force: true });
    },
  };
}

/** `waitDisplay` for a puppeteer page. */
export async function waitDisplayFirefox(p: PPage, text: string, timeout = 20000): Promise<string> {
  return (await p.waitForFunction(showing(text), { timeout })).jsonValue() as Promise<string>;
}
