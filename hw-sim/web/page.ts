// The web simulator's page: draws the handheld the worker (worker.ts) runs, and sends it keys, scans,
// camera frames, power and chip commands, scenarios. No device logic here.
import { drawPixels } from '../pixels.ts';
import { toCsv } from '../../src/ledger/csv.ts';
import type { LedColor } from '../../src/hal.ts';
import type { Payment } from '../../src/ledger/index.ts';
import type { ToPage, ToWorker } from './protocol.ts';
import type { ScannerKind } from '../scanners/index.ts';
import { frenchDateTime } from '../../src/paris-time.ts';

type Lang = 'fr' | 'en';

const TEXT = {
  fr: {
    title: 'Simulateur SAPHIR 250 000 €',
    language: 'Langue',
    mute: 'Muet',
    device: 'Terminal',
    customer: 'Client',
    keysHint: 'Clavier : chiffres, Entrée = OK, Échap = C (hors des champs).',
    boot: 'Allumer',
    reboot: 'Redémarrer',
    cut: 'Coupure de courant',
    chip: 'Puce NOR',
    export: 'Exporter la puce',
    import: 'Importer une puce',
    erase: 'Puce neuve',
    scanners: 'Lecteurs',
    via: 'Lecteur',
    options: 'Options',
    code: 'Code',
    scan: 'Scanner',
    ticket: 'Générer un ticket',
    prize: 'Gain',
    forged: 'Contrefait',
    genScan: 'Générer et scanner',
    camera: 'Caméra',
    drop: 'Déposez une photo (PNG/JPEG) ici, ou choisissez-la :',
    webcam: 'Webcam',
    scenarios: 'Scénarios',
    open: 'Ouvrir',
    run: 'Tout exécuter',
    step: 'Pas à pas',
    stop: 'Arrêter',
    ledger: 'Journal des paiements de l’appareil',
    csv: 'Exporter en CSV',
    emission: 'Émission',
    block: 'Bloc',
    number: 'N°',
    paidAt: 'Payé le (heure de Paris)',
    deviceId: 'Appareil',
    beeps: 'Bips',
    log: 'Journal technique de l’appareil',
    loading: 'démarrage du terminal…',
    ready: 'prêt',
    saved: 'puce enregistrée dans le navigateur',
    off: 'hors tension',
    passed: (n: number) => `scénario réussi (${n} étapes)`,
    failed: 'scénario en échec',
    invalid: 'scénario invalide',
    webcamStop: 'Arrêter la webcam',
    noWebcam: 'webcam indisponible : ',
    badImage: 'image illisible : ',
    // The browser's own message is English: its error's name says which case it is.
    domErrors: {
      NotAllowedError: 'accès refusé par le navigateur ou l’utilisateur',
      NotFoundError: 'aucune caméra trouvée',
      NotReadableError: 'caméra déjà utilisée par un autre programme',
      OverconstrainedError: 'aucune caméra ne donne 640×480',
      SecurityError: 'interdit sur cette page (http:// hors 127.0.0.1 ?)',
      InvalidStateError: 'format non reconnu',
      EncodingError: 'format non reconnu',
      TypeError: 'non prise en charge par ce navigateur',
    } as Record<string, string>,
    fromScenario: ' (scénario)',
    otherTab: 'le simulateur est ouvert dans un autre onglet : celui-ci n’enregistre pas la puce',
    printer: 'Imprimante',
    paper: 'Papier',
    paperOk: 'chargé',
    paperOut: 'épuisé',
    paperFault: 'en panne',
    eraseAsk: (n: number) =>
      `Puce neuve : la puce de cet appareil est effacée, son journal des paiements (${n} paiement(s)) et sa configuration avec. Continuer ?`,
    led: { off: 'éteinte', green: 'verte', red: 'rouge' } as Record<string, string>,
    beepKinds: {
      boot: 'démarrage',
      key: 'touche',
      win: 'gagnant',
      bigwin: 'gros lot',
      lose: 'perdant',
      refused: 'refusé',
      paid: 'payé',
      error: 'erreur',
    } as Record<string, string>,
  },
  en: {
    title: 'SAPHIR 250 000 € simulator',
    language: 'Language',
    mute: 'Mute',
    device: 'Device',
    customer: 'Customer',
    keysHint: 'Keyboard: digits, Enter = OK, Escape = C (outside the fields).',
    boot: 'Power on',
    reboot: 'Reboot',
    cut: 'Power cut',
    chip: 'NOR chip',
    export: 'Export the chip',
    import: 'Import a chip',
    erase: 'Fresh chip',
    scanners: 'Scanners',
    via: 'Scanner',
    options: 'Options',
    code: 'Code',
    scan: 'Scan',
    ticket: 'Generate a ticket',
    prize: 'Prize',
    forged: 'Forged',
    genScan: 'Generate and scan',
    camera: 'Camera',
    drop: 'Drop a photo (PNG/JPEG) here, or pick it:',
    webcam: 'Webcam',
    scenarios: 'Scenarios',
    open: 'Open',
    run: 'Run all',
    step: 'Step',
    stop: 'Stop',
    ledger: 'The device’s payment ledger',
    csv: 'Export as CSV',
    emission: 'Emission',
    block: 'Block',
    number: 'No.',
    paidAt: 'Paid at (Paris time)',
    deviceId: 'Device',
    beeps: 'Beeps',
    log: 'Device log (technical)',
    loading: 'starting the device…',
    ready: 'ready',
    saved: 'chip saved in the browser',
    off: 'power off',
    passed: (n: number) => `scenario passed (${n} steps)`,
    failed: 'scenario failed',
    invalid: 'invalid scenario',
    webcamStop: 'Stop the webcam',
    noWebcam: 'webcam unavailable: ',
    badImage: 'unreadable image: ',
    domErrors: {
      NotAllowedError: 'access refused by the browser or the user',
      NotFoundError: 'no camera found',
      NotReadableError: 'camera in use by another program',
      OverconstrainedError: 'no camera gives 640×480',
      SecurityError: 'not allowed on this page (http:// other than 127.0.0.1?)',
      InvalidStateError: 'format not recognised',
      EncodingError: 'format not recognised',
      TypeError: 'not supported by this browser',
    } as Record<string, string>,
    fromScenario: ' (scenario)',
    otherTab: 'the simulator is open in another tab: this one does not save the chip',
    printer: 'Printer',
    paper: 'Paper',
    paperOk: 'loaded',
    paperOut: 'out',
    paperFault: 'faulty',
    eraseAsk: (n: number) =>
      `Fresh chip: this device's chip is erased, its payment ledger (${n} payment(s)) and configuration with it. Go on?`,
    led: { off: 'off', green: 'green', red: 'red' } as Record<string, string>,
    beepKinds: {} as Record<string, string>,
  },
} as const;

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
let lang: Lang = localStorage.getItem('saphir-lang') === 'en' ? 'en' : 'fr';
const t = () => TEXT[lang];

