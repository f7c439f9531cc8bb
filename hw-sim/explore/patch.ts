// A unified diff (as `diff -u` or `git diff` write it) applied to source text, strictly: every hunk's
// old lines (context and removals) must occur exactly once in the file, else it refuses and says which
// hunk and why. No fuzz: a planted defect whose place changed must be rewritten, never planted elsewhere.

export interface FilePatch {
  /** The file, from the repository root (the `+++ b/…` name without its `b/`). */
  file: string;
  hunks: { header: string; old: string[]; new: string[] }[];
}

/** The file patches of a unified diff; lines before the first `--- ` (a description) are skipped. */
export function parsePatch(text: string): FilePatch[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const out: FilePatch[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!lines[i].startsWith('--- ') || !(lines[i + 1] ?? '').startsWith('+++ ')) {
      i++;
      continue;
    }
    const file = lines[i + 1].slice(4).split('\t')[0].replace(/^b\//, '');
    const fp: FilePatch = { file, hunks: [] };
    i += 2;
    while (i < lines.length && lines[i].startsWith('@@')) {
      const m = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(lines[i]);
      if (!m) throw new Error(`patch: malformed hunk header '${lines[i]}'`);
      let oldLeft = m[1] === undefined ? 1 : Number(m[1]);
      let newLeft = m[2] === undefined ? 1 : Number(m[2]);
      const h = { header: lines[i], old: [] as string[], new: [] as string[] };
      i++;
      while (oldLeft > 0 || newLeft > 0) {
        const l = lines[i++];
        if (l === undefined) throw new Error(`patch: hunk '${h.header}' of ${file} ends early`);
        if (l.startsWith('\\')) continue; // "\ No newline at end of file"
        const body = l.slice(1);
        if (l.startsWith(' ') || l === '') {
          h.old.push(body);
          h.new.push(body);
          oldLeft--;
          newLeft--;
        } else if (l.startsWith('-')) {
          h.old.push(body);
          oldLeft--;
        } else if (l.startsWith('+')) {
          h.new.push(body);
          newLeft--;
        } else throw new Error(`patch: unexpected line in hunk '${h.header}' of ${file}: '${l}'`);
      }
      fp.hunks.push(h);
    }
    if (!fp.hunks.length) throw new Error(`patch: no hunk for ${file}`);
    out.push(fp);
  }
  if (!out.length) throw new Error('patch: no file in it');
  return out;
}

/** `source` with the hunks of `p` applied; throws, naming the hunk, when one does not apply exactly once. */
export function applyFilePatch(source: string, p: FilePatch): string {
  let text = source;
  for (const h of p.hunks) {
    const old = h.old.join('\n') + '\n';
    // Whole lines only: searched with the newline before it (the file's start counts as one).
    const hay = '\n' + text;
    const at = hay.indexOf('\n' + old);
    if (at < 0)
      throw new Error(`patch of ${p.file}: hunk '${h.header}' does not apply (its lines are not in the file)`);
    if (hay.indexOf('\n' + old, at + 1) >= 0)
      throw new Error(`patch of ${p.file}: hunk '${h.header}' applies at more than one place`);
    text = text.slice(0, at) + h.new.join('\n') + '\n' + text.slice(at + old.length);
  }
  return text;
}
