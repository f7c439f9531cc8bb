// How the CLI shows a check result: one readable line, or the JSON object of `saphir check --json`.
import type { CheckResult } from '../src/sph1/check.ts';
import { REASON_TEXT, WORDS, formatEur, type Lang } from '../src/i18n.ts';

export function verdictLine(r: CheckResult, lang: Lang): string {
  const w = WORDS[lang];
  const id = r.ticket ? `  [${r.ticket.emission}/${r.ticket.block}/${r.ticket.number}]` : '';
  if (r.status === 'win') return `${w.win} ${formatEur(r.prizeEur, lang)}${id}`;
  if (r.status === 'lose') return `${w.lose}${id}`;
  return `${w.invalid} — ${REASON_TEXT[lang][r.reason!]}${id}`;
}

export function verdictJson(code: string, r: CheckResult): Record<string, unknown> {
  const o: Record<string, unknown> = { code, status: r.status, prize_eur: r.prizeEur, reason: r.reason };
  if (r.ticket) {
    const t = r.ticket;
    o.ticket = { game: t.game, emission: t.emission, block: t.block, number: t.number, key_id: t.keyId };
  }
  if (r.winning && r.player) {
    o.winning = r.winning;
    o.player = r.player.map((c) => ({ number: c.number, amount_eur: c.amountEur }));
    o.matched = r.matched;
  }
  return o;
}