function applyLang(): void {
  document.documentElement.lang = lang;
  ($('lang') as HTMLSelectElement).value = lang;
  for (const el of document.querySelectorAll<HTMLElement>('[data-i18n]')) {
    const v = (t() as Record<string, unknown>)[el.dataset.i18n!];
    if (typeof v === 'string') el.textContent = v;
  }
  if (webcam) $('webcam').textContent = t().webcamStop;
  // The worker speaks the page's language too (its status lines, the boot mode beside the LED).
  send({ type: 'lang', lang });
  const l = $('led');
  l.setAttribute('aria-label', `LED ${t().led[l.dataset.color ?? 'off'] ?? l.dataset.color}`);
}

const worker = new Worker(new URL('worker.js', import.meta.url), { type: 'module' });
const send = (m: ToWorker, transfer: Transferable[] = []) => worker.postMessage(m, transfer);

function status(text: string, error = false): void {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('error', error);
}

// --- the handheld ---------------------------------------------------------------------------------

function drawDisplay(lines: string[], led: LedColor): void {
  const px = drawPixels({ lines, rows: 4, columns: 20, led }, 3);
  const canvas = $<HTMLCanvasElement>('lcd');
  canvas.width = px.width;
  canvas.height = px.height;
  const ctx = canvas.getContext('2d')!;
  ctx.putImageData(new ImageData(new Uint8ClampedArray(px.data.buffer as ArrayBuffer), px.width, px.height), 0, 0);
  const rows = $('lines').children;
  for (let i = 0; i < 4; i++) rows[i].textContent = lines[i] ?? '';
  $('customer').textContent = (lines[3] ?? '').trim();
  const l = $('led');
  l.dataset.color = led;
  l.setAttribute('aria-label', `LED ${t().led[led] ?? led}`);
}

