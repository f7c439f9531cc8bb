// The simulated thermal receipt printer (HAL Printer): it reads the firmware's ESC/POS back into lines
// (src/print/escpos.ts) and keeps the receipts printed. It outlives a power cut (it is not the device's
// RAM): paper and faults are its own state, set by scenarios (`printer: paper-out`) and tests. Portable.
import { parseEscpos, receiptText, type ParsedReceipt } from '../src/print/escpos.ts';

export type PrinterState = 'ok' | 'paper-out' | 'fault';

export interface PrintedReceipt extends ParsedReceipt {
  /** Virtual time it was printed, ms. */
  t: number;
  /** As plain text, one string a line (`*bold*`, `[QR …]`). */
  text: string[];
}

export class SimPrinter {
  state: PrinterState = 'ok';
  /** Receipts printed, oldest first (the last 200). */
  readonly receipts: PrintedReceipt[] = [];
  /** Called after each receipt printed. */
  onPrint?: (r: PrintedReceipt) => void;

  /** Prints one receipt, or throws as the HAL says when it cannot (nothing printed then). */
  print(bytes: Uint8Array, t: number): void {
    if (this.state === 'paper-out') throw new Error('printer: paper out');
    if (this.state === 'fault') throw new Error('printer: fault');
    const p = parseEscpos(bytes instanceof Uint8Array ? bytes : new Uint8Array(0));
    const r: PrintedReceipt = { ...p, t, text: receiptText(p) };
    this.receipts.push(r);
    if (this.receipts.length > 200) this.receipts.splice(0, this.receipts.length - 200);
    this.onPrint?.(r);
  }

  get last(): PrintedReceipt | undefined {
    return this.receipts[this.receipts.length - 1];
  }
}
