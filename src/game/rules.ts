// SAPHIR 250 000 € — the law of the game (regulation Articles 2 and 4).

/** Article 2: tickets per block. */
export const BLOCK_SIZE = 3_000_000;
/** Article 2: price of a ticket in euros. */
export const TICKET_PRICE_EUR = 5;

/** Article 4.2: the only numbers that can appear, in increasing order (index = SPH1 number index). */
export const NUMBERS: readonly number[] = [
  1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 14, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34, 35,
  36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49,
];

/** SPH1 amount index → euros printed beside a player's number. */
export const AMOUNTS_EUR: readonly number[] = [
  5, 10, 15, 20, 30, 40, 50, 100, 150, 250, 500, 1000, 2500, 5000, 25000, 250000,
];

/** Article 4.1: six "Numéros gagnants", twenty "Vos numéros". */
export const WINNING_COUNT = 6;
export const PLAYER_COUNT = 20;

export interface PlayerCell {
  number: number;
  amountEur: number;
}

export interface Zones {
  winning: number[];
  player: PlayerCell[];
}

export interface Outcome {
  /** Sum of the matched amounts: one indivisible lot (Article 4.3); 0 loses (Article 4.4). */
  prizeEur: number;
  /** The player's numbers found among the winning numbers, in the order of "Vos numéros". */
  matched: number[];
}

/** Article 4.3: every player's number equal to a winning number adds the amount beside it. */
export function outcome(zones: Zones): Outcome {
  let prizeEur = 0;
  const matched: number[] = [];
  for (const cell of zones.player) {
    if (zones.winning.indexOf(cell.number) >= 0) {
      prizeEur += cell.amountEur;
      matched.push(cell.number);
    }
  }
  return { prizeEur, matched };
}

/** Article 4.2: a number may appear at most once within one zone. */
export function hasDuplicate(numbers: ArrayLike<number>): boolean {
  for (let i = 0; i < numbers.length; i++) {
    for (let j = i + 1; j < numbers.length; j++) if (numbers[i] === numbers[j]) return true;
  }
  return false;
}