let audio: AudioContext | undefined;
function beep(tones: { hz: number; ms: number }[]): void {
  if (($('mute') as HTMLInputElement).checked) return;
  try {
    audio ??= new AudioContext();
    let at = audio.currentTime;
    for (const tone of tones) {
      if (tone.hz > 0) {
        const o = audio.createOscillator();
        const g = audio.createGain();
        o.type = 'square';
        o.frequency.value = tone.hz;
        g.gain.value = 0.05;
        o.connect(g).connect(audio.destination);
        o.start(at);
        o.stop(at + tone.ms / 1000);
      }
      at += tone.ms / 1000;
    }
  } catch {
    // No audio device: the beep history still shows it.
  }
}

function addLine(list: string, text: string, max = 500): void {
  const ol = $(list);
  const li = document.createElement('li');
  li.textContent = text;
  ol.appendChild(li);
  while (ol.children.length > max) ol.firstElementChild!.remove();
  ol.scrollTop = ol.scrollHeight;
}

const stamp = () => new Date().toLocaleTimeString(lang === 'fr' ? 'fr-FR' : 'en-GB');

// --- ledger ---------------------------------------------------------------------------------------

let payments: Payment[] = [];
function showLedger(entries: Payment[]): void {
  payments = entries;
  const body = $('ledger');
  body.replaceChildren(
    ...entries.map((p) => {
      const tr = document.createElement('tr');
      for (const v of [
        p.emission,
        p.block,
        p.number,
        `${p.prizeEur} €`,
        // Paris time, as the device's display and receipts show it.
        frenchDateTime(p.paidAtMs),
        p.deviceId,
      ]) {
        const td = document.createElement('td');
        td.textContent = String(v);
        tr.appendChild(td);
      }
      return tr;
    }),
  );
}

