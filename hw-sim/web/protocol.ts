// Messages between the page (page.ts) and the device's worker (worker.ts).
import type { LedColor } from '../../src/hal.ts';
import type { Payment } from '../../src/ledger/index.ts';
import type { ScannerKind } from '../scanners/index.ts';
import type { TicketSpec } from '../tickets.ts';
import type { StepReport } from '../runner.ts';

export type ToWorker =
  | { type: 'scan'; code: string; via: ScannerKind; options: string }
  | { type: 'ticket'; ticket: TicketSpec; via: ScannerKind; options: string }
  /** A camera frame (the camera HAL's formats). */
  | { type: 'frame'; width: number; height: number; format: 'y8' | 'rgba'; data: ArrayBuffer }
  | { type: 'key'; key: string }
  | { type: 'power'; what: 'boot' | 'reboot' | 'cut' }
  | { type: 'export' }
  | { type: 'import'; bytes: ArrayBuffer }
  | { type: 'erase' }
  /** The receipt printer's state from now on. */
  | { type: 'printer'; state: 'ok' | 'paper-out' | 'fault' }
  | { type: 'scenario'; name: string; text: string; stepping: boolean; lang: 'fr' | 'en' }
  /** Runs the next step; `stepping: false` runs the rest at once. */
  | { type: 'step'; stepping: boolean }
  | { type: 'stop' }
  /** The page's language: what the worker says from now on. */
  | { type: 'lang'; lang: 'fr' | 'en' };

export type ToPage =
  | { type: 'ready' }
  /** Another tab owns the stored chip: this one saves nothing. */
  | { type: 'other-tab' }
  | { type: 'state'; source: 'live' | 'scenario'; lines: string[]; led: LedColor; on: boolean; bootMode: string }
  | { type: 'beep'; kind: string; tones: { hz: number; ms: number }[]; source: 'live' | 'scenario' }
  | { type: 'log'; line: string }
  | { type: 'ledger'; entries: Payment[]; saved: boolean }
  | { type: 'ticket'; code: string }
  /** A receipt came out of the printer, as text lines (`*bold*`, `[QR …]`). */
  | { type: 'receipt'; lines: string[] }
  | { type: 'chip'; bytes: Uint8Array }
  | { type: 'scenario-problems'; file: string; problems: { line: number; message: string }[] }
  | { type: 'step-start'; line: number }
  | { type: 'step-done'; step: StepReport }
  | { type: 'screenshot'; file: string; lines: string[]; led: LedColor }
  | { type: 'scenario-done'; ok: boolean; steps: number; virtualMs: number; error?: string }
  | { type: 'error'; message: string }
  /** The shipped scenarios the page may offer (name → text). */
  | { type: 'scenarios'; scenarios: Record<string, string> };
