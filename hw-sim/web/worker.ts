// The web simulator's device, in a Web Worker: hw-sim's Simulator (the real firmware bundle in
// QuickJS-wasm, the simulated peripherals) with virtual time paced at the wall clock, the NOR chip
// kept in IndexedDB, scanners, scenarios. The page (page.ts) only draws and sends commands.
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } from './qjs-web.ts';
import { useQuickjsModule } from '../qjs-host.ts';
import { Simulator } from '../sim.ts';
import { NorFlash } from '../nor-flash.ts';
import { CHIP_SIZE } from '../../rom/layout.ts';
import { transmit, ScannerOptionError, type ScannerKind, type ModelOptions } from '../scanners/index.ts';
import { ticketCode, ticketProblem, type TicketSpec } from '../tickets.ts';
import { needsRegistry, parseScenario, ScenarioError } from '../scenario.ts';
import { messages } from '../../src/messages/index.ts';
import { runScenario, simulatorFor } from '../runner.ts';
import { useSimHost } from '../host.ts';
import { XhrHttp } from './xhr-http.ts';
import { partitionFlash } from '../device.ts';
import { loadConfig, storeConfig } from '../../src/config.ts';
import type { Frame, Key } from '../../src/hal.ts';
import type { ToPage, ToWorker } from './protocol.ts';

const post = (m: ToPage, transfer: Transferable[] = []) => (self as unknown as Worker).postMessage(m, transfer);

/** The page's language (it says it first and at every switch): what this worker says is in it. */
let lang: 'fr' | 'en' = 'fr';
const say = () => messages(lang).web;
/** A browser's error (a DOMException) in the page's language: in French, its name in words. */
const browserError = (e: unknown) =>
  say().browser(String((e as Error)?.name ?? 'Error'), String((e as Error)?.message ?? e));
/** A file of the page's server; its absence said in words, not the browser's 'Failed to fetch'. */
async function load(file: string): Promise<Response> {
  let r: Response;
  try {
    r = await fetch(new URL(file, self.location.href).href);
  } catch {
    throw new Error(say().fetchFailed(file, 0));
  }
  if (!r.ok) throw new Error(say().fetchFailed(file, r.status));
  return r;
}
/** An error as the page shows it: the scanner models', tickets' and scenarios' problems translated. */
const errorText = (e: unknown) => messages(lang).sim.detail(e instanceof Error ? e.message : String(e));

useQuickjsModule(
  'quickjs',
  newQuickJSWASMModuleFromVariant(
    newVariant(RELEASE_SYNC, { wasmLocation: new URL('quickjs.wasm', self.location.href).href }),
  ),
);

// The simulator's host here (hw-sim/host.ts): the bundle this worker fetched; Ed25519 through noble
// (the default); no files, no firmware build, no PNG (the page draws screenshots itself).
useSimHost({
  bundle: () => {
    if (!bundle) throw new Error(say().notLoaded);
    return bundle;
  },
  http: () => new XhrHttp(),
});

// --- the chip in IndexedDB ------------------------------------------------------------------------

const DB = 'saphir-sim';
const STORE = 'chip';
const KEY = 'nor';

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const r = indexedDB.open(DB, 1);
    r.onupgradeneeded = () => r.result.createObjectStore(STORE);
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

async function loadChip(db: IDBDatabase): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const r = db.transaction(STORE).objectStore(STORE).get(KEY);
    r.onsuccess = () => resolve(r.result instanceof Uint8Array && r.result.length === CHIP_SIZE ? r.result : undefined);
    r.onerror = () => reject(r.error);
  });
}

/** Resolves once the transaction committed: the bytes survive a reload from then on. */
function storeChip(db: IDBDatabase, bytes: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, 'readwrite');
    tx.objectStore(STORE).put(bytes, KEY); // cloned here, synchronously
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

/** One tab owns the stored chip; another one runs from a copy and saves nothing (they would overwrite each other). */
function ownChip(): Promise<boolean> {
  const locks = (
    navigator as unknown as { locks?: { request(n: string, o: object, f: (l: unknown) => unknown): Promise<unknown> } }
  ).locks;
  if (!locks) return Promise.resolve(true);
  // A reloaded page's old worker may still hold it for a moment: wait a little before giving up.
  return new Promise((resolve) => {
    locks
      .request('saphir-sim-chip', { signal: AbortSignal.timeout(1500) }, () => {
        resolve(true);
        return new Promise(() => {}); // held as long as this worker lives
      })
      .catch(() => resolve(false));
  });
}

// --- the live device ------------------------------------------------------------------------------

let db: IDBDatabase | undefined;
/** False in a second tab: the chip is loaded from IndexedDB but never written back. */
let owner = true;
let bundle = '';
/** The fleet registry the page's server passes requests to (config.json), as the device's URL. */
let registry: string | undefined;
/** The device's id (`saphir sim --web --device-id`, config.json); default the simulator's. */
let deviceId: string | undefined;
/** The department the device stands in (`saphir sim --web --department`, config.json): its chip's config. */
let department: string | undefined;
let live: Simulator;
let savedOps = -1;
/** Set while a scenario runs: its own simulator has the screen, the live device's time stands still. */
let scenario: { sim: Simulator; stepping: boolean; next?: () => void; stop: boolean } | undefined;