function download(name: string, data: BlobPart, type: string): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([data], { type }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

// --- scenarios ------------------------------------------------------------------------------------

function stepItem(line: number): HTMLLIElement {
  const ol = $('sc-steps');
  let li = ol.querySelector<HTMLLIElement>(`li[data-line="${line}"]`);
  if (!li) {
    li = document.createElement('li');
    li.dataset.line = String(line);
    li.textContent = `${line}: …`;
    ol.appendChild(li);
  }
  return li;
}

function showProblems(file: string, problems: { line: number; message: string }[]): void {
  $('sc-problems').replaceChildren(
    ...problems.map((p) => {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = `${file}:${p.line}: ${p.message}`;
      b.onclick = () => selectLine(p.line);
      li.appendChild(b);
      return li;
    }),
  );
}

/** Puts the cursor on line `n` (1-based) of the scenario text. */
function selectLine(n: number): void {
  const ta = $<HTMLTextAreaElement>('sc-text');
  const lines = ta.value.split('\n');
  const start = lines.slice(0, n - 1).reduce((a, l) => a + l.length + 1, 0);
  ta.focus();
  ta.setSelectionRange(start, start + (lines[n - 1]?.length ?? 0));
}

let scenarioName = 'scenario.yaml';
let scenarioRunning = false;
function runScenario(stepping: boolean): void {
  scenarioRunning = true;
  $('sc-steps').replaceChildren();
  $('sc-problems').replaceChildren();
  $('shots').replaceChildren();
  $('sc-result').textContent = '';
  send({ type: 'scenario', name: scenarioName, text: $<HTMLTextAreaElement>('sc-text').value, stepping, lang });
}

function screenshotLink(file: string, lines: string[], led: LedColor): void {
  const px = drawPixels({ lines, rows: 4, columns: 20, led }, 3);
  const c = document.createElement('canvas');
  c.width = px.width;
  c.height = px.height;
  c.getContext('2d')!.putImageData(
    new ImageData(new Uint8ClampedArray(px.data.buffer as ArrayBuffer), px.width, px.height),
    0,
    0,
  );
  c.toBlob((blob) => {
    if (!blob) return;
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = file.split('/').pop() || 'screenshot.png';
    a.textContent = file;
    a.dataset.test = 'screenshot';
    $('shots').appendChild(a);
  }, 'image/png');
}

// --- camera ---------------------------------------------------------------------------------------

const CAM_W = 640;
const CAM_H = 480;
const grab = document.createElement('canvas');
grab.width = CAM_W;
grab.height = CAM_H;

/** Shows `src` to the device's camera: fitted into a 640×480 frame on white, as RGBA. */
function sendFrame(src: CanvasImageSource, w: number, h: number): void {
  const ctx = grab.getContext('2d', { willReadFrequently: true })!;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, CAM_W, CAM_H);
  const k = Math.min(CAM_W / w, CAM_H / h);
  ctx.drawImage(src, (CAM_W - w * k) / 2, (CAM_H - h * k) / 2, w * k, h * k);
  const img = ctx.getImageData(0, 0, CAM_W, CAM_H);
  const data = img.data.buffer;
  send({ type: 'frame', width: CAM_W, height: CAM_H, format: 'rgba', data }, [data]);
}

/** A browser error in the page's language: by its name (its message is the browser's English). */
function domError(e: unknown): string {
  const name = (e as Error)?.name ?? '';
  return t().domErrors[name] ?? (name || String(e));
}

async function showPhoto(file: File): Promise<void> {
  try {
    const bmp = await createImageBitmap(file);
    sendFrame(bmp, bmp.width, bmp.height);
    addLine('log', `${stamp()} photo ${file.name} ${bmp.width}×${bmp.height}`);
    bmp.close();
  } catch (e) {
    status(t().badImage + domError(e), true);
  }
}

let webcam: { stream: MediaStream; timer: number } | undefined;
async function toggleWebcam(): Promise<void> {
  const button = $('webcam');
  if (webcam) {
    clearInterval(webcam.timer);
    for (const tr of webcam.stream.getTracks()) tr.stop();
    webcam = undefined;
    $('video').hidden = true;
    button.textContent = t().webcam;
    return;
  }
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { width: CAM_W, height: CAM_H }, audio: false });
    const video = $<HTMLVideoElement>('video');
    video.hidden = false;
    video.srcObject = stream;
    await video.play();
    // About 4 frames a second: the camera keeps the latest only, the firmware decodes what it can.
    const timer = window.setInterval(() => {
      if (video.videoWidth) sendFrame(video, video.videoWidth, video.videoHeight);
    }, 250);
    webcam = { stream, timer };
    button.textContent = t().webcamStop;
  } catch (e) {
    status(t().noWebcam + domError(e), true);
  }
}

// --- wiring ---------------------------------------------------------------------------------------

let nextNumber = 1;
let otherTab = false;

