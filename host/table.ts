// The CLI's text tables: columns two spaces apart, each as wide as its widest cell.

/** `rows` (the header first, if any) as aligned lines; the last column is not padded, nor any line's end. */
export function textTable(rows: readonly (readonly string[])[]): string {
  const n = Math.max(0, ...rows.map((r) => r.length));
  const w = Array.from({ length: n }, (_, i) => Math.max(0, ...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