function stateOf(sim: Simulator, source: 'live' | 'scenario'): ToPage {
  return { type: 'state', source, lines: sim.screen, led: sim.led, on: sim.on, bootMode: say().mode(sim.bootMode) };
}

const statePending = new Set<Simulator>();
/**
 * Posted once the firmware's callback is over, so the page sees the LED it set after the text. Only
 * the simulator that has the screen posts: the live one, or the scenario's while it runs.
 */
function postState(sim: Simulator, source: 'live' | 'scenario'): void {
  if (statePending.has(sim)) return;
  statePending.add(sim);
  queueMicrotask(() => {
    statePending.delete(sim);
    if ((source === 'scenario') === (scenario?.sim === sim)) post(stateOf(sim, source));
  });
}

function newLive(chip: NorFlash): Simulator {
  const sim: Simulator = new Simulator({
    chip,
    bundle,
    seed: Date.now(),
    clockMs: Date.now(),
    registry,
    deviceId,
    events: {
      display: () => postState(sim, 'live'),
      led: () => postState(sim, 'live'),
      beep: (b, kind) => post({ type: 'beep', kind, tones: b.tones, source: 'live' }),
      log: (line) => post({ type: 'log', line: say().log(line) }),
      receipt: (r) => post({ type: 'receipt', lines: r.text }),
      power: (what) => {
        post({ type: 'log', line: say().power(what) });
        postState(sim, 'live');
      },
    },
  });
  return sim;
}

/** Saves the chip when a flash operation changed it, then shows the ledger. */
async function persist(force = false): Promise<void> {
  const chip = live.chip;
  if (!force && chip.ops === savedOps) return;
  savedOps = chip.ops;
  if (db && owner) {
    try {
      await storeChip(db, chip.bytes);
    } catch (e) {
      post({ type: 'error', message: say().storage(browserError(e)) });
    }
  }
  post({ type: 'ledger', entries: live.ledger(), saved: !!db && owner });
}

// One queue: ticks and commands never interleave.
let queue: Promise<unknown> = Promise.resolve();
function serial<R>(f: () => Promise<R> | R): Promise<R> {
  const p = queue.then(f);
  queue = p.catch((e) => post({ type: 'error', message: errorText(e) }));
  return p;
}

let wall = performance.now();
function tick(): void {
  void serial(async () => {
    const now = performance.now();
    const dt = now - wall;
    wall = now;
    if (scenario) return;
    await live.run(dt);
    await persist();
  });
}

/** Boots the live device from `chip` bytes, the stored chip, or (`blank`) a fresh configured one. */
async function start(fresh?: Uint8Array | 'blank'): Promise<void> {
  live?.dispose();
  const bytes = fresh === 'blank' ? undefined : (fresh ?? (db ? await loadChip(db) : undefined));
  const chip = new NorFlash(bytes ? { bytes } : {});
  live = newLive(chip);
  if (!bytes) live.configure(department ? { department } : {});
  else if (registry || department) usePageOptions(live);
  savedOps = -1;
  await live.boot();
  await persist(true);
  post(stateOf(live, 'live'));
}

/** Points a stored or imported chip's device at the page's registry and department; the rest of its configuration stays. */
function usePageOptions(sim: Simulator): void {
  if (!sim.chip.powered) sim.chip.powerOn();
  const flash = partitionFlash(sim.chip, 'config');
  const { config } = loadConfig(flash, false);
  const want = { ...config, registryUrl: registry ?? config.registryUrl, department: department ?? config.department };
  if (want.registryUrl !== config.registryUrl || want.department !== config.department) storeConfig(flash, want, false);
}

function parseOptions(text: string): ModelOptions {
  const out: ModelOptions = {};
  for (const part of text.split(/[\s,]+/).filter(Boolean)) {
    const m = /^([\w-]+)=(.*)$/.exec(part);
    if (!m) throw new ScannerOptionError(say().optionSyntax(part));
    const v = m[2];
    out[m[1]] = v === 'true' ? true : v === 'false' ? false : v !== '' && !isNaN(Number(v)) ? Number(v) : v;
  }
  return out;
}

function scan(code: string, via: ScannerKind, options: string): void {
  if (!live.on) throw new Error(say().off);
  const tx = transmit(via, code, parseOptions(options), live.rng);
  live.transmit(tx);
}