worker.onmessage = (e: MessageEvent<ToPage>) => {
  const m = e.data;
  switch (m.type) {
    case 'other-tab':
      otherTab = true;
      status(t().otherTab, true);
      return;
    case 'ready':
      if (!otherTab) status(t().ready);
      document.body.dataset.ready = '1';
      return;
    case 'state':
      drawDisplay(m.on ? m.lines : [], m.led);
      $('power').textContent = m.on ? m.bootMode : t().off;
      return;
    case 'beep':
      beep(m.tones);
      addLine(
        'beeps',
        `${stamp()} ${t().beepKinds[m.kind] ?? m.kind}${m.source === 'scenario' ? t().fromScenario : ''}`,
      );
      return;
    case 'log':
      addLine('log', `${stamp()} ${m.line}`);
      return;
    case 'ledger':
      showLedger(m.entries);
      // A routine save does not cover an error the user has not read yet (a late save from the previous
      // scan overwrote 'image illisible' in CI).
      if (m.saved && !$('status').classList.contains('error')) status(t().saved);
      document.body.dataset.payments = String(m.entries.length);
      return;
    case 'ticket':
      $('t-code').textContent = m.code;
      return;
    case 'receipt':
      // The last receipt on top of the roll; the roll keeps the last few.
      $('receipt').textContent = [m.lines.join('\n'), $('receipt').textContent]
        .join('\n✂ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─\n')
        .slice(0, 6000);
      return;
    case 'chip':
      download('saphir-chip.bin', m.bytes as Uint8Array<ArrayBuffer>, 'application/octet-stream');
      return;
    case 'scenario-problems':
      scenarioRunning = false;
      $('sc-result').textContent = t().invalid;
      showProblems(m.file, m.problems);
      return;
    case 'step-start': {
      for (const li of $('sc-steps').querySelectorAll('li.current')) li.classList.remove('current');
      const li = stepItem(m.line);
      li.classList.add('current');
      // Scrolls the list only, not the page.
      const ol = $('sc-steps');
      if (li.offsetTop < ol.scrollTop || li.offsetTop > ol.scrollTop + ol.clientHeight - li.offsetHeight)
        ol.scrollTop = li.offsetTop - ol.clientHeight / 2;
      return;
    }
    case 'step-done': {
      const li = stepItem(m.step.line);
      li.classList.remove('current');
      li.classList.add(m.step.ok ? 'pass' : 'fail');
      li.textContent = `${scenarioName}:${m.step.line}: ${m.step.text}${m.step.problem ? ' — ' + m.step.problem : ''}`;
      if (!m.step.ok) showProblems(scenarioName, [{ line: m.step.line, message: m.step.problem ?? '' }]);
      return;
    }
    case 'screenshot':
      screenshotLink(m.file, m.lines, m.led);
      return;
    case 'scenario-done':
      scenarioRunning = false;
      $('sc-result').textContent = m.ok ? t().passed(m.steps) : t().failed + (m.error ? ` : ${m.error}` : '');
      $('sc-result').dataset.ok = String(m.ok);
      return;
    case 'scenarios':
      offerScenarios(m.scenarios);
      return;
    case 'error':
      status(m.message, true);
      addLine('log', `${stamp()} ! ${m.message}`);
      return;
  }
};

function press(key: string): void {
  send({ type: 'key', key });
}

for (const b of document.querySelectorAll<HTMLButtonElement>('[data-key]')) b.onclick = () => press(b.dataset.key!);
document.addEventListener('keydown', (e) => {
  const el = e.target as HTMLElement;
  if (el.closest('input, textarea, select, [contenteditable]') || e.ctrlKey || e.metaKey || e.altKey) return;
  // Enter on a focused button presses that button.
  if (el.closest('button, a') && (e.key === 'Enter' || e.key === ' ')) return;
  const key = /^[0-9]$/.test(e.key)
    ? e.key
    : e.key === 'Enter'
      ? 'OK'
      : e.key === 'Escape' || e.key === 'Backspace'
        ? 'C'
        : '';
  if (!key) return;
  e.preventDefault();
  press(key);
});

const via = () => $<HTMLSelectElement>('via').value as ScannerKind;
const options = () => $<HTMLInputElement>('options').value;

