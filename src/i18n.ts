// Words shown to retailers: French by default, English on request.
import type { Reason } from './sph1/check.ts';

export type Lang = 'fr' | 'en';

export const REASON_TEXT: Record<Lang, Record<Reason, string>> = {
  fr: {
    E_PREFIX: 'pas un code SAPHIR',
    E_BASE45: 'code illisible',
    E_LENGTH: 'longueur du code incorrecte',
    E_VERSION: 'version de code inconnue',
    E_GAME: "ticket d'un autre jeu",
    E_KEY: 'clé de signature inconnue',
    E_SIGNATURE: 'signature invalide',
    E_FIELD: 'champ hors limites',
    E_DUPLICATE_NUMBER: 'numéro en double',
    E_PRIZE_NOT_IN_TABLE: 'gain hors barème',
  },
  en: {
    E_PREFIX: 'not a SAPHIR code',
    E_BASE45: 'unreadable code',
    E_LENGTH: 'wrong code length',
    E_VERSION: 'unknown code version',
    E_GAME: 'ticket of another game',
    E_KEY: 'unknown signing key',
    E_SIGNATURE: 'invalid signature',
    E_FIELD: 'field out of range',
    E_DUPLICATE_NUMBER: 'duplicate number',
    E_PRIZE_NOT_IN_TABLE: 'prize not in the prize table',
  },
};

export const WORDS: Record<Lang, { win: string; lose: string; invalid: string }> = {
  fr: { win: 'GAGNANT', lose: 'PERDANT', invalid: 'NON VALIDE' },
  en: { win: 'WINNER', lose: 'LOSER', invalid: 'NOT VALID' },
};

/** Euros the French way: thousands grouped by spaces, then " €" (`250 000 €`). English: `€250,000`. */
export function formatEur(eur: number, lang: Lang = 'fr'): string {
  const digits = String(Math.trunc(eur));
  const sep = lang === 'fr' ? ' ' : ',';
  let grouped = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) grouped += sep;
    grouped += digits[i];
  }
  return lang === 'fr' ? `${grouped} €` : `€${grouped}`;
}
