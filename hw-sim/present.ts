// What `saphir sim` and `saphir demo` print: steps, failures, the display as it changes, summaries.
// French by default, English with --lang en.
import type { Lang } from '../src/i18n.ts';
import { drawText } from './render.ts';
import type { RunReport, StepReport } from './runner.ts';
import type { Simulator } from './sim.ts';
import type { ScenarioError } from './scenario.ts';
import { messages } from '../src/messages/index.ts';

/** The simulator's words (src/messages/), with the virtual time formatted here. */
function words(lang: Lang) {
  const m = messages(lang);
  return {
    ...m.sim,
    scenarioOk: (n: number, ms: number, wall: number) => m.sim.scenarioOk(n, fmtVirtual(ms), wall.toFixed(0)),
    invalid: m.scenario.invalid,
  };
}
export const T = { fr: words('fr'), en: words('en') };

/** Virtual time as `1 h 02 min 03.250 s`, shortest form. */
export function fmtVirtual(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const sec = `${s.toFixed(3).replace(/\.?0+$/, '') || '0'} s`;
  if (h) return `${h} h ${String(m).padStart(2, '0')} min ${sec}`;
  if (m) return `${m} min ${sec}`;
  return sec;
}

export function stepLine(r: StepReport, lang: Lang): string {
  const t = T[lang];
  const head = `  ${r.ok ? t.pass.padEnd(5) : t.fail.padEnd(5)} ${t.line} ${String(r.line).padStart(3)}  ${r.text}`;
  return r.ok ? `${head}  [${fmtVirtual(r.t)}]` : `${head}\n        → ${r.problem}`;
}

export function reportText(r: RunReport, lang: Lang): string {
  const t = T[lang];
  if (r.ok) return `  ${t.scenarioOk(r.steps.length, r.virtualMs, r.wallMs)}`;
  const last = r.steps[r.steps.length - 1];
  return [`  ${t.scenarioFail(last?.line ?? 0)}`, `  ${t.display}`, indent(r.display ?? '', 4)].join('\n');
}

export function indent(s: string, n: number): string {
  const pad = ' '.repeat(n);
  return s
    .split('\n')
    .map((l) => pad + l)
    .join('\n');
}

/** The display of a running simulator, framed, with the virtual time. */
export function displayFrame(sim: Simulator): string {
  return drawText({ lines: sim.screen, rows: 4, columns: 20, led: sim.led }, `t=${fmtVirtual(sim.now)}`);
}

/** A refused scenario file: each problem on its own line, `file:line: problem`, in `lang`. */
export function scenarioErrorText(e: ScenarioError, lang: Lang): string {
  const m = messages(lang).scenario;
  return e.problems.map((p) => m.problem(e.file, p.line, p.message)).join('\n');
}
