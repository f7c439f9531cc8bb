// ESC/POS, the subset the device's receipts use, both ways: `escpos` encodes a receipt for the printer
// (HAL Printer), `parseEscpos` reads one back (the simulated printer, tests). Text is Windows-1252
// (ESC t 16), so French accents and € print; a character outside it prints as '?'. Portable.

/** One line of a receipt: text (bold and/or centred), or a QR code of `qr` (ASCII). */
export type ReceiptLine = { text: string; bold?: boolean; center?: boolean } | { qr: string };

const ESC = 0x1b;
const GS = 0x1d;

/** Windows-1252 byte of a character, or '?' (0x3f). */
function cp1252(c: number): number {
  if (c === 0x20ac) return 0x80; // €
  if (c === 0x2026) return 0x85; // …
  if (c === 0x2019) return 0x27; // ’ → '
  return (c >= 0x20 && c < 0x7f) || (c >= 0xa0 && c <= 0xff) ? c : 0x3f;
}

/** The bytes of a whole receipt: initialise, code page, the lines, feed and cut. */
export function escpos(lines: readonly ReceiptLine[]): Uint8Array {
  const b: number[] = [ESC, 0x40, ESC, 0x74, 16];
  for (const l of lines) {
    if ('qr' in l) {
      const n = l.qr.length + 3;
      // QR model 2, module size 6, error correction M, store, print (GS ( k).
      b.push(ESC, 0x61, 1);
      b.push(GS, 0x28, 0x6b, 4, 0, 0x31, 0x41, 0x32, 0, GS, 0x28, 0x6b, 3, 0, 0x31, 0x43, 6);
      b.push(GS, 0x28, 0x6b, 3, 0, 0x31, 0x45, 0x31, GS, 0x28, 0x6b, n & 0xff, n >> 8, 0x31, 0x50, 0x30);
      for (let i = 0; i < l.qr.length; i++) b.push(l.qr.charCodeAt(i) & 0x7f);
      b.push(GS, 0x28, 0x6b, 3, 0, 0x31, 0x51, 0x30, 0x0a);
      continue;
    }
    b.push(ESC, 0x61, l.center ? 1 : 0, ESC, 0x45, l.bold ? 1 : 0);
    for (let i = 0; i < l.text.length; i++) b.push(cp1252(l.text.charCodeAt(i)));
    b.push(0x0a);
  }
  b.push(ESC, 0x64, 3, GS, 0x56, 0x42, 0);
  return new Uint8Array(b);
}

export interface ParsedReceipt {
  lines: ReceiptLine[];
  /** The paper was cut after the last line (a receipt is complete only then). */
  cut: boolean;
  /** Bytes the subset does not know (none for what `escpos` writes). */
  unknown: number;
}

const FROM_1252: Record<number, string> = { 0x80: '€', 0x85: '…' };

/** Reads ESC/POS back into lines. Never throws: what it does not know is counted in `unknown`. */
export function parseEscpos(bytes: Uint8Array): ParsedReceipt {
  const out: ParsedReceipt = { lines: [], cut: false, unknown: 0 };
  let bold = false;
  let center = false;
  let text = '';
  let qr = '';
  for (let i = 0; i < bytes.length;) {
    const c = bytes[i];
    if (c === 0x0a) {
      if (text || !qr) out.lines.push({ text, bold, center });
      text = '';
      qr = '';
      i++;
    } else if (c === ESC && i + 1 < bytes.length) {
      const op = bytes[i + 1];
      if (op === 0x61) center = bytes[i + 2] === 1;
      if (op === 0x45) bold = bytes[i + 2] === 1;
      if (op === 0x40) i += 2;
      else if (op === 0x74 || op === 0x64 || op === 0x61 || op === 0x45) i += 3;
      else {
        out.unknown++;
        i++;
      }
    } else if (c === GS && bytes[i + 1] === 0x56) {
      out.cut = true;
      i += bytes[i + 2] === 0x42 ? 4 : 3;
    } else if (c === GS && bytes[i + 1] === 0x28 && bytes[i + 2] === 0x6b && i + 7 < bytes.length) {
      const n = bytes[i + 3] | (bytes[i + 4] << 8);
      if (bytes[i + 5] === 0x31 && bytes[i + 6] === 0x50) {
        for (let k = i + 8; k < i + 5 + n && k < bytes.length; k++) qr += String.fromCharCode(bytes[k]);
      } else if (bytes[i + 5] === 0x31 && bytes[i + 6] === 0x51) out.lines.push({ qr });
      i += 5 + n;
    } else if (c >= 0x20) {
      text += FROM_1252[c] ?? (c < 0x7f || c >= 0xa0 ? String.fromCharCode(c) : '?');
      i++;
    } else {
      out.unknown++;
      i++;
    }
  }
  if (text) out.lines.push({ text, bold, center });
  return out;
}

/** A receipt as plain text (`*` marks bold lines), for logs and scenario checks. */
export function receiptText(r: ParsedReceipt, width = 32): string[] {
  return r.lines.map((l) => {
    if ('qr' in l) return `[QR ${l.qr}]`;
    const t = l.bold ? `*${l.text}*` : l.text;
    return l.center ? ' '.repeat(Math.max(0, (width - t.length) >> 1)) + t : t;
  });
}
