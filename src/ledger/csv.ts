// The ledger as CSV (`saphir ledger export`, the web simulator's ledger panel): one payment a line,
// ISO times, snake_case column names. Portable.
export const CSV_COLUMNS = ['emission', 'block', 'number', 'prize_eur', 'paid_at', 'device_id'] as const;

function csvField(v: unknown): string {
  const s = v === undefined || v === null ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One payment as the export shows it (ISO time; snake_case names). */
export function exportRow(e: unknown): Record<(typeof CSV_COLUMNS)[number], unknown> {
  const o = (e && typeof e === 'object' ? e : {}) as Record<string, unknown>;
  const t = typeof o.paidAtMs === 'number' && isFinite(o.paidAtMs) ? new Date(o.paidAtMs).toISOString() : '';
  return {
    emission: o.emission,
    block: o.block,
    number: o.number,
    prize_eur: o.prizeEur,
    paid_at: t,
    device_id: o.deviceId,
  };
}

export function toCsv(entries: unknown[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const e of entries) {
    const r = exportRow(e);
    lines.push(CSV_COLUMNS.map((c) => csvField(r[c])).join(','));
  }
  return lines.join('\n') + '\n';
}