$('scan-form').onsubmit = (e) => {
  e.preventDefault();
  const code = $<HTMLInputElement>('code').value.trim();
  if (code) send({ type: 'scan', code, via: via(), options: options() });
};
$('ticket-form').onsubmit = (e) => {
  e.preventDefault();
  const num = (id: string) => Number($<HTMLInputElement>(id).value);
  const ticket = {
    emission: num('t-emission'),
    block: num('t-block'),
    number: num('t-number'),
    prize: Number($<HTMLSelectElement>('t-prize').value),
    key: $<HTMLInputElement>('t-forged').checked ? ('other' as const) : ('test' as const),
  };
  send({ type: 'ticket', ticket, via: via(), options: options() });
  $<HTMLInputElement>('t-number').value = String(Math.max(ticket.number, nextNumber) + 1);
  nextNumber = ticket.number + 1;
};

$('boot').onclick = () => send({ type: 'power', what: 'boot' });
$('reboot').onclick = () => send({ type: 'power', what: 'reboot' });
$('cut').onclick = () => send({ type: 'power', what: 'cut' });
$('export').onclick = () => send({ type: 'export' });
$('erase').onclick = () => {
  // It erases the payments this device recorded: asked first.
  if (confirm(t().eraseAsk(payments.length))) send({ type: 'erase' });
};
$('paper').onchange = () =>
  send({ type: 'printer', state: ($('paper') as HTMLSelectElement).value as 'ok' | 'paper-out' | 'fault' });
$<HTMLInputElement>('import').onchange = async (e) => {
  const f = (e.target as HTMLInputElement).files?.[0];
  if (!f) return;
  const bytes = await f.arrayBuffer();
  send({ type: 'import', bytes }, [bytes]);
  (e.target as HTMLInputElement).value = '';
};
$('csv').onclick = () => download('saphir-ledger.csv', toCsv(payments), 'text/csv');

const drop = $('drop');
drop.ondragover = (e) => {
  e.preventDefault();
  drop.classList.add('over');
};
drop.ondragleave = () => drop.classList.remove('over');
drop.ondrop = (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const f = e.dataTransfer?.files?.[0];
  if (f) void showPhoto(f);
};
drop.onkeydown = (e) => {
  if (e.key === 'Enter' || e.key === ' ') $('photo').click();
};
$<HTMLInputElement>('photo').onchange = (e) => {
  const f = (e.target as HTMLInputElement).files?.[0];
  if (f) void showPhoto(f);
};
$('webcam').onclick = () => void toggleWebcam();

$<HTMLSelectElement>('lang').onchange = (e) => {
  lang = (e.target as HTMLSelectElement).value === 'en' ? 'en' : 'fr';
  localStorage.setItem('saphir-lang', lang);
  applyLang();
};
const mute = $<HTMLInputElement>('mute');
mute.checked = localStorage.getItem('saphir-mute') === '1';
mute.onchange = () => localStorage.setItem('saphir-mute', mute.checked ? '1' : '0');

let shipped: Record<string, string> = {};
$('sc-run').onclick = () => (scenarioRunning ? send({ type: 'step', stepping: false }) : runScenario(false));
$('sc-step').onclick = () => {
  if (scenarioRunning) send({ type: 'step', stepping: true });
  else runScenario(true);
};
$('sc-stop').onclick = () => send({ type: 'stop' });
$<HTMLSelectElement>('sc-pick').onchange = (e) => {
  scenarioName = (e.target as HTMLSelectElement).value;
  $<HTMLTextAreaElement>('sc-text').value = shipped[scenarioName] ?? '';
};
$<HTMLInputElement>('sc-file').onchange = async (e) => {
  const f = (e.target as HTMLInputElement).files?.[0];
  if (!f) return;
  scenarioName = f.name;
  $<HTMLTextAreaElement>('sc-text').value = await f.text();
};
/** The shipped scenarios the worker says this page can run (no fleet ones without a registry); the demo first. */
function offerScenarios(s: Record<string, string>): void {
  shipped = s;
  const pick = $<HTMLSelectElement>('sc-pick');
  pick.replaceChildren(...Object.keys(s).map((n) => new Option(n, n)));
  if ('demo.yaml' in s) pick.value = 'demo.yaml';
  scenarioName = pick.value;
  $<HTMLTextAreaElement>('sc-text').value = s[scenarioName] ?? '';
}

applyLang();
drawDisplay([], 'off');
status(t().loading);