async function handle(m: ToWorker): Promise<void> {
  switch (m.type) {
    case 'scan':
      return serial(() => scan(m.code, m.via, m.options));
    case 'ticket':
      return serial(() => {
        const t: TicketSpec = m.ticket;
        const problem = ticketProblem(t);
        if (problem) throw new ScannerOptionError(problem);
        const code = ticketCode(t);
        post({ type: 'ticket', code });
        scan(code, m.via, m.options);
      });
    case 'frame':
      return serial(() => {
        if (!live.on) return;
        const frame: Frame = { width: m.width, height: m.height, format: m.format, data: new Uint8Array(m.data) };
        live.transmit({ via: 'camera', deliveries: [{ input: 'camera', t: 0, frame }], durationMs: 0 });
      });
    case 'key':
      return serial(async () => {
        if (live.on) await live.press(m.key as Key);
        await persist();
      });
    case 'power':
      return serial(async () => {
        if (m.what === 'boot' && !live.on) await live.boot();
        else if (m.what === 'reboot') await live.reboot();
        else if (m.what === 'cut') live.powerCut();
        await persist();
        post(stateOf(live, 'live'));
      });
    case 'export':
      return serial(() => {
        const bytes = live.chip.bytes.slice();
        post({ type: 'chip', bytes }, [bytes.buffer]);
      });
    case 'import':
      return serial(async () => {
        const bytes = new Uint8Array(m.bytes);
        if (bytes.length !== CHIP_SIZE) throw new Error(say().chipSize(bytes.length, CHIP_SIZE));
        await start(bytes);
      });
    case 'erase':
      return serial(() => start('blank'));
    case 'lang':
      lang = m.lang;
      if (live) post(stateOf(live, 'live'));
      return;
    case 'printer':
      return serial(() => {
        if (live.printer) live.printer.state = m.state;
      });
    case 'scenario':
      return serial(() => playScenario(m.name, m.text, m.stepping, m.lang));
    case 'step':
      if (scenario) {
        scenario.stepping = m.stepping;
        scenario.next?.();
      }
      return;
    case 'stop':
      if (scenario) {
        scenario.stop = true;
        scenario.next?.();
      }
      return;
  }
}

async function playScenario(name: string, text: string, stepping: boolean, lang: 'fr' | 'en'): Promise<void> {
  let sc;
  try {
    sc = parseScenario(text, name);
  } catch (e) {
    if (!(e instanceof ScenarioError)) throw e;
    post({
      type: 'scenario-problems',
      file: name,
      problems: e.problems.map((p) => ({ line: p.line, message: messages(lang).sim.detail(p.message) })),
    });
    return;
  }
  const s = { sim: undefined as unknown as Simulator, stepping, stop: false } as NonNullable<typeof scenario>;
  s.sim = simulatorFor(sc, {
    bundle,
    events: {
      display: () => postState(s.sim, 'scenario'),
      led: () => postState(s.sim, 'scenario'),
      beep: (b, kind) => scenario === s && post({ type: 'beep', kind, tones: b.tones, source: 'scenario' }),
      power: () => postState(s.sim, 'scenario'),
    },
  });
  scenario = s;
  try {
    const report = await runScenario(sc, {
      sim: s.sim,
      lang,
      beforeStep: (step) => {
        if (s.stop) throw new Error(messages(lang).web.stopped);
        post({ type: 'step-start', line: step.line });
        if (!s.stepping) return;
        return new Promise<void>((resolve) => {
          s.next = () => {
            s.next = undefined;
            resolve();
          };
        });
      },
      onStep: (r) => post({ type: 'step-done', step: r }),
      screenshot: (file, panel) => post({ type: 'screenshot', file, lines: [...panel.lines], led: panel.led }),
    });
    post({ type: 'scenario-done', ok: report.ok, steps: report.steps.length, virtualMs: report.virtualMs });
  } catch (e) {
    post({
      type: 'scenario-done',
      ok: false,
      steps: 0,
      virtualMs: 0,
      error: errorText(e),
    });
  } finally {
    scenario = undefined;
    s.sim.dispose();
    wall = performance.now();
    post(stateOf(live, 'live'));
  }
}

self.onmessage = (e: MessageEvent<ToWorker>) => {
  void handle(e.data).catch((err) => post({ type: 'error', message: errorText(err) }));
};

(async () => {
  try {
    bundle = await (await load('saphir-fw.js')).text();
    const config = (await (await load('config.json')).json()) as {
      registry?: string | null;
      device_id?: string | null;
      department?: string | null;
    };
    if (config.registry) registry = new URL(config.registry, self.location.href).href;
    if (config.device_id) deviceId = config.device_id;
    if (config.department) department = config.department;
    try {
      db = await openDb();
      owner = await ownChip();
      if (!owner) post({ type: 'other-tab' });
    } catch (e) {
      post({ type: 'error', message: say().noStorage(browserError(e)) });
    }
    void offerScenarios().catch((e) => post({ type: 'error', message: errorText(e) }));
    await serial(() => start());
    post({ type: 'ready' });
    wall = performance.now();
    setInterval(tick, 20);
  } catch (e) {
    post({ type: 'error', message: errorText(e) });
  }
})();

/** The shipped scenarios this page can run: those that need a fleet registry only when it has one. */
async function offerScenarios(): Promise<void> {
  const all = (await (await load('scenarios.json')).json()) as Record<string, string>;
  const runnable = (text: string, name: string) => {
    try {
      return !needsRegistry(parseScenario(text, name));
    } catch {
      return true; // shown, and its problems said when it runs
    }
  };
  post({
    type: 'scenarios',
    scenarios: Object.fromEntries(Object.entries(all).filter(([n, text]) => registry || runnable(text, n))),
  });
}
