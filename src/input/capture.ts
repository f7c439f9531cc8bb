// The HID capture text format of `saphir decode`: one report a line as hex bytes separated by spaces
// (`02 00 16 00 00 00 00 00`); blank lines and `#` comments (also after the bytes) are ignored.

export interface Capture {
  reports: Uint8Array[];
  /** Lines that are not a report, and why (`word`: the first word that is not a hex byte); skipped. */
  errors: { line: number; tooLong?: true; word?: string }[];
}

export const MAX_REPORT = 1024;

export function parseHexReports(text: string): Capture {
  const reports: Uint8Array[] = [];
  const errors: Capture['errors'] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const hash = lines[i].indexOf('#');
    const body = (hash >= 0 ? lines[i].slice(0, hash) : lines[i]).trim();
    if (body === '') continue;
    const words = body.split(/[\s,]+/);
    if (words.length > MAX_REPORT) {
      errors.push({ line: i + 1, tooLong: true });
      continue;
    }
    const bytes = new Uint8Array(words.length);
    let bad = '';
    for (let j = 0; j < words.length && !bad; j++) {
      const w = words[j].replace(/^0x/i, '');
      if (!/^[0-9a-fA-F]{1,2}$/.test(w)) bad = words[j];
      else bytes[j] = parseInt(w, 16);
    }
    if (bad) errors.push({ line: i + 1, word: bad });
    else reports.push(bytes);
  }
  return { reports, errors };
}
