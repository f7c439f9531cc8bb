// The message catalogue: one per language, the same keys in both (see en.ts).
import type { Lang } from '../i18n.ts';
import { en, type Messages } from './en.ts';
import { fr } from './fr.ts';

export type { Messages };
export const CATALOGUES: Record<Lang, Messages> = { fr, en };

export function messages(lang: Lang): Messages {
  return CATALOGUES[lang];
}
