// What tells a sentence of one language from the other, for the tests that check the French and
// English voices (values a line quotes are taken out first: paths, options, the user's input).

/** Words of an English sentence (option names, paths and quoted values are removed first). */
export const ENGLISH =
  /\b(cannot|can't|not|no such|must|unknown|failed|takes|already|does|should|is|are|the|with|without|found|error|refused|invalid|needs|neither|nor|give)\b/;
/** Words of a French sentence. */
export const FRENCH =
  /\b(le|la|les|des|du|est|pas|une|impossible|introuvable|fichier|dossier|avec|sans|doit|refusée?s?|aucun|aucune|erreur|ni)\b/;

/** What is left of a line once the values it quotes (paths, options, the user's input) are taken out. */
export function prose(text: string): string {
  return text
    .replace(/«[^»]*»|'[^']*'|"[^"]*"|`[^`]*`/g, ' ')
    .replace(/(^|\s)(--?[\w-]+|\/[^\s:;,)]*|[\w./-]+\.(json|txt|png|img|yaml))/g, ' ')
    .replace(/\bsaphir \w+/g, ' ');
}
