// Article 3: the prize table of one block, as data, and the check that its totals add up.
import { BLOCK_SIZE, TICKET_PRICE_EUR } from './rules.ts';

export interface PrizeRow {
  count: number;
  amountEur: number;
  /** The row total as printed. */
  totalEur: number;
}

export interface PrizeTable {
  rows: PrizeRow[];
  /** The printed column totals. */
  totalLots: number;
  totalEur: number;
}

/** Article 3 exactly as printed, slip included (row 9 reads 35 € where its total proves 5 €). */
export const PRINTED_PRIZE_TABLE: PrizeTable = {
  rows: [
    { count: 2, amountEur: 250000, totalEur: 500000 },
    { count: 2, amountEur: 25000, totalEur: 50000 },
    { count: 6, amountEur: 2500, totalEur: 15000 },
    { count: 30, amountEur: 500, totalEur: 15000 },
    { count: 1500, amountEur: 150, totalEur: 225000 },
    { count: 40000, amountEur: 30, totalEur: 1200000 },
    { count: 130429, amountEur: 15, totalEur: 1956435 },
    { count: 415904, amountEur: 10, totalEur: 4159040 },
    { count: 415904, amountEur: 35, totalEur: 2079520 },
  ],
  totalLots: 1003777,
  totalEur: 10199995,
};

/** The table the code uses: the printed one with row 9 corrected to 5 € (see docs/sph1.md). */
export const PRIZE_TABLE: PrizeTable = {
  ...PRINTED_PRIZE_TABLE,
  rows: PRINTED_PRIZE_TABLE.rows.map((r, i) => (i === 8 ? { ...r, amountEur: 5 } : r)),
};

/** Recomputes every row total and both column totals; returns one message per discrepancy. */
export function checkPrizeTable(table: PrizeTable): string[] {
  const errors: string[] = [];
  let lots = 0;
  let eur = 0;
  table.rows.forEach((r, i) => {
    if (r.count * r.amountEur !== r.totalEur) {
      errors.push(`row ${i + 1}: ${r.count} × ${r.amountEur} € = ${r.count * r.amountEur} €, printed ${r.totalEur} €`);
    }
    lots += r.count;
    eur += r.count * r.amountEur;
  });
  if (lots !== table.totalLots) errors.push(`lots: rows add up to ${lots}, printed ${table.totalLots}`);
  if (eur !== table.totalEur) errors.push(`total: rows add up to ${eur} €, printed ${table.totalEur} €`);
  const amounts = table.rows.map((r) => r.amountEur);
  if (amounts.some((a, i) => amounts.indexOf(a) !== i)) errors.push('an amount appears in two rows');
  return errors;
}

/** The prize amounts a genuine ticket can win, largest first. */
export const PRIZE_AMOUNTS_EUR: readonly number[] = PRIZE_TABLE.rows.map((r) => r.amountEur);

export function isPrizeAmount(eur: number): boolean {
  return PRIZE_AMOUNTS_EUR.indexOf(eur) >= 0;
}

/** Lots of the given amount in one block (0 if none). */
export function lotsOf(eur: number, table: PrizeTable = PRIZE_TABLE): number {
  for (const r of table.rows) if (r.amountEur === eur) return r.count;
  return 0;
}

export interface TableFigures {
  lots: number;
  totalEur: number;
  salesEur: number;
  /** Share of sales paid back as prizes (0.68). */
  payoutRatio: number;
  /** One winning ticket in this many (2.99). */
  oddsOneIn: number;
}

/** Figures derived from the table, never typed in. */
export function tableFigures(table: PrizeTable = PRIZE_TABLE): TableFigures {
  let lots = 0;
  let totalEur = 0;
  for (const r of table.rows) {
    lots += r.count;
    totalEur += r.count * r.amountEur;
  }
  const salesEur = BLOCK_SIZE * TICKET_PRICE_EUR;
  return { lots, totalEur, salesEur, payoutRatio: totalEur / salesEur, oddsOneIn: BLOCK_SIZE / lots };
}
